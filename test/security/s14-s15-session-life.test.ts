import { describe, expect, it } from 'vitest';
import { createSession } from '../../src/index.js';
import { action, schemaOf, specOf, state } from '../engine/fixtures.js';
import {
  balanceOf,
  bankSchema,
  checkBalance,
  exampleText,
  fixedNow,
  sessionFor,
  transfer,
} from './support.js';

/** S14, S15: a pending approval is re-checked at resolve; a finished session decides nothing. */
const bankText = exampleText('bank-transfer/spec.intent');

function confirmedTransfer() {
  const session = sessionFor(bankText, bankSchema());
  session.propose(checkBalance);
  session.observe(balanceOf(1500));
  expect(session.propose(transfer('Alice', 500)).decision).toBe('confirm');
  return session;
}

describe('S14: resolve(true) re-checks the pending proposal against the state of that moment', () => {
  it('commits nothing when an observation since made the transfer fail its rule', () => {
    const session = confirmedTransfer();
    session.observe(balanceOf(10));
    const resolved = session.resolve(true);
    expect(resolved).toMatchObject({ ok: false, committed: false });
    expect(resolved.verdict).toMatchObject({
      decision: 'revise',
      severity: 'hard',
      reasons: [{ code: 'unmet-conditions', predicate: 'BankCheckBalanceResult' }],
    });
    expect(resolved.message).toContain('no longer passes');
    expect(session.status()).toMatchObject({
      achieved: { BalanceKnown: 1 },
      pending: false,
    });
    // The low-balance branch now holds: the agent may finish without transferring.
    expect(session.status().done).toBe(true);
  });

  it('commits when the state changed but the proposal still passes', () => {
    const session = confirmedTransfer();
    session.observe(balanceOf(2000));
    const resolved = session.resolve(true);
    expect(resolved).toMatchObject({ ok: true, committed: true });
    expect(resolved.verdict).toBeUndefined();
    expect(session.status()).toMatchObject({ achieved: { Transferred: 1 }, done: true });
  });

  it('commits without a re-check when nothing changed, and denial commits nothing', () => {
    const approved = confirmedTransfer();
    expect(approved.resolve(true)).toMatchObject({ ok: true, committed: true });
    const denied = confirmedTransfer();
    denied.observe(balanceOf(10));
    expect(denied.resolve(false)).toMatchObject({ ok: true, committed: false });
    expect(denied.status().achieved).toEqual({ BalanceKnown: 1 });
  });

  it('re-checks reject guards even for an approval that overrules repeated refusals', () => {
    const schema = schemaOf(
      state('Ledger', { note: 'text', locked: { type: 'boolean', observed: true } }),
      action('Pay', { amount: 'number' }, { critical: true }),
    );
    const spec = specOf(
      'Pay(amount <= 10) -> Paid\nPaid -> Done\nreject Ledger(locked = true) because "the ledger is locked"',
      schema,
    );
    const run = (lock: boolean) => {
      const session = createSession(spec, { now: fixedNow, escalateAfter: 1 });
      const pay = {
        action: { name: 'Pay', args: { amount: 50 } },
        updates: { Ledger: { note: 'x' } },
      };
      expect(session.propose(pay).reasons[0]?.code).toBe('unmet-conditions');
      expect(session.propose(pay).reasons[0]?.code).toBe('repeated-violation');
      session.observe({ updates: { Ledger: { locked: lock } } });
      return session.resolve(true);
    };
    // A person may overrule the rules, never a reject guard.
    expect(run(false)).toMatchObject({ ok: true, committed: true });
    const refused = run(true);
    expect(refused).toMatchObject({ ok: false, committed: false });
    expect(refused.verdict?.reasons[0]?.code).toBe('guard-reject');
  });
});

describe('S15: after an allowed finish every proposal is rejected', () => {
  it("answers session-finished to the review's sequence", () => {
    const session = sessionFor(bankText, bankSchema());
    session.propose(checkBalance);
    session.observe(balanceOf(500));
    expect(session.propose({ finish: true }).decision).toBe('allow');
    expect(session.propose(checkBalance)).toMatchObject({
      decision: 'reject',
      reasons: [{ code: 'session-finished' }],
    });
    // Observations are still recorded …
    expect(session.observe(balanceOf(5000)).ok).toBe(true);
    // … but nothing runs any more, and no approval can be pending.
    expect(session.propose(transfer('Alice', 500))).toMatchObject({
      decision: 'reject',
      reasons: [{ code: 'session-finished' }],
    });
    expect(session.propose({ finish: true }).decision).toBe('reject');
    expect(session.status()).toMatchObject({ finished: true, pending: false });
    expect(session.resolve(true)).toMatchObject({ ok: false, committed: false });
  });
});
