import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyAuditFile } from '../../src/store/audit-file.js';
import {
  connectDirect,
  connectStdio,
  type Sandbox,
  type StdioProxy,
  sandbox,
  textOf,
  waitFor,
} from './helpers.js';

/**
 * End to end over stdio, with real processes: the MCP SDK client → `intentguard
 * mcp-proxy` → the reference filesystem server from npm, on a temp directory.
 */
describe('mcp-proxy over stdio', () => {
  let box: Sandbox;
  let proxy: StdioProxy | undefined;

  beforeEach(() => {
    box = sandbox();
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    box.cleanup();
  });

  it('passes tools/list through and allowed calls unchanged', async () => {
    proxy = await connectStdio(['--spec', box.specPath, '--confirm', 'deny'], box.dir);
    const { tools } = await proxy.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toContain('read_text_file');
    expect(names).toContain('write_file');
    const write = tools.find((tool) => tool.name === 'write_file');
    expect(write?.annotations?.destructiveHint).toBe(true);

    const read = await proxy.client.callTool({
      name: 'read_text_file',
      arguments: { path: join(box.dir, 'hello.txt') },
    });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toBe('hello from the sandbox\n');
    const direct = await connectDirect(box.dir);
    try {
      const straight = await direct.callTool({
        name: 'read_text_file',
        arguments: { path: join(box.dir, 'hello.txt') },
      });
      expect(read).toEqual(straight);
      expect(tools).toEqual((await direct.listTools()).tools);
    } finally {
      await direct.close();
    }

    const write1 = await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'notes.txt'), content: 'the notes' },
    });
    expect(write1.isError).toBeFalsy();
    expect(readFileSync(join(box.dir, 'notes.txt'), 'utf8')).toBe('the notes');
  }, 60_000);

  it('refuses a destructive call outside the plan with feedback, and the file is untouched', async () => {
    proxy = await connectStdio(['--spec', box.specPath, '--confirm', 'deny'], box.dir);
    const write = await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'keep.txt'), content: 'overwritten' },
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toMatch(/^intentguard:/);
    expect(readFileSync(join(box.dir, 'keep.txt'), 'utf8')).toBe('do not touch\n');

    const move = await proxy.client.callTool({
      name: 'move_file',
      arguments: { source: join(box.dir, 'keep.txt'), destination: join(box.dir, 'gone.txt') },
    });
    expect(move.isError).toBe(true);
    expect(readFileSync(join(box.dir, 'keep.txt'), 'utf8')).toBe('do not touch\n');

    // A tool that claims to be harmless is still critical by its name.
    const mkdir = await proxy.client.callTool({
      name: 'create_directory',
      arguments: { path: join(box.dir, 'new') },
    });
    expect(mkdir.isError).toBe(true);
  }, 60_000);

  it('asks by elicitation: accepted runs the call', async () => {
    const asked: string[] = [];
    proxy = await connectStdio(
      ['--spec', box.specPath, '--confirm', 'elicit,deny'],
      box.dir,
      (message) => {
        asked.push(message);
        return { action: 'accept', content: { approve: true } };
      },
    );
    const write = await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'report.txt'), content: 'new report' },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('report');
    expect(write.isError).toBeFalsy();
    expect(readFileSync(join(box.dir, 'report.txt'), 'utf8')).toBe('new report');
  }, 60_000);

  it('asks by elicitation: declined refuses the call', async () => {
    proxy = await connectStdio(
      ['--spec', box.specPath, '--confirm', 'elicit,deny'],
      box.dir,
      () => ({
        action: 'decline',
      }),
    );
    const write = await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'report.txt'), content: 'new report' },
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toMatch(/^intentguard:/);
    expect(readFileSync(join(box.dir, 'report.txt'), 'utf8')).toBe('old report\n');
  }, 60_000);

  it('without the elicitation capability, falls through to deny', async () => {
    proxy = await connectStdio(['--spec', box.specPath, '--confirm', 'elicit,deny'], box.dir);
    const write = await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'report.txt'), content: 'new report' },
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain('and the user could not be asked here, so it did not run');
    expect(readFileSync(join(box.dir, 'report.txt'), 'utf8')).toBe('old report\n');
  }, 60_000);

  it('upstream crash: clear errors, nothing allowed', async () => {
    proxy = await connectStdio(['--spec', box.specPath, '--confirm', 'deny'], box.dir);
    const current = proxy;
    await waitFor(() => /\(pid (\d+)\)/.test(current.stderr()), 'the upstream pid');
    const pid = Number(/\(pid (\d+)\)/.exec(current.stderr())?.[1]);
    process.kill(pid, 'SIGKILL');
    await waitFor(() => /closed the connection/.test(current.stderr()), 'the proxy to notice');

    const write = await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'notes.txt'), content: 'the notes' },
    });
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain('not running');
    const read = await proxy.client.callTool({
      name: 'read_text_file',
      arguments: { path: join(box.dir, 'hello.txt') },
    });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toContain('not running');
    await expect(proxy.client.listTools()).rejects.toThrow(/not running/);
  }, 60_000);

  it('--audit appends the spec and every decision to SQLite', async () => {
    const auditPath = join(box.dir, '..', 'audit.db');
    proxy = await connectStdio(
      ['--spec', box.specPath, '--confirm', 'elicit,deny', '--audit', auditPath],
      box.dir,
      () => ({ action: 'accept', content: { approve: false } }),
    );
    await proxy.client.callTool({
      name: 'read_text_file',
      arguments: { path: join(box.dir, 'hello.txt') },
    });
    await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'keep.txt'), content: 'x' },
    });
    await proxy.client.callTool({
      name: 'write_file',
      arguments: { path: join(box.dir, 'report.txt'), content: 'x' },
    });
    await proxy.close();
    proxy = undefined;
    const database = new Database(auditPath, { readonly: true });
    try {
      const runs = database.prepare('SELECT spec, upstream FROM runs').all() as {
        spec: string;
        upstream: string;
      }[];
      expect(runs).toHaveLength(1);
      expect(runs[0]?.spec).toContain('write_file');
      const rows = database
        .prepare(
          'SELECT kind, tool, action, decision, approved, ok, method, args_sha256 FROM events ORDER BY seq',
        )
        .all() as Record<string, unknown>[];
      expect(rows.map((row) => [row['kind'], row['action'] ?? null])).toEqual([
        ['decision', 'run'],
        ['result', null],
        ['decision', 'refuse'],
        ['decision', 'ask'],
        ['approval', 'refuse'],
      ]);
      expect(rows[0]?.['tool']).toBe('read_text_file');
      expect(rows[0]?.['args_sha256']).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[4]?.['approved']).toBe(0);
      expect(rows[4]?.['method']).toBe('elicit');
      // The same records, hash-chained: the run's spec first, then every event.
      const chained = database.prepare('SELECT kind FROM audit ORDER BY seq').all() as {
        kind: string;
      }[];
      expect(chained.map((row) => row.kind)).toEqual([
        'run',
        'decision',
        'result',
        'decision',
        'decision',
        'approval',
      ]);
    } finally {
      database.close();
    }
    expect(verifyAuditFile(auditPath)).toMatchObject({ ok: true, entries: 6 });
    const writable = new Database(auditPath);
    writable.prepare("UPDATE audit SET body = replace(body, 'refuse', 'run') WHERE seq = 4").run();
    writable.close();
    expect(verifyAuditFile(auditPath)).toMatchObject({ ok: false, seq: 4 });
  }, 60_000);
});
