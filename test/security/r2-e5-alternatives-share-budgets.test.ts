import { describe, expect, it } from 'vitest';
import { replayChecked } from './r2-review-tools.js';

/**
 * E5: each alternative of `(A | B) & C` kept its own `@repeat` memory and budget, so
 * `@repeat(per: number)` texted one number twice (once per alternative) and `@repeat(2)`
 * allowed four texts. Alternatives are sugar for one rule (LANGUAGE.md §7): the budget
 * belongs to the rule as written, and alternatives that hold together on one call are
 * one performance of it.
 */
const closed = (number: string) => ({
  action: { name: 'SendText', args: { number, text: 'The office is closed on Monday.' } },
});
const getBalance = { action: { name: 'GetBalance', args: {} } };
const getBlocked = { action: { name: 'GetBlockedSenders', args: {} } };
const balance = { observe: { updates: { GetBalanceResult: { balance: 12 } } } };
const blocked = { observe: { updates: { GetBlockedSendersResult: { senders: [] } } } };
const body =
  '(GetBalanceResult(balance > 0) | GetBlockedSendersResult()) & SendText(text contains "office is closed") -> Notified\nNotified -> Done\n';

describe('E5: alternatives share their rule’s @repeat budget', () => {
  it('the review: @repeat(per: number) texts a number once, whichever alternative holds', async () => {
    const verdicts = await replayChecked(`@repeat(per: number)\n${body}`, [
      { propose: getBalance, expect: 'allow' },
      balance,
      { propose: closed('+14155550123'), expect: 'allow' },
      { propose: getBlocked, expect: 'allow' },
      blocked,
      { propose: closed('+14155550123'), expect: { decision: 'revise', code: 'already-achieved' } },
      { propose: closed('+14155550188'), expect: 'allow' },
    ]);
    expect(verdicts[5]).toMatchObject({
      reasons: [{ code: 'already-achieved', message: expect.stringContaining('+14155550123') }],
    });
  });

  it('@repeat(2) allows two texts in all, not two per alternative', async () => {
    await replayChecked(`@repeat(2)\n${body}`, [
      { propose: getBalance, expect: 'allow' },
      balance,
      { propose: closed('+14155550123'), expect: 'allow' },
      { propose: getBlocked, expect: 'allow' },
      blocked,
      // Both alternatives hold now: one call is one performance of the rule.
      { propose: closed('+14155550124'), expect: 'allow' },
      { propose: closed('+14155550125'), expect: { decision: 'revise', code: 'already-achieved' } },
    ]);
  });

  it('a call on which both alternatives hold spends the budget once', async () => {
    const verdicts = await replayChecked(`@repeat(2)\n${body}`, [
      { propose: getBalance, expect: 'allow' },
      balance,
      { propose: getBlocked, expect: 'allow' },
      blocked,
      { propose: closed('+14155550123'), expect: 'allow' },
      { propose: closed('+14155550124'), expect: 'allow' },
      { propose: closed('+14155550125'), expect: { decision: 'revise', code: 'already-achieved' } },
    ]);
    expect(verdicts[4]).toMatchObject({ achieved: { Notified: 1 } });
    expect(verdicts[5]).toMatchObject({ achieved: { Notified: 2 } });
  });

  it('separate rules keep separate budgets', async () => {
    const spec = `@repeat(per: number)
GetBalanceResult(balance > 0) & SendText(text contains "office is closed") -> Notified
@repeat(per: number)
GetBlockedSendersResult() & SendText(text contains "office is closed") -> Notified
Notified -> Done
`;
    await replayChecked(spec, [
      { propose: getBalance, expect: 'allow' },
      balance,
      { propose: closed('+14155550123'), expect: 'allow' },
      { propose: getBlocked, expect: 'allow' },
      blocked,
      { propose: closed('+14155550123'), expect: 'allow' },
    ]);
  });
});
