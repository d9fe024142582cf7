import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { collapseSpaces, normalizeNeedle, normalizeText } from './text.js';

describe('normalizeText: NFKC_Casefold, invisible characters out, whitespace collapsed', () => {
  it.each([
    ['Hello   World', 'hello world'],
    ['  padded\t', 'padded'],
    ['Ｈｅｌｌｏ', 'hello'],
    ['𝐌𝐚𝐥𝐥𝐨𝐫𝐲', 'mallory'],
    ['ﬁle', 'file'],
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['ẞ', 'ss'],
    ['ΟΔΟΣ', 'οδοσ'],
    ['οδος', 'οδοσ'],
    ['İstanbul', 'i̇stanbul'],
    ['Café', 'café'],
    ['Cafe\u0301', 'café'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeText(input)).toBe(expected);
  });

  it.each([
    ['zero-width space', 'Mal\u200blory'],
    ['zero-width joiner', 'Mal\u200dlory'],
    ['zero-width non-joiner', 'Mal\u200clory'],
    ['soft hyphen', 'Mal\u00adlory'],
    ['variation selector 16', 'Mallory\ufe0f'],
    ['tag character', 'Mallory\u{e0041}'],
    ['NUL', 'Mallory\u0000'],
    ['escape', 'Mal\u001blory'],
    ['right-to-left override', '\u202eMallory'],
    ['left-to-right mark', 'Mallory\u200e'],
    ['byte order mark', '\ufeffMallory'],
    ['word joiner', 'Mal\u2060lory'],
    ['combining grapheme joiner', 'Mal\u034flory'],
    ['no-break space', '\u00a0Mallory\u00a0'],
    ['ideographic space', '\u3000Mallory'],
    ['tab and newline', '\tMallory\n'],
    ['capitals', 'MALLORY'],
  ])('removes what does not show: %s', (_, input) => {
    expect(normalizeText(input)).toBe('mallory');
  });

  it('turns the controls that separate words into a space, and drops the others', () => {
    expect(normalizeText('a\nb\tc\r\nd\u0085e')).toBe('a b c d e');
    expect(normalizeText('a\u0000b\u0007c')).toBe('abc');
  });

  it('keeps look-alikes from other scripts apart: that is for guards', () => {
    expect(normalizeText('\u0410lice')).not.toBe(normalizeText('Alice'));
    expect(normalizeText('Mall\u043ery')).not.toBe('mallory');
  });

  it('is not fuzzy', () => {
    expect(normalizeText('Hello Wor')).not.toBe(normalizeText('Hello World'));
  });

  it('is idempotent', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-composite' }), (text) => {
        const once = normalizeText(text);
        expect(normalizeText(once)).toBe(once);
      }),
    );
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const once = normalizeText(text);
        expect(normalizeText(once)).toBe(once);
      }),
    );
  });

  it('takes the ASCII fast paths to the same result as the Unicode path', () => {
    // A trailing ZWSP forces the Unicode path; it is removed, so both must agree.
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)),
        }),
        (text) => {
          expect(normalizeText(text)).toBe(normalizeText(`${text}\u200b`));
        },
      ),
    );
  });

  it('reads short printable text by its loop as the expression and the Unicode path do', () => {
    const printable = fc.string({
      unit: fc.integer({ min: 0x1f, max: 0x7f }).map((code) => String.fromCharCode(code)),
      maxLength: 40,
    });
    fc.assert(
      fc.property(printable, (text) => {
        expect(normalizeText(text)).toBe(normalizeText(`${text}\u200b`));
      }),
      { numRuns: 2000 },
    );
    for (const [text, expected] of [
      ['t0', 't0'],
      ['Alice Smith', 'alice smith'],
      ['a  b', 'a b'],
      [' a', 'a'],
      ['a ', 'a'],
      ['', ''],
      ['x'.repeat(32), 'x'.repeat(32)],
      [`${'X'.repeat(33)}`, 'x'.repeat(33)],
    ])
      expect(normalizeText(text!)).toBe(expected);
  });

  it('leaves no invisible character, control or outer space in its result', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const result = normalizeText(text);
        expect(result).not.toMatch(/[\p{Default_Ignorable_Code_Point}\p{Cc}]/u);
        expect(result).toBe(result.trim());
        expect(result).not.toMatch(/\s\s/);
      }),
    );
  });
});

describe('collapseSpaces: one pass instead of replace(/\\s+/g), with the same result', () => {
  const units = fc.oneof(
    fc.constantFrom(
      ' ',
      '  ',
      '\t',
      '\n',
      '\r\n',
      '\v',
      '\f',
      '\u00a0',
      '\u1680',
      '\u2000',
      '\u2028',
    ),
    fc.constantFrom('\u202f', '\u3000', '\ufeff', '\u0000', '\u001b', '\u007f', 'a', 'Bc', 'é'),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  const texts = fc.array(units, { maxLength: 24 }).map((parts) => parts.join(''));

  it('collapses and trims as the regular expressions do', () => {
    fc.assert(
      fc.property(texts, fc.boolean(), (text, trim) => {
        const expected = (trim ? text.trim() : text).replace(/\s+/g, ' ');
        expect(collapseSpaces(text, trim, false)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('drops the ASCII controls that do not separate words first, when asked', () => {
    fc.assert(
      fc.property(texts, fc.boolean(), (text, trim) => {
        const visible = text.replace(/[\x00-\x08\x0e-\x1f\x7f]/g, '');
        const expected = (trim ? visible.trim() : visible).replace(/\s+/g, ' ');
        expect(collapseSpaces(text, trim, true)).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('normalizeNeedle', () => {
  it('normalizes like the text it is searched in but keeps a space at either end', () => {
    expect(normalizeNeedle(' RM ')).toBe(' rm ');
    expect(normalizeNeedle('\tＰａｓｓ\u200bword  ')).toBe(' password ');
    expect(normalizeNeedle('@EVIL.com')).toBe('@evil.com');
  });
});
