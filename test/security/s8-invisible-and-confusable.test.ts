import { describe, expect, it } from 'vitest';
import { guardedSpec, sendMoney } from './text-tools.js';

/**
 * S8: invisible characters and homoglyphs defeated `=`/`in` deny-lists, and "case
 * folding" was `toLowerCase`. Text is now NFKC_Casefold with default-ignorable code
 * points and controls removed; guards also compare confusable skeletons (UTS #39) and
 * the parts of a value. Allow-lists (rules) stay strict.
 */
const bypasses: readonly (readonly [string, string])[] = [
  ['zero-width space', 'Mal\u200blory'],
  ['zero-width joiner', 'Mal\u200dlory'],
  ['soft hyphen', 'Mal\u00adlory'],
  ['a combining accent', 'Mallo\u0301ry'],
  ['a combining accent at the end', 'Mallory\u0301'],
  ['variation selector 16', 'Mallory\ufe0f'],
  ['a tag character', 'Mallory\u{e0041}'],
  ['NUL', 'Mallory\u0000'],
  ['right-to-left override', '\u202eMallory'],
  ['a Cyrillic о', 'Mall\u043ery'],
  ['a Cyrillic capital М', '\u041callory'],
  ['a trailing dot', 'Mallory.'],
  ['capitals', 'MALLORY'],
  ['surrounding spaces', '  Mallory '],
  ['no-break spaces', '\u00a0Mallory\u00a0'],
  ['a tab', 'Mallory\t'],
  ['a byte order mark', '\ufeffMallory'],
  ['fullwidth forms', 'Ｍａｌｌｏｒｙ'],
  ['mathematical bold', '𝐌𝐚𝐥𝐥𝐨𝐫𝐲'],
];

describe('S8: deny-lists see through invisible characters and look-alikes', () => {
  it.each(bypasses)('reject SendMoney(to = "Mallory") fires for Mallory with %s', (_, to) => {
    expect(sendMoney(guardedSpec('reject SendMoney(to = "Mallory")'), { to }).decision).toBe(
      'reject',
    );
  });

  it.each(bypasses)('reject SendMoney(to in ["Mallory", "Eve"]) fires with %s', (_, to) => {
    const spec = guardedSpec('reject SendMoney(to in ["Mallory", "Eve"])');
    expect(sendMoney(spec, { to }).decision).toBe('reject');
  });

  it('lets other payees through the deny-list', () => {
    const spec = guardedSpec('reject SendMoney(to in ["Mallory", "Eve"])');
    for (const to of ['Alice', 'Malory', 'Steve'])
      expect(sendMoney(spec, { to }).decision).toBe('allow');
  });

  it('folds case fully, not by toLowerCase', () => {
    const cases: readonly (readonly [string, string])[] = [
      ['Straße', 'STRASSE'],
      ['ΟΔΟΣ', 'οδος'],
      ['ΟΔΟΣ', 'οδοσ'],
    ];
    for (const [literal, to] of cases) {
      const rule = `SendMoney(to = "${literal}") -> Paid\nPaid -> Done`;
      expect(sendMoney(rule, { to }).decision).toBe('allow');
      expect(sendMoney(guardedSpec(`reject SendMoney(to = "${literal}")`), { to }).decision).toBe(
        'reject',
      );
    }
    // Full folding of İ keeps its dot (i̇): a rule does not take it for a plain i; a guard
    // catches it as a look-alike.
    expect(
      sendMoney('SendMoney(to = "istanbul") -> Paid\nPaid -> Done', { to: 'İstanbul' }).decision,
    ).toBe('revise');
    expect(
      sendMoney(guardedSpec('reject SendMoney(to = "istanbul")'), { to: 'İstanbul' }).decision,
    ).toBe('reject');
  });

  describe('allow-lists stay strict', () => {
    const allowAlice = 'SendMoney(to = "Alice") -> Paid\nPaid -> Done';

    it.each(['Alice', ' ALICE ', 'Al\u200bice', 'Ａｌｉｃｅ', 'Alice\u0000'])(
      '%j is Alice after normalization',
      (to) => {
        expect(sendMoney(allowAlice, { to }).decision).toBe('allow');
      },
    );

    it.each(['\u0410lice', 'Alic\u0435', 'Alice.', 'Alice, Mallory', 'Mallory', 'Al1ce'])(
      '%j is not Alice',
      (to) => {
        expect(sendMoney(allowAlice, { to })).toMatchObject({
          decision: 'revise',
          severity: 'hard',
        });
      },
    );
  });
});
