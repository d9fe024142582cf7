import { describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import { filesystemServer, sandbox } from './helpers.js';

describe('intentguard mcp-proxy: usage', () => {
  it('refuses to start without a spec or an instruction (exit 2)', async () => {
    const result = await run(['mcp-proxy', '--', 'node', filesystemServer, '/tmp']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('refusing to start without a spec');
    expect(result.stdout).toBe('');
  });

  it('needs an upstream server', async () => {
    const result = await run(['mcp-proxy', '--spec', 'task.intent'], {
      files: { 'task.intent': 'Done' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no upstream server');
  });

  it('rejects bad --confirm and --listen values', async () => {
    const confirm = await run([
      'mcp-proxy',
      '--spec',
      'x',
      '--confirm',
      'elicit,pray',
      '--',
      'node',
    ]);
    expect(confirm.code).toBe(2);
    expect(confirm.stderr).toContain("'pray' is not a confirmation method");
    const listen = await run(['mcp-proxy', '--spec', 'x', '--listen', 'nowhere', '--', 'node']);
    expect(listen.code).toBe(2);
    expect(listen.stderr).toContain('--listen');
  });

  it('a spec that does not check against the upstream tools: exit 1 with its diagnostics', async () => {
    const box = sandbox();
    try {
      const result = await run(
        ['mcp-proxy', '--spec', 'task.intent', '--', process.execPath, filesystemServer, box.dir],
        { files: { 'task.intent': 'delete_everything(path = "/") -> Gone\nGone -> Done\n' } },
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('does not check');
      expect(result.stderr).toContain('delete_everything');
    } finally {
      box.cleanup();
    }
  }, 30_000);

  it('an upstream that cannot start: exit 2, clear message', async () => {
    const result = await run(
      ['mcp-proxy', '--spec', 'task.intent', '--', '/nonexistent/mcp-server'],
      { files: { 'task.intent': 'Done' } },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "cannot connect to the upstream server '/nonexistent/mcp-server'",
    );
  }, 30_000);

  /** `mcp-proxy --spec SPEC --tools-out tools.json` in front of the filesystem server. */
  async function listTools(spec: string, files: Record<string, string> = {}) {
    const box = sandbox();
    try {
      const result = await run(
        ['mcp-proxy', '--spec', spec, '--tools-out', 'tools.json', '--'].concat([
          process.execPath,
          filesystemServer,
          box.dir,
        ]),
        { files: { 'tools.json': '', ...files } },
      );
      const tools = JSON.parse(result.files.get('tools.json') ?? '{}').tools as { name: string }[];
      return { ...result, toolNames: tools.map((tool) => tool.name) };
    } finally {
      box.cleanup();
    }
  }

  it('--tools-out writes the upstream tools even when the spec does not check yet', async () => {
    const result = await listTools('task.intent', { 'task.intent': 'nope(x = 1) -> Done\n' });
    expect(result.code).toBe(1);
    expect(result.toolNames).toContain('write_file');
  }, 30_000);

  it('--tools-out before the spec is written: the tools are written, exit 1 with the next step', async () => {
    const result = await listTools('/nonexistent/not-written-yet.intent');
    expect(result.code).toBe(1);
    expect(result.toolNames).toContain('write_file');
    expect(result.stderr).toContain('not-written-yet.intent does not exist yet');
    expect(result.stderr).toContain('--tools tools.json');
  }, 30_000);

  it('without --tools-out a missing spec file is still a usage error (exit 2)', async () => {
    const result = await run([
      'mcp-proxy',
      '--spec',
      '/nonexistent/task.intent',
      '--',
      process.execPath,
      filesystemServer,
      '/tmp',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("cannot read spec '/nonexistent/task.intent': no such file");
  });
});
