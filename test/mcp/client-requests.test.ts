import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  cli,
  everythingServer,
  filesystemServer,
  root,
  sandbox,
  textOf,
  waitFor,
} from './helpers.js';

const everything = everythingServer;

/**
 * The upstream's own requests to the client — a form for the person (elicitation), a
 * completion from the client's model (sampling), the client's roots — pass through the
 * proxy to the client whose call is running: the MCP SDK client → `intentguard
 * mcp-proxy` → the reference "everything" server, which asks for each of them.
 */
describe('mcp-proxy forwards the upstream server’s requests to the client', () => {
  const box = sandbox();
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  afterAll(() => box.cleanup());

  async function connect(capable: boolean) {
    const specPath = join(box.dir, '..', `asks-${capable}.intent`);
    writeFileSync(
      specPath,
      [
        'trigger_elicitation_request() -> Asked',
        'trigger_sampling_request() -> Sampled',
        'get_roots_list() -> Listed',
        'Asked & Sampled & Listed -> Done',
        '',
      ].join('\n'),
    );
    const seen: string[] = [];
    const connected = new Client(
      { name: 'test-client', version: '1.0.0' },
      { capabilities: capable ? { elicitation: { form: {} }, sampling: {}, roots: {} } : {} },
    );
    if (capable) {
      connected.setRequestHandler(ElicitRequestSchema, (request) => {
        seen.push(`elicit: ${request.params.message}`);
        return { action: 'decline' };
      });
      connected.setRequestHandler(CreateMessageRequestSchema, (request) => {
        seen.push(`sample: ${JSON.stringify(request.params.messages[0]?.content)}`);
        return {
          model: 'test-model',
          role: 'assistant',
          content: { type: 'text', text: 'a sampled reply' },
        };
      });
      connected.setRequestHandler(ListRootsRequestSchema, () => {
        seen.push('roots');
        return { roots: [{ uri: 'file:///work/project', name: 'project' }] };
      });
    }
    await connected.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [
          ...cli,
          'mcp-proxy',
          '--spec',
          specPath,
          '--confirm',
          'deny',
          '--',
          process.execPath,
          everything,
          'stdio',
        ],
        cwd: root,
        stderr: 'pipe',
      }),
    );
    client = connected;
    return { client: connected, seen };
  }

  it('forwards elicitation (marked as the server’s), sampling and roots', async () => {
    const { client: connected, seen } = await connect(true);
    const sampled = await connected.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'Say hi', maxTokens: 20 },
    });
    expect(sampled.isError).not.toBe(true);
    expect(textOf(sampled)).toContain('a sampled reply');
    const roots = await connected.callTool({ name: 'get-roots-list', arguments: {} });
    expect(textOf(roots)).toContain('file:///work/project');
    const elicited = await connected.callTool({
      name: 'trigger-elicitation-request',
      arguments: {},
    });
    expect(textOf(elicited).toLowerCase()).toContain('decline');
    expect(seen.some((line) => line.startsWith('sample: ') && line.includes('Say hi'))).toBe(true);
    expect(seen).toContain('roots');
    const asked = seen.find((line) => line.startsWith('elicit: '));
    expect(asked).toMatch(
      /^elicit: The MCP server \[[^\]]+\] asks \(this question is not from intentguard; the answer goes to that server\):\n│ /,
    );
  }, 60_000);

  it('answers the server with an error when the client cannot take the request', async () => {
    const { client: connected } = await connect(false);
    const sampled = await connected.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'Say hi', maxTokens: 20 },
    });
    expect(textOf(sampled)).toMatch(/does not support sampling/);
  }, 60_000);
});

/**
 * server-filesystem asks for the client's roots as soon as it is initialized, before any
 * client has connected to the proxy. It gets a clear answer (no client yet, not "Method
 * not found"), and asks again once a client that has roots connects.
 */
describe('mcp-proxy and an upstream that asks for roots at start-up', () => {
  const box = sandbox();
  afterAll(() => box.cleanup());

  it('no "Method not found" at start-up; a client with roots is asked for them', async () => {
    const asked: string[] = [];
    const client = new Client(
      { name: 'test-client', version: '1.0.0' },
      { capabilities: { roots: { listChanged: true } } },
    );
    client.setRequestHandler(ListRootsRequestSchema, () => {
      asked.push('roots');
      return { roots: [{ uri: `file://${box.dir}`, name: 'files' }] };
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        ...cli,
        'mcp-proxy',
        '--spec',
        box.specPath,
        '--confirm',
        'deny',
        '--',
        process.execPath,
        filesystemServer,
        box.dir,
      ],
      cwd: root,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    await client.connect(transport);
    try {
      await waitFor(() => asked.length > 0, 'the roots request');
      expect(asked).toEqual(['roots']);
      const read = await client.callTool({
        name: 'read_text_file',
        arguments: { path: join(box.dir, 'hello.txt') },
      });
      expect(textOf(read)).toBe('hello from the sandbox\n');
      expect(stderr).not.toContain('Method not found');
      expect(stderr).toContain('no MCP client is connected yet');
    } finally {
      await client.close();
    }
  }, 60_000);
});
