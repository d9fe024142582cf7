import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { type ConfusableSkeletons, confusableSkeletons, loadConfusables } from './skeleton.js';

it('refuses a skeleton before the confusables table is loaded (fail closed), then loads it on demand', async () => {
  // A fresh copy of the module, as a page has before it loads the table (in Node the
  // checker loads it at once).
  vi.resetModules();
  const fresh = await import('./skeleton.js');
  expect(fresh.confusablesLoaded()).toBe(false);
  expect(() => fresh.confusableSkeletons('Mallory')).toThrow(/confusables table/);
  expect(() => fresh.confusableSkeletons('Маllory')).toThrow(/confusables table/);
  await fresh.loadConfusables();
  expect(fresh.confusablesLoaded()).toBe(true);
  expect(fresh.confusableSkeletons('Маllory').cased).toBe(
    fresh.confusableSkeletons('mallory').cased,
  );
});

/** Whether two texts look alike: either skeleton equal. */
function lookAlike(left: string, right: string): boolean {
  const a = confusableSkeletons(left);
  const b = confusableSkeletons(right);
  return a.cased === b.cased || a.folded === b.folded;
}

describe('confusable skeletons (UTS #39, case-insensitive)', () => {
  beforeAll(loadConfusables);

  it.each([
    ['Маllory', 'Mallory', 'a Cyrillic capital М'],
    ['МАLLORY', 'mallory', 'Cyrillic capitals in capitals'],
    ['Mallоry', 'Mallory', 'a Cyrillic о'],
    ['pаssword', 'password', 'a Cyrillic а'],
    ['Mall0ry', 'Mallory', 'a zero for an o'],
    ['MaIlory', 'Mallory', 'a capital I for an l'],
    ['ALІCE', 'alice', 'a Cyrillic capital І'],
    ['rnallory', 'Mallory', 'r n for an m'],
    ['Mallóry', 'Mallory', 'an accent'],
    ['Mal\u0300lory', 'Mallory', 'a combining accent'],
    ['Mal\u200blory', 'Mallory', 'a zero-width space'],
    ['evil。com', 'evil.com', 'an ideographic full stop (IDNA)'],
    ['ｅｖｉｌ．ｃｏｍ', 'evil.com', 'fullwidth forms'],
    ['İstanbul', 'istanbul', 'a dotted capital I'],
    ['𝐀𝐥𝐢𝐜𝐞', 'Alice', 'mathematical bold'],
  ])('%j looks like %j (%s)', (left, right) => {
    expect(lookAlike(left, right)).toBe(true);
  });

  it.each([
    ['Alice', 'Bob'],
    ['Mallory', 'Malory'],
    ['alice', 'alicia'],
    ['evil.com', 'devil.com'],
  ])('%j does not look like %j', (left, right) => {
    expect(lookAlike(left, right)).toBe(false);
  });

  it('trims and collapses whitespace, or keeps a space at either end for a needle', () => {
    expect(confusableSkeletons('  a \t b ')).toEqual({ cased: 'a b', folded: 'a b' });
    expect(confusableSkeletons(' rm ', true)).toEqual({ cased: ' rrn ', folded: ' rrn ' });
  });

  it('maps printable ASCII by its table exactly as the Unicode path does', () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    });
    fc.assert(
      fc.property(printable, (text) => {
        // A zero-width space takes the Unicode path and is removed on it.
        const slow: ConfusableSkeletons = confusableSkeletons(`${text}\u200b`);
        expect(confusableSkeletons(text)).toEqual(slow);
      }),
    );
  });

  it('ignores case (folded) and invisible characters (both)', () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
    });
    fc.assert(
      fc.property(printable, fc.nat(), (text, at) => {
        const skeletons = confusableSkeletons(text);
        expect(confusableSkeletons(text.toUpperCase()).folded).toBe(skeletons.folded);
        const cut = at % (text.length + 1);
        const hidden = `${text.slice(0, cut)}\u200b\u00ad${text.slice(cut)}`;
        expect(confusableSkeletons(hidden)).toEqual(skeletons);
      }),
    );
  });
});
