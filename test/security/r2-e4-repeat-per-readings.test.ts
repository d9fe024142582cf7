import { describe, it } from 'vitest';
import { replayChecked } from './r2-review-tools.js';

/**
 * E4: `@repeat(per: number)` keyed the whole value, so listing the served number again
 * (`n, n`, `n;m`), a trailing dot, `tel:n` or the number spelled with spaces or dashes
 * counted as a new recipient and a second text went out. A value is new only if none of
 * its readings under the deny-list reading — the value, its parts, their look-alikes,
 * the digits of a phone-like value — was served (docs/language.md, `@repeat(per:)`).
 */
const spec = `@repeat(per: number)
SendText(text contains "office is closed") -> Notified
Notified -> Done
`;
const text = (number: string) => ({
  action: { name: 'SendText', args: { number, text: 'The office is closed on Monday.' } },
});
const served = { decision: 'revise', code: 'already-achieved' };

describe('E4: @repeat(per:) reads values as guards do', () => {
  it.each([
    ['  +14155550123'],
    ['+14155550123, +14155550123'],
    ['+14155550123;+14155550188'],
    ['+14155550123.'],
    ['tel:+14155550123'],
    ['+1 415 555 0123'],
    ['+1-415-555-0123'],
    ['+1 (415) 555-0123'],
    ['Office <+14155550123>'],
  ])('the review: after +14155550123, %j is already served', async (number) => {
    await replayChecked(spec, [
      { propose: text('+14155550123'), expect: 'allow' },
      { propose: text(number), expect: served },
    ]);
  });

  it('a number listed with a served one serves both: neither is new afterwards', async () => {
    await replayChecked(spec, [
      { propose: text('+14155550123, +14155550188'), expect: 'allow' },
      { propose: text('+14155550188'), expect: served },
      { propose: text('+1 415 555 0123'), expect: served },
      { propose: text('+14155550199'), expect: 'allow' },
    ]);
  });

  it('other numbers and other spellings of a country are new; @repeat(2, per:) counts readings', async () => {
    await replayChecked(
      `@repeat(2, per: number)
SendText(text contains "office is closed") -> Notified
Notified -> Done
`,
      [
        { propose: text('+14155550123'), expect: 'allow' },
        { propose: text('+14155550124'), expect: 'allow' },
        // A national spelling: nothing knows the country (a documented limit).
        { propose: text('(415) 555-0123'), expect: 'allow' },
        { propose: text('tel:+1-415-555-0123'), expect: 'allow' },
        { propose: text('+1 415 555 0123'), expect: served },
      ],
    );
  });
});
