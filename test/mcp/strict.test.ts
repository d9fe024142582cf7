import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMcpProxy } from '../../src/integrations/mcp/index.js';
import {
  connectStdio,
  everythingUpstream,
  type Sandbox,
  type StdioProxy,
  sandbox,
  textOf,
} from './helpers.js';

/**
 * Strict mode (`--strict`), with the real servers: the MCP SDK client → `intentguard
 * mcp-proxy` → server-filesystem or server-everything. A path rule is text: a symlink
 * inside a planned folder, or an unplanned read-only tool, reads what the task never
 * asked for. Strict mode makes every unplanned call — reads included — refused (or
 * asked for), so a spec that names the files it needs is all that runs.
 */
describe('mcp-proxy --strict with server-filesystem', () => {
  let box: Sandbox;
  let proxy: StdioProxy | undefined;
  let drafts: string;
  let specPath: string;

  beforeAll(() => {
    box = sandbox();
    drafts = join(box.dir, 'drafts');
    mkdirSync(drafts);
    mkdirSync(join(box.dir, 'other'));
    writeFileSync(join(drafts, 'notes.txt'), 'the notes\n');
    writeFileSync(join(box.dir, 'other', 'secret.txt'), 'the secret\n');
    symlinkSync(join('..', 'other', 'secret.txt'), join(drafts, 'link.txt'));
    specPath = join(box.dir, '..', 'drafts.intent');
    writeFileSync(
      specPath,
      [
        '# "Summarize my notes into drafts/summary.txt."',
        `read_text_file(path = "${drafts}/notes.txt") -> Read`,
        `Read & write_file(path = "${drafts}/summary.txt") -> Written`,
        'Written -> Done',
        '',
      ].join('\n'),
    );
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(() => box.cleanup());

  const read = (name: string, path: string) =>
    (proxy as StdioProxy).client.callTool({ name, arguments: { path } });

  it('without --strict, an unplanned read tool follows the symlink and `..` out of drafts/ (the default strict mode closes)', async () => {
    proxy = await connectStdio(['--spec', specPath, '--confirm', 'deny'], box.dir);
    // read_text_file is planned, so a call the rule does not match is refused either way;
    // read_file does the same and no rule names it: read-only, it runs unplanned.
    const leaked = await read('read_file', join(drafts, 'link.txt'));
    expect(leaked.isError).toBeFalsy();
    expect(textOf(leaked)).toBe('the secret\n');
    const climbed = await read('read_file', `${drafts}/../other/secret.txt`);
    expect(textOf(climbed)).toBe('the secret\n');
  }, 60_000);

  it('with --strict, the symlink, `..` and unplanned read tools are refused; the planned read runs', async () => {
    proxy = await connectStdio(['--spec', specPath, '--strict', '--confirm', 'deny'], box.dir);
    for (const [name, path] of [
      ['read_text_file', join(drafts, 'link.txt')],
      ['read_text_file', `${drafts}/../other/secret.txt`],
      ['read_file', join(drafts, 'link.txt')],
      ['read_media_file', join(box.dir, 'other', 'secret.txt')],
    ] as const) {
      const refused = await read(name, path);
      expect(refused.isError, `${name} ${path}`).toBe(true);
      expect(textOf(refused)).toMatch(/^intentguard: revise/);
      expect(textOf(refused)).not.toContain('the secret');
    }
    const listing = await proxy.client.callTool({
      name: 'list_directory',
      arguments: { path: box.dir },
    });
    expect(listing.isError).toBe(true);
    expect(textOf(listing)).toContain('list_directory is not part of the plan');

    const planned = await read('read_text_file', join(drafts, 'notes.txt'));
    expect(planned.isError).toBeFalsy();
    expect(textOf(planned)).toBe('the notes\n');
  }, 60_000);

  it('startMcpProxy refuses a strictness it does not know before starting anything', async () => {
    await expect(
      startMcpProxy({
        upstream: { command: process.execPath, args: ['-e', 'process.exit(3)'] },
        spec: 'echo() -> Done\n',
        strict: true as unknown as 'refuse',
      }),
    ).rejects.toThrow("startMcpProxy: 'strict' must be 'refuse', 'confirm' or undefined");
  });

  it('refuses a --strict value it does not know (exit 2), rather than running unstrict', async () => {
    await expect(
      connectStdio(['--spec', specPath, '--strict', 'sometimes'], box.dir),
    ).rejects.toThrow();
  }, 60_000);
});

describe('mcp-proxy --strict with server-everything', () => {
  const box = sandbox();
  let proxy: StdioProxy | undefined;
  const specPath = join(box.dir, '..', 'echo.intent');
  writeFileSync(specPath, 'echo(message = "hi") -> Echoed\nEchoed -> Done\n');
  const upstream = everythingUpstream;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  afterAll(() => box.cleanup());

  it('get-env runs unplanned by default, and is refused under --strict', async () => {
    proxy = await connectStdio(
      ['--spec', specPath, '--confirm', 'deny'],
      box.dir,
      undefined,
      upstream,
    );
    const open = await proxy.client.callTool({ name: 'get-env', arguments: {} });
    expect(open.isError).toBeFalsy();
    expect(textOf(open)).toContain('PATH');
    await proxy.close();

    proxy = await connectStdio(
      ['--spec', specPath, '--strict', 'refuse', '--confirm', 'deny'],
      box.dir,
      undefined,
      upstream,
    );
    const refused = await proxy.client.callTool({ name: 'get-env', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('get-env is not part of the plan for this task');
    expect(textOf(refused)).not.toContain('PATH');
    const planned = await proxy.client.callTool({ name: 'echo', arguments: { message: 'hi' } });
    expect(planned.isError).toBeFalsy();
  }, 60_000);

  it('--strict confirm asks the person for an unplanned read; declined, it does not run', async () => {
    const asked: string[] = [];
    proxy = await connectStdio(
      ['--spec', specPath, '--strict', 'confirm', '--confirm', 'elicit,deny'],
      box.dir,
      (message) => {
        asked.push(message);
        return asked.length === 1
          ? { action: 'decline' }
          : { action: 'accept', content: { approve: true } };
      },
      upstream,
    );
    const declined = await proxy.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('get-sum');
    expect(declined.isError).toBe(true);
    const accepted = await proxy.client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    expect(asked).toHaveLength(2);
    expect(accepted.isError).toBeFalsy();
    expect(textOf(accepted)).toBe('The sum of 1 and 2 is 3.');
  }, 60_000);
});
