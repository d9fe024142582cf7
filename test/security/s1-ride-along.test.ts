import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/index.js';
import { action, schemaOf, specOf, state } from '../engine/fixtures.js';
import { balanceOf, bankSchema, checkBalance, fixedNow, sessionFor, transfer } from './support.js';

/**
 * S1: a proposal with an action performs only the rules whose action pattern names
 * that action; a declared objective narrows them and can never let the action skip its
 * own rule or its `@confirm` (LANGUAGE.md §5.2).
 */
const ride = `BankCheckBalance() -> BalanceKnown
BalanceKnown & BankCheckBalanceResult(balance > 1000) -> Rich
@confirm(financial, "Confirm the transfer details with the user")
Rich & BankTransfer(to = "Alice", amount = 500) -> Transferred
Transferred -> Done
BalanceKnown & BankCheckBalanceResult(balance <= 1000) -> Done`;

function richSession() {
  const session = sessionFor(ride, bankSchema());
  expect(session.propose(checkBalance).decision).toBe('allow');
  expect(session.observe(balanceOf(1500)).ok).toBe(true);
  return session;
}

describe('S1: no ride-along on a declared objective', () => {
  it("refuses the review's ride.intent transfer to Mallory with or without the objective", () => {
    const session = richSession();
    const alone = session.propose(transfer('Mallory', 9999));
    expect(alone).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(alone.reasons[0]?.code).toBe('unmet-conditions');
    const riding = session.propose({ objective: 'Rich', ...transfer('Mallory', 9999) });
    expect(riding).toMatchObject({ decision: 'revise', severity: 'hard' });
    expect(riding.reasons[0]?.code).toBe('invalid-proposal');
    expect(riding.feedback).toContain("does not perform 'Rich'");
    expect(session.status().achieved).toEqual({ BalanceKnown: 1 });
  });

  it("never skips the action's own @confirm", () => {
    const session = richSession();
    // Rich is achieved first, by a gesture proposal without an action.
    expect(session.propose({ objective: 'Rich' }).decision).toBe('allow');
    expect(session.propose({ objective: 'Rich', ...transfer('Alice', 500) }).decision).toBe(
      'revise',
    );
    const own = session.propose({ objective: 'Transferred', ...transfer('Alice', 500) });
    expect(own.decision).toBe('confirm');
    expect(own.reasons[0]?.code).toBe('rule-confirm');
    expect(session.propose(transfer('Alice', 500)).decision).toBe('confirm');
  });

  it("keeps another firing rule's @confirm when the objective narrows it away", () => {
    const schema = schemaOf(
      action('Pay', { amount: 'number' }, { critical: true }),
      action('Search', { query: 'text' }),
    );
    const spec = specOf(
      '@confirm\nPay(amount = 5) -> Paid\nSearch(query = "shoes") -> Found\n@repeat(2)\nFound & Pay(amount <= 5) -> Bought\nPaid -> Done',
      schema,
    );
    const session = createSession(spec, { now: fixedNow });
    session.propose({ action: { name: 'Search', args: { query: 'shoes' } } });
    const pay = { action: { name: 'Pay', args: { amount: 5 } } };
    const narrowed = session.propose({ ...pay, objective: 'Bought' });
    expect(narrowed.decision).toBe('confirm');
    expect(narrowed.reasons[0]?.code).toBe('rule-confirm');
    expect(session.propose(pay).decision).toBe('confirm');
  });

  it('keeps a reject guard in force and the transfer refused when riding on a firing objective', () => {
    const session = sessionFor(
      `${ride}\nreject BankTransfer(amount > 500) because "never move more than asked"`,
      bankSchema(),
    );
    session.propose(checkBalance);
    session.observe(balanceOf(1500));
    expect(session.propose({ objective: 'Rich', ...transfer('Mallory', 400) }).decision).toBe(
      'revise',
    );
    expect(session.propose({ objective: 'Rich', ...transfer('Mallory', 900) }).decision).toBe(
      'reject',
    );
  });

  it('refuses the GUI PayDeposit variant: a critical payment riding on Reserve', () => {
    const schema = schemaOf(
      state('Form', { ok: 'boolean' }),
      action('PayDeposit', { amount: 'number' }, { critical: true }),
    );
    const spec = specOf(
      'Form(ok = true) -> Reserve\nPayDeposit(amount <= 20) -> Reserve\nReserve -> Done',
      schema,
    );
    const session = createSession(spec, { now: fixedNow });
    session.observe({ updates: { Form: { ok: true } } });
    const riding = session.propose({
      objective: 'Reserve',
      action: { name: 'PayDeposit', args: { amount: 5000 } },
    });
    expect(riding).toMatchObject({
      decision: 'revise',
      severity: 'hard',
      reasons: [{ code: 'unmet-conditions', variable: 'amount' }],
    });
    expect(session.status().achieved).toEqual({});
    expect(
      session.propose({
        objective: 'Reserve',
        action: { name: 'PayDeposit', args: { amount: 20 } },
      }).decision,
    ).toBe('allow');
  });

  it('lets a proposal without an action perform only the action-less rules of its objective', () => {
    const session = richSession();
    // Transferred has only a rule with an action pattern: nothing fires without it.
    const declared = session.propose({ objective: 'Transferred' });
    expect(declared.decision).toBe('revise');
    expect(declared.reasons.map((reason) => reason.code)).toContain('unmet-conditions');
    expect(declared.feedback).toContain('BankTransfer');
    expect(session.status().achieved).toEqual({ BalanceKnown: 1 });
  });
});
