import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  connectHttp,
  connectStdio,
  type HttpProxy,
  type Sandbox,
  sandbox,
  startHttpProxy,
  textOf,
  waitFor,
} from './helpers.js';

/** A raw POST, to see what the endpoint does with requests an SDK client would never send. */
function post(
  url: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.end(body);
  });
}

/**
 * End to end over streamable HTTP, with real processes: the MCP SDK client →
 * `intentguard mcp-proxy --listen 127.0.0.1:0` → the reference filesystem server.
 */
describe('mcp-proxy over streamable HTTP', () => {
  let box: Sandbox;
  let proxy: HttpProxy | undefined;
  const clients: Client[] = [];

  beforeEach(() => {
    box = sandbox();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close().catch(() => undefined);
    await proxy?.stop();
    proxy = undefined;
    box.cleanup();
  });

  async function start(confirm: string): Promise<HttpProxy> {
    proxy = await startHttpProxy(['--spec', box.specPath, '--confirm', confirm], box.dir);
    return proxy;
  }

  it('lists tools, passes allowed calls, refuses a destructive call outside the plan', async () => {
    const { url } = await start('deny');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connectHttp(url);
    clients.push(client);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('move_file');

    const read = await client.callTool({
      name: 'read_text_file',
      arguments: { path: join(box.dir, 'hello.txt') },
    });
    expect(textOf(read)).toBe('hello from the sandbox\n');

    const move = await client.callTool({
      name: 'move_file',
      arguments: { source: join(box.dir, 'keep.txt'), destination: join(box.dir, 'moved.txt') },
    });
    expect(move.isError).toBe(true);
    expect(textOf(move)).toMatch(/^intentguard: revise/);
    expect(readFileSync(join(box.dir, 'keep.txt'), 'utf8')).toBe('do not touch\n');

    const write = await client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'notes.txt'), content: 'over http' },
    });
    expect(write.isError).toBeFalsy();
    expect(readFileSync(join(box.dir, 'notes.txt'), 'utf8')).toBe('over http');
  }, 60_000);

  it('elicitation accepted and declined', async () => {
    const { url } = await start('elicit,deny');
    const declining = await connectHttp(url, () => ({ action: 'decline' }));
    clients.push(declining);
    const declined = await declining.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'report.txt'), content: 'declined' },
    });
    expect(declined.isError).toBe(true);
    expect(readFileSync(join(box.dir, 'report.txt'), 'utf8')).toBe('old report\n');

    const accepting = await connectHttp(url, () => ({
      action: 'accept',
      content: { approve: true },
    }));
    clients.push(accepting);
    const accepted = await accepting.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'report.txt'), content: 'accepted' },
    });
    expect(accepted.isError).toBeFalsy();
    expect(readFileSync(join(box.dir, 'report.txt'), 'utf8')).toBe('accepted');
  }, 60_000);

  it('console without a terminal falls through to deny', async () => {
    const { url, stderr } = await start('console,deny');
    const client = await connectHttp(url);
    clients.push(client);
    const write = await client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'report.txt'), content: 'x' },
    });
    expect(write.isError).toBe(true);
    expect(stderr()).toContain('confirmation by console skipped');
    expect(readFileSync(join(box.dir, 'report.txt'), 'utf8')).toBe('old report\n');
  }, 60_000);

  it('upstream crash: clear errors, nothing allowed', async () => {
    const current = await start('deny');
    const client = await connectHttp(current.url);
    clients.push(client);
    const pid = Number(/\(pid (\d+)\)/.exec(current.stderr())?.[1]);
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => /closed the connection/.test(current.stderr()), 'the proxy to notice');
    const write = await client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'notes.txt'), content: 'x' },
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain('not running');
    expect(() => readFileSync(join(box.dir, 'notes.txt'))).toThrow();
  }, 60_000);

  it('refuses foreign hosts and origins, requests without a session, and bad bodies', async () => {
    const { url } = await start('deny');
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'x', version: '1' },
      },
    });
    expect((await post(url, init, { host: 'evil.example:80' })).status).toBe(403);
    expect((await post(url, init, { origin: 'https://evil.example' })).status).toBe(403);
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await post(url, call)).status).toBe(400);
    expect((await post(url, call, { 'mcp-session-id': 'nope' })).status).toBe(404);
    const notJson = await post(url, '{');
    expect(notJson.status).toBe(400);
    expect(notJson.body).not.toMatch(/at .*\.ts/);
    const huge = await post(
      url,
      `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'a'.repeat(5 * 1024 * 1024)}"}}`,
    );
    expect(huge.status).toBe(413);
    expect((await post(url, init)).status).toBe(200);
  }, 60_000);

  it('--upstream-url: a streamable-HTTP upstream (another proxy here) is guarded the same', async () => {
    const { url } = await start('deny');
    const front = await connectStdio(
      ['--spec', box.specPath, '--confirm', 'deny'],
      box.dir,
      undefined,
      ['--upstream-url', url],
    );
    try {
      const read = await front.client.callTool({
        name: 'read_text_file',
        arguments: { path: join(box.dir, 'hello.txt') },
      });
      expect(textOf(read)).toBe('hello from the sandbox\n');
      const write = await front.client.callTool({
        name: 'write_file',
        arguments: { path: join(box.dir, 'keep.txt'), content: 'x' },
      });
      expect(write.isError).toBe(true);
      expect(readFileSync(join(box.dir, 'keep.txt'), 'utf8')).toBe('do not touch\n');
    } finally {
      await front.close();
    }
  }, 60_000);
});
