import { describe, expect, it } from 'vitest';
import { replayChecked } from './r2-review-tools.js';

/**
 * E2: inside `not P(…)` the rules' strict reading applied, so any spelling the strict
 * test missed made `not` hold and the rule fire: "never to a sender I blocked" let a mail
 * to `news@friend.example, promo@spam-co.example`, `Promo Team <promo@…>`, `promo@….` or
 * `promo@…;` through, and `not Answer(text contains "refund")` let `rеfund` with a
 * Cyrillic `е` through. Inside `not`, a value counts as matching whenever a guard would
 * count it as matching — the deny-list reading (docs/language.md "Guards err toward
 * firing"), with bindings as with literals.
 */
const blocked = `GetBlockedSenders() -> Known
@repeat
Known & SendMail(to = $t) & not GetBlockedSendersResult(senders contains $t) -> Sent
Sent -> Done
`;
const mail = (to: string) => ({
  action: { name: 'SendMail', args: { to, subject: 'News', body: 'Hi' } },
});
const refused = { decision: 'revise' };

describe('E2: not P(…) reads values as guards do', () => {
  it('the review: a blocked sender is refused in every spelling a guard would catch', async () => {
    await replayChecked(blocked, [
      { propose: { action: { name: 'GetBlockedSenders', args: {} } }, expect: 'allow' },
      {
        observe: { updates: { GetBlockedSendersResult: { senders: ['promo@spam-co.example'] } } },
      },
      { propose: mail('promo@spam-co.example'), expect: refused },
      { propose: mail('PROMO@Spam-Co.example'), expect: refused },
      { propose: mail('news@friend.example, promo@spam-co.example'), expect: refused },
      { propose: mail('Promo Team <promo@spam-co.example>'), expect: refused },
      { propose: mail('promo@spam-co.example.'), expect: refused },
      { propose: mail('promo@spam-co.example;'), expect: refused },
      // A look-alike: a Cyrillic а in the domain.
      { propose: mail('promo@sp\u0430m-co.example'), expect: refused },
      { propose: mail('reader@friend.example'), expect: 'allow' },
      // Words are not parts: another address that merely shares a word is new.
      { propose: mail('promo team@friend.example'), expect: 'allow' },
    ]);
  });

  it('a literal inside not: a blocked sender listed with another is refused', async () => {
    const spec = `GetBlockedSenders() -> Known
@repeat
Known & SendMail(to matches /@/) & not GetBlockedSendersResult(senders contains "promo@spam-co.example") -> Sent
Sent -> Done
`;
    await replayChecked(spec, [
      { propose: { action: { name: 'GetBlockedSenders', args: {} } }, expect: 'allow' },
      {
        observe: {
          updates: { GetBlockedSendersResult: { senders: ['Promo <promo@spam-co.example>'] } },
        },
      },
      { propose: mail('reader@friend.example'), expect: refused },
    ]);
  });

  it('a guard with a binding compares with the same reading', async () => {
    const spec = `reject SendMail(to = $a, cc contains $a) because "nobody in both to and cc"
@repeat
SendMail() -> Sent
Sent -> Done
`;
    const both = (to: string, cc: string[]) => ({
      action: { name: 'SendMail', args: { to, cc, subject: 'News', body: 'Hi' } },
    });
    const rejected = { decision: 'reject', code: 'guard-reject' };
    await replayChecked(spec, [
      { propose: both('bob@x.example', ['BOB@x.example']), expect: rejected },
      { propose: both('Bob <bob@x.example>', ['bob@x.example']), expect: rejected },
      { propose: both('ann@x.example', ['b\u043eb@x.example, bob@x.example']), expect: 'allow' },
      { propose: both('bob@x.example', ['ann@x.example, b\u043eb@x.example']), expect: rejected },
      { propose: both('ann@x.example', ['bob@x.example']), expect: 'allow' },
    ]);
  });

  const answered = `Pay(payee = "Plumber", amount = 80) -> Paid
Paid & not Answer(text contains "refund") -> Done
`;
  const finish = async (answer: string, expected: unknown) =>
    replayChecked(answered, [
      {
        propose: { action: { name: 'Pay', args: { payee: 'Plumber', amount: 80 } } },
        expect: 'allow',
      },
      { propose: { finish: true, answer }, expect: expected },
    ]);

  it.each([
    ['refund'],
    ['REFUND'],
    ['re\u200bfund'],
    ['re\u00adfund'],
    ['ｒｅｆｕｎｄ'],
    ['r\u0435fund'],
    ['refun\u0501'],
    ['r\u00e9fund'],
    ['refu\u0308nd'],
    ['\u0280efund'],
  ])('the review: not Answer(text contains "refund") refuses a finish showing %j', async (word) => {
    await finish(`Paid $80. A ${word} is possible.`, refused);
  });

  it('an answer without the word finishes', async () => {
    const verdicts = await finish('Paid $80 to the plumber.', 'allow');
    expect(verdicts).toHaveLength(2);
  });
});
