import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { confusablePrototypes } from './confusables.js';
import { type ConfusableSkeletons, confusablesFrom } from './skeleton.js';

const confusables = confusablesFrom(confusablePrototypes);
const confusableSkeletons = (text: string, keepEdges?: boolean) =>
  confusables.skeletons(text, keepEdges);

it('parses its table once, on first use, and answers the same from then on', () => {
  const table = confusablesFrom(confusablePrototypes);
  const first = table.skeletons('Маllory');
  expect(first.cased).toBe(table.skeletons('mallory').cased);
  expect(table.skeletons('Маllory')).toEqual(first);
  // Another table is another part: `a` for a Cyrillic а only where the table says so.
  const other = confusablesFrom('61:430');
  expect(other.skeletons('\u0430').cased).toBe('a');
  expect(other.skeletons('Mall0ry').cased).not.toBe(table.skeletons('Mall0ry').cased);
});

/** Whether two texts look alike: either skeleton equal. */
function lookAlike(left: string, right: string): boolean {
  const a = confusableSkeletons(left);
  const b = confusableSkeletons(right);
  return a.cased === b.cased || a.folded === b.folded;
}

describe('confusable skeletons (UTS #39, case-insensitive)', () => {
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
