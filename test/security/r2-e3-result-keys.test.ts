import { describe, expect, it } from 'vitest';
import { checkSpec, createGuard, loadToolSchema } from '../../src/index.js';
import { folderTools, list, listed, protect, protectRaw, remove } from './r2-folders.js';
import { replay } from './r2-review-tools.js';

/**
 * E3 (security-round-2.md): results were keyed by the normalized text of the call's
 * arguments, so listing `/Reports` (an empty folder on a case-sensitive file system)
 * replaced the listing of `/reports` that showed an NDA, and RemoveFile was allowed; so
 * with `/re\u200bports`, `／reports` and `"/reports "`. And a later result without the
 * field (a tool that returned an error text) replaced a json listing, and inside `not`
 * its unobserved field did not count. Now keys are the arguments exactly as given, and
 * inside `not` a field a result does not report counts as matching.
 */

const flagged = [{ name: 'nda-acme-signed.pdf' }, { name: 'draft.tmp' }];

describe('E3: a later result for a look-alike call does not hide an earlier one (CLI replay)', () => {
  for (const [what, spelling] of [
    ['another case', '/Reports'],
    ['a zero-width space', '/re\u200bports'],
    ['a fullwidth solidus', '\uff0freports'],
    ['a trailing space', '/reports '],
  ] as const) {
    it(`${what}: ${JSON.stringify(spelling)} keeps its own result; the NDA listing still refuses`, async () => {
      const { code, answers, stderr } = await replay(protect, [
        list('/reports'),
        listed('/reports', flagged),
        { ...remove('/reports/draft.tmp'), expect: { decision: 'revise' } },
        list(spelling),
        { ...listed(spelling, []), expect: { ok: true } },
        { ...remove('/reports/draft.tmp'), expect: { decision: 'revise' } },
      ]);
      expect(stderr).toContain('5 passed, 0 failed');
      expect(code).toBe(0);
      expect(answers[5]?.['decision']).toBe('revise');
    });
  }

  it('the same call listed again, clean, replaces its own result (the key still identifies calls)', async () => {
    const { code } = await replay(protect, [
      list('/reports'),
      listed('/reports', flagged),
      list('/reports'),
      listed('/reports', [{ name: 'draft.tmp' }]),
      { ...remove('/reports/draft.tmp'), expect: 'allow' },
    ]);
    expect(code).toBe(0);
  });
});

describe('E3: a result without fields does not hide the one with them', () => {
  for (const [what, spec, tool] of [
    ['json listing', protectRaw, 'ListFolderRaw'],
    ['typed listing', protect, 'ListFolder'],
  ] as const) {
    it(`${what}: an error text observed as {"path"} alone counts as matching inside not`, async () => {
      const { code, answers } = await replay(spec, [
        list('/reports', tool),
        listed('/reports', flagged, tool),
        { ...remove('/reports/draft.tmp'), expect: { decision: 'revise' } },
        list('/reports', tool),
        { observe: { updates: { [`${tool}Result`]: { path: '/reports' } } }, expect: { ok: true } },
        { ...remove('/reports/draft.tmp'), expect: { decision: 'revise' } },
      ]);
      expect(code).toBe(0);
      const reasons = answers[5]?.['reasons'] as { message: string }[];
      expect(reasons[0]?.message).toContain('does not report what the condition reads');
    });
  }

  it('through a guard: a tool that answers an error text leaves the listing standing', () => {
    const schema = loadToolSchema(folderTools);
    if (!schema.ok) throw new Error('the folder tools do not load');
    const spec = checkSpec(protectRaw, schema.value);
    if (!spec.ok) throw new Error('the spec does not check');
    const guard = createGuard(spec.value, schema.value, { now: '2025-06-02T09:00' });
    guard.check({ id: 'l1', name: 'ListFolderRaw', args: { path: '/reports' } });
    guard.result('l1', { output: { entries: flagged } });
    guard.check({ id: 'l2', name: 'ListFolderRaw', args: { path: '/reports' } });
    // LangChain-style: the error comes back as the tool's output.
    guard.result('l2', { output: 'Error: the folder is locked' });
    const decision = guard.check({
      id: 'r1',
      name: 'RemoveFile',
      args: { path: '/reports/draft.tmp' },
    });
    expect(decision.action).not.toBe('run');
  });

  it('a result that reports the field, clean, is allowed (the tests can tell the difference)', async () => {
    const { code } = await replay(protectRaw, [
      list('/reports', 'ListFolderRaw'),
      listed('/reports', [{ name: 'draft.tmp' }], 'ListFolderRaw'),
      { ...remove('/reports/draft.tmp'), expect: 'allow' },
    ]);
    expect(code).toBe(0);
  });
});
