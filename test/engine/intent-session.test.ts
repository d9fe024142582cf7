import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createMajoritySession,
  createSession,
  type IntentSession,
  type MajoritySession,
  type NoSpecSession,
  type Session,
} from '../../src/index.js';
import { action, fixedNow, schemaOf, specOf, tool } from './fixtures.js';

/**
 * One session contract: `Session`, `NoSpecSession` and `MajoritySession` all implement
 * `IntentSession`, checked by the compiler (`implements`, and the assertions below) and
 * by one scenario every implementation must answer alike in shape.
 */
describe('IntentSession', () => {
  it('is implemented by the three session classes and returned by the factories', () => {
    expectTypeOf<Session>().toMatchTypeOf<IntentSession>();
    expectTypeOf<NoSpecSession>().toMatchTypeOf<IntentSession>();
    expectTypeOf<MajoritySession>().toMatchTypeOf<IntentSession>();
    expectTypeOf(createSession).returns.toMatchTypeOf<IntentSession>();
    expectTypeOf(createMajoritySession).returns.toMatchTypeOf<IntentSession>();
    // Exactly what integrations need, nothing of one implementation's internals.
    expectTypeOf<keyof IntentSession>().toEqualTypeOf<
      'propose' | 'observe' | 'resolve' | 'status' | 'roadmap' | 'history'
    >();
  });

  const schema = schemaOf(
    tool('BankCheckBalance', {}, { balance: 'number' }),
    action('BankTransfer', { to: 'text', amount: 'number' }, { critical: true }),
  );
  const spec = specOf(
    [
      'BankCheckBalance() -> BalanceKnown',
      'BalanceKnown & BankTransfer(to = "Alice", amount <= 500) -> Transferred',
      'Transferred -> Done',
    ].join('\n'),
    schema,
  );
  const sessions: readonly (readonly [string, () => IntentSession, boolean])[] = [
    ['Session', () => createSession(spec, { now: fixedNow }), true],
    ['NoSpecSession', () => createSession(undefined, { now: fixedNow }), false],
    ['MajoritySession', () => createMajoritySession([spec, spec], { now: fixedNow }), true],
  ];

  it.each(sessions)('%s answers the contract', (_name, create, hasSpec) => {
    const session = create();
    const checkBalance = { action: { name: 'BankCheckBalance', args: {} } };
    const verdict = session.propose(checkBalance);
    expect(verdict.decision).toBe(hasSpec ? 'allow' : 'reject');
    expect(typeof verdict.feedback).toBe('string');
    const observed = session.observe({ updates: { BankCheckBalanceResult: { balance: 10 } } });
    expect(typeof observed.ok).toBe('boolean');
    expect(session.resolve(true)).toMatchObject({ ok: false, committed: false });
    const transfer = session.propose({
      action: { name: 'BankTransfer', args: { to: 'Mallory', amount: 10 } },
    });
    expect(['revise', 'reject']).toContain(transfer.decision);
    expect(session.status()).toMatchObject({ done: false, finished: false, pending: false });
    expect(typeof session.roadmap()).toBe('string');
    // Every proposal is in the history, in order (what else is recorded may differ).
    const proposals = session.history.filter((entry) => entry.kind === 'propose');
    expect(proposals.map((entry) => entry.verdict.decision)).toEqual([
      verdict.decision,
      transfer.decision,
    ]);
    // A proposal the session cannot read is a verdict, never a throw.
    expect(session.propose(Symbol('garbage')).decision).not.toBe('allow');
  });
});
