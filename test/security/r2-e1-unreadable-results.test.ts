import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkSpec, createGuard, loadToolSchema } from '../../src/index.js';
import { connectStdio, root, textOf } from '../mcp/helpers.js';
import { folderTools, list, listed, protect, protectRaw, remove } from './r2-folders.js';
import { replay } from './r2-review-tools.js';

/**
 * E1 (security-round-2.md): an observation with one value over a limit (a list of more
 * than 10,000 elements, nesting deeper than 32, a text over the value limit) was dropped
 * whole, so `not ListFolderResult(…)` held and the forbidden RemoveFile was allowed — in
 * every host, `mcp-proxy` included. Now such a result is kept as a result that came and
 * could not be read, keyed by its call: `not` over it is false, a rule that needs its
 * content does not fire, and the feedback says why. The observation still answers
 * ok: false.
 */

const nda = { name: 'nda-acme-signed.pdf', size: 1200 };
const scans = (count: number) =>
  Array.from({ length: count }, (_, index) => ({ name: `scan-${index}.png`, size: 10 }));

function deepArray(depth: number): unknown {
  let value: unknown = [];
  for (let level = 1; level < depth; level++) value = [value];
  return value;
}

interface Refusal {
  readonly decision: string;
  readonly reasons: readonly { readonly message: string; readonly actual?: string }[];
}

const overLimit: readonly (readonly [string, string, unknown])[] = [
  ['a list of 10,501 elements', 'ListFolder', [nda, ...scans(10_500)]],
  [
    'an element nested 36 arrays deep',
    'ListFolder',
    [nda, { name: 'draft.tmp', tags: deepArray(36) }],
  ],
  ['a name of 1,000,001 characters', 'ListFolder', [nda, { name: 'a'.repeat(1_000_001) }]],
  ['an untyped (json) list of 10,501 elements', 'ListFolderRaw', [nda, ...scans(10_500)]],
];

describe('E1: a result over a limit is kept as unreadable, and `not` over it does not hold (CLI replay)', () => {
  for (const [what, tool, entries] of overLimit) {
    it(`${what}: the observation is ok: false and RemoveFile is refused, saying why`, async () => {
      const spec = tool === 'ListFolder' ? protect : protectRaw;
      const { code, answers, stderr } = await replay(spec, [
        list('/reports', tool),
        { ...listed('/reports', entries, tool), expect: { ok: false } },
        { ...remove('/reports/draft.tmp'), expect: { decision: 'revise' } },
      ]);
      expect(stderr).toContain('3 passed, 0 failed');
      expect(code).toBe(0);
      const refusal = answers[2] as unknown as Refusal;
      expect(refusal.decision).toBe('revise');
      expect(refusal.reasons[0]?.actual).toBe('one could not be read');
      expect(refusal.reasons[0]?.message).toContain('came that could not be read');
    });
  }

  it('a clean listing of the same folder is allowed (the tests can tell the difference)', async () => {
    const { code, answers } = await replay(protect, [
      list('/reports'),
      { ...listed('/reports', scans(3)), expect: { ok: true } },
      { ...remove('/reports/scan-0.png'), expect: 'allow' },
    ]);
    expect(code).toBe(0);
    expect((answers[2] as unknown as Refusal).decision).toBe('allow');
  });

  it('the unreadable result is the call’s: a later readable result of the same call replaces it', async () => {
    const { code } = await replay(protect, [
      list('/reports'),
      { ...listed('/reports', [nda, ...scans(10_500)]), expect: { ok: false } },
      { ...remove('/reports/scan-1.png'), expect: { decision: 'revise' } },
      list('/reports'),
      { ...listed('/reports', scans(3)), expect: { ok: true } },
      { ...remove('/reports/scan-1.png'), expect: 'allow' },
    ]);
    expect(code).toBe(0);
  });

  it('keyed by its call: an unreadable listing of another folder is still another call’s result', async () => {
    // `not` on a named folder: the unreadable listing of /archive does not count for
    // /reports (its key reads), but does for a `not` that names no folder.
    const named =
      'not ListFolderResult(path = "/reports", entries[name contains "nda"] != []) & RemoveFile(path = "/reports/scan-1.png") -> Removed\nRemoved -> Done\n';
    const { code } = await replay(named, [
      list('/reports'),
      { ...listed('/reports', scans(3)), expect: { ok: true } },
      list('/archive'),
      { ...listed('/archive', [nda, ...scans(10_500)]), expect: { ok: false } },
      { ...remove('/reports/scan-1.png'), expect: 'allow' },
    ]);
    expect(code).toBe(0);
    const any = await replay(protect, [
      list('/reports'),
      { ...listed('/reports', scans(3)), expect: { ok: true } },
      list('/archive'),
      { ...listed('/archive', [nda, ...scans(10_500)]), expect: { ok: false } },
      { ...remove('/reports/scan-1.png'), expect: { decision: 'revise' } },
    ]);
    expect(any.code).toBe(0);
  });

  it('a result whose call’s arguments cannot be read either is kept under a key of its own', async () => {
    // Two results with unreadable paths: neither replaces the other, and a readable one
    // does not hide them.
    const longPath = (tag: string) => `/${tag}${'x'.repeat(1_000_001)}`;
    const { code } = await replay(protect, [
      { ...listed(longPath('a'), [nda]), expect: { ok: false } },
      { ...listed(longPath('b'), []), expect: { ok: false } },
      list('/reports'),
      { ...listed('/reports', scans(2)), expect: { ok: true } },
      { ...remove('/reports/scan-1.png'), expect: { decision: 'revise' } },
    ]);
    expect(code).toBe(0);
  });

  it('a result with more fields than are read (1,001), or that is no object, still came', async () => {
    const padded: Record<string, unknown> = { path: '/reports', entries: [nda] };
    for (let index = 0; index < 1_000; index++) padded[`extra_${index}`] = index;
    const many = await replay(protect, [
      list('/reports'),
      { observe: { updates: { ListFolderResult: padded } }, expect: { ok: false } },
      { ...remove('/reports/scan-1.png'), expect: { decision: 'revise' } },
    ]);
    expect(many.code).toBe(0);
    const shapeless = await replay(protect, [
      list('/reports'),
      { observe: { updates: { ListFolderResult: 'nda-acme-signed.pdf' } }, expect: { ok: false } },
      { ...remove('/reports/scan-1.png'), expect: { decision: 'revise' } },
    ]);
    expect(shapeless.code).toBe(0);
  });

  it('a rule that needs the content does not fire on an unreadable result', async () => {
    const needs =
      'ListFolderResult(path = "/reports", count(entries) >= 1) & RemoveFile() -> Removed\nRemoved -> Done\n';
    const { code } = await replay(needs, [
      list('/reports'),
      { ...listed('/reports', scans(10_501)), expect: { ok: false } },
      { ...remove('/reports/scan-1.png'), expect: { decision: 'revise' } },
    ]);
    expect(code).toBe(0);
  });

  it('an observation refused for another update still keeps the results it carried, unread', async () => {
    // The NDA listing is readable, but the observation also carries a value that is not:
    // nothing of it is applied, except that the listing came (and so it counts in `not`).
    const { code } = await replay(protect, [
      list('/reports'),
      {
        observe: {
          updates: [
            { predicate: 'ListFolderResult', values: { path: '/reports', entries: [nda] } },
            { predicate: 'ListFolderResult', values: { path: '/other', entries: 'not a list' } },
          ],
        },
        expect: { ok: false },
      },
      { ...remove('/reports/scan-1.png'), expect: { decision: 'revise' } },
    ]);
    expect(code).toBe(0);
  });
});

