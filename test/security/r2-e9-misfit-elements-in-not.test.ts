import { describe, it } from 'vitest';
import { protect } from './r2-folders.js';
import { replayChecked } from './r2-review-tools.js';

/**
 * E9: inside `not P(…)`, a filter over a typed record list skipped an element that does
 * not fit its record (a bare string, a misspelt field, a boolean, a number or null for a
 * text), so "never remove anything while an NDA is in the folder" let the removal
 * through for a listing shaped against its schema. Inside `not`, a filter that cannot
 * tell whether it keeps an element — one that does not fit its record, or one only the
 * deny-list reading keeps (a look-alike) — makes the constraint match: `not` fails closed
 * (docs/language.md, Records).
 */
const attempt = (entries: unknown, expected: unknown) =>
  replayChecked(protect, [
    { propose: { action: { name: 'ListFolder', args: { path: '/reports' } } }, expect: 'allow' },
    { observe: { updates: { ListFolderResult: { entries } } } },
    {
      propose: { action: { name: 'RemoveFile', args: { path: '/reports/draft.tmp' } } },
      expect: expected,
    },
  ]);

describe('E9: inside not, an element that does not fit its record counts as possibly matching', () => {
  it.each([
    [['nda-acme-signed.pdf', 'draft.tmp']],
    [[{ filename: 'nda-acme-signed.pdf' }, { name: 'draft.tmp' }]],
    [[{ name: true }]],
    [[{ name: 42 }]],
    [[{ name: null }]],
    [[{ name: ['nda-acme-signed.pdf'] }]],
    [[{ name: 'draft.tmp' }, { name: '\u039dD\u0391-acme.pdf' }]],
  ])('the review: the removal is refused for entries %j', async (entries) => {
    await attempt(entries, { decision: 'revise' });
  });

  it('with a binding after the filter: a misfit element might be the file removed', async () => {
    const spec = `@repeat
RemoveFile(path = $p) & not ListFolderResult(entries[size > 100].name = $p) -> Removed
Removed -> Done
`;
    const remove = (path: string) => ({ action: { name: 'RemoveFile', args: { path } } });
    const listed = (entries: unknown) => ({
      observe: { updates: { ListFolderResult: { entries } } },
    });
    await replayChecked(spec, [
      { propose: { action: { name: 'ListFolder', args: { path: '/' } } }, expect: 'allow' },
      listed([
        { name: 'big.bin', size: 500 },
        { name: 'small.txt', size: 3 },
      ]),
      { propose: remove('big.bin'), expect: { decision: 'revise' } },
      { propose: remove('small.txt'), expect: 'allow' },
      listed([
        { name: 'big.bin', size: 'huge' },
        { name: 'small.txt', size: 3 },
      ]),
      { propose: remove('small.txt'), expect: { decision: 'revise' } },
    ]);
  });

  it('a listing that fits, without an NDA, allows the removal', async () => {
    await attempt([{ name: 'draft.tmp', size: 3 }, { name: 'summary.pdf' }], 'allow');
  });

  it('a listing that fits, with an NDA, refuses it', async () => {
    await attempt([{ name: 'draft.tmp' }, { name: 'NDA-acme.pdf' }], { decision: 'revise' });
  });
});
