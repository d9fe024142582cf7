import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import { type FakeLlmServer, startFakeLlmServer } from '../formalize/support/fake-llm-server.js';
import { agree, fenced } from '../formalize/support/fixtures.js';
import {
  connectStdio,
  filesystemServer,
  type Sandbox,
  type StdioProxy,
  sandbox,
  textOf,
} from './helpers.js';

/**
 * `--instruction`: formalized once at start-up against the upstream's tools (a scripted
 * OpenAI-compatible model on loopback), the spec printed on stderr, then enforced.
 */
describe('mcp-proxy --instruction', () => {
  let box: Sandbox;
  let server: FakeLlmServer;
  let proxy: StdioProxy | undefined;

  beforeEach(async () => {
    box = sandbox();
    server = await startFakeLlmServer();
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await server.close();
    box.cleanup();
  });

  const goal =
    '{"goal": "write_notes", "parameters": [{"name": "file", "value": "notes.txt"}], "outcomes": ["notes written"]}';

  it('formalizes once with the toolkit from tools/list and guards with the spec', async () => {
    server.script('goal', goal);
    server.script(
      'encode',
      fenced(`write_file(path = "${box.dir}/notes.txt") -> Noted\nNoted -> Done`),
    );
    server.script('check', agree);
    proxy = await connectStdio(
      [
        '--instruction',
        `Write my notes to ${box.dir}/notes.txt`,
        '--model',
        'openai:gpt-4o',
        '--base-url',
        server.url,
        '--confirm',
        'deny',
      ],
      box.dir,
    );
    // The formalizer saw the upstream's tools.
    expect(JSON.stringify(server.of('goal')[0]?.messages)).toContain('write_file');
    expect(proxy.stderr()).toContain('guarding with this spec');
    expect(proxy.stderr()).toContain('notes.txt');
    const denied = await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'keep.txt'), content: 'x' },
    });
    expect(denied.isError).toBe(true);
    expect(readFileSync(join(box.dir, 'keep.txt'), 'utf8')).toBe('do not touch\n');
    const allowed = await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'notes.txt'), content: 'notes' },
    });
    expect(textOf(allowed)).not.toMatch(/^intentguard/);
    expect(readFileSync(join(box.dir, 'notes.txt'), 'utf8')).toBe('notes');
    expect(server.of('encode')).toHaveLength(1);
  }, 60_000);

  it('no valid spec from the model: refuses to start', async () => {
    server.script('goal', goal, goal, goal, goal);
    server.script('encode', 'I cannot.', 'No.', 'No.', 'No.', 'No.');
    const result = await run(
      [
        'mcp-proxy',
        '--instruction',
        'Write my notes',
        '--model',
        'openai:gpt-4o',
        '--base-url',
        server.url,
        '--',
        process.execPath,
        filesystemServer,
        box.dir,
      ],
      { env: { OPENAI_API_KEY: 'sk-test-key' } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the instruction gave no valid spec');
  }, 60_000);
});