describe('E1 through a guard: the tool output over a limit', () => {
  it('keeps the call’s result as unreadable and refuses the delete', () => {
    const schema = loadToolSchema(folderTools);
    if (!schema.ok) throw new Error('the folder tools do not load');
    const spec = checkSpec(protect, schema.value);
    if (!spec.ok) throw new Error('protect.intent does not check');
    const guard = createGuard(spec.value, schema.value, { now: '2025-06-02T09:00' });
    expect(guard.check({ id: 'l1', name: 'ListFolder', args: { path: '/reports' } }).action).toBe(
      'run',
    );
    const answer = guard.result('l1', { output: { entries: [nda, ...scans(10_500)] } });
    expect(answer.ok).toBe(false);
    const decision = guard.check({
      id: 'r1',
      name: 'RemoveFile',
      args: { path: '/reports/nda-acme-signed.pdf' },
    });
    expect(decision.action).not.toBe('run');
    expect(decision.verdict.feedback).toContain('could not be read');
  });
});

describe('E1 end to end: an upstream behind mcp-proxy returns 10,002 entries', () => {
  const folders = join(root, 'test/mcp/upstreams/folders.mjs');
  const base = mkdtempSync(join(tmpdir(), 'intentguard-r2-e1-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const specPath = join(base, 'protect.intent');
  writeFileSync(
    specPath,
    'not list_filesResult(items[name contains "nda"] != []) & delete_file() -> Deleted\nDeleted -> Done\n',
  );

  /** Lists /reports through the proxy, then asks to delete the NDA; what reached the upstream. */
  async function listThenDelete(upstream: readonly string[], tag: string) {
    const log = join(base, `${tag}.log`);
    writeFileSync(log, '');
    const proxy = await connectStdio(['--spec', specPath, '--confirm', 'deny'], base, undefined, [
      '--',
      process.execPath,
      folders,
      ...upstream,
      '--log',
      log,
    ]);
    try {
      const listedResult = await proxy.client.callTool({
        name: 'list_files',
        arguments: { path: '/reports' },
      });
      const deleted = await proxy.client.callTool({
        name: 'delete_file',
        arguments: { path: '/reports/nda-acme-signed.pdf' },
      });
      return { listedResult, deleted, upstreamLog: readFileSync(log, 'utf8') };
    } finally {
      await proxy.close();
    }
  }

  it('the delete of the NDA is refused and never reaches the upstream', async () => {
    const { listedResult, deleted, upstreamLog } = await listThenDelete(
      ['--count', '10002'],
      'big',
    );
    // The listing itself ran and came back to the client.
    expect(listedResult.isError ?? false).toBe(false);
    expect(deleted.isError).toBe(true);
    expect(textOf(deleted)).toContain('could not be read');
    expect(upstreamLog).toBe('');
  }, 60_000);

  it('control: after a small listing without an NDA the delete is forwarded', async () => {
    const { deleted, upstreamLog } = await listThenDelete(['--count', '2', '--no-nda'], 'small');
    expect(deleted.isError ?? false).toBe(false);
    expect(upstreamLog).toBe('/reports/nda-acme-signed.pdf\n');
  }, 60_000);
});
