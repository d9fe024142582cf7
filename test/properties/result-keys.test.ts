import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSpec, createSession, loadToolSchema } from '../../src/index.js';
import { folderTools, protect } from '../security/r2-folders.js';

/**
 * E1, E3 as a class: whatever spelling a later call's argument takes, and whatever that
 * later result holds (a clean listing, no fields at all, a value over a limit), it never
 * hides an earlier result that the `not` forbids. Only the very same call, answered with
 * a clean listing, replaces it.
 */
const runs = Number(process.env.SECURITY_PROPERTY_RUNS ?? 300);

const schema = (() => {
  const loaded = loadToolSchema(folderTools);
  if (!loaded.ok) throw new Error('the folder tools do not load');
  return loaded.value;
})();
const spec = (() => {
  const checked = checkSpec(protect, schema);
  if (!checked.ok) throw new Error('protect.intent does not check');
  return checked.value;
})();

const original = '/reports';

/** Spellings a tool may read as another path, or a normalizer as the same one. */
const spelling = fc.oneof(
  fc.constant(original),
  fc
    .array(fc.boolean(), { minLength: original.length, maxLength: original.length })
    .map((upper) =>
      [...original].map((char, index) => (upper[index] ? char.toUpperCase() : char)).join(''),
    ),
  fc
    .tuple(
      fc.integer({ min: 0, max: original.length }),
      fc.constantFrom('\u200b', '\u200d', '\u00ad', '\u2060', '\ufeff', ' ', '\u00a0', '\u0301'),
    )
    .map(([at, insert]) => `${original.slice(0, at)}${insert}${original.slice(at)}`),
  fc.constantFrom(
    '\uff0freports',
    '/ｒeports',
    '/reports/',
    '/reports ',
    ' /reports',
    '/reports\t',
    '/rEports',
    '/reports.',
  ),
);

type Later = 'clean' | 'fieldless' | 'over-limit';
const later = fc.constantFrom<Later>('clean', 'fieldless', 'over-limit');

function observation(path: string, kind: Later) {
  const values =
    kind === 'clean'
      ? { path, entries: [{ name: 'draft.tmp' }] }
      : kind === 'fieldless'
        ? { path }
        : {
            path,
            entries: Array.from({ length: 10_001 }, (_, index) => ({ name: `f${index}` })),
          };
  return { updates: { ListFolderResult: values } };
}

describe('property: a later result never hides an earlier flagged one', () => {
  it('for random argument spellings and later results, RemoveFile is never allowed', () => {
    fc.assert(
      fc.property(
        fc
          .array(fc.tuple(spelling, later), { minLength: 1, maxLength: 3 })
          // The same call answered clean is its own result again: the one case that may replace.
          .filter((calls) => calls.every(([path, kind]) => path !== original || kind !== 'clean')),
        (calls) => {
          const session = createSession(spec, { now: '2025-06-02T09:00' });
          session.observe({
            updates: {
              ListFolderResult: {
                path: original,
                entries: [{ name: 'nda-acme-signed.pdf' }, { name: 'draft.tmp' }],
              },
            },
          });
          for (const [path, kind] of calls) session.observe(observation(path, kind));
          const verdict = session.propose({
            action: { name: 'RemoveFile', args: { path: '/reports/draft.tmp' } },
          });
          expect(verdict.decision).not.toBe('allow');
        },
      ),
      { numRuns: runs },
    );
  });

  it('control: the same call answered clean does replace it', () => {
    const session = createSession(spec, { now: '2025-06-02T09:00' });
    session.observe({
      updates: {
        ListFolderResult: { path: original, entries: [{ name: 'nda-acme-signed.pdf' }] },
      },
    });
    session.observe(observation(original, 'clean'));
    const verdict = session.propose({
      action: { name: 'RemoveFile', args: { path: '/reports/draft.tmp' } },
    });
    expect(verdict.decision).toBe('allow');
  });
});
