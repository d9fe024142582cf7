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
    // Exactly what integrations and the guard need, nothing of one implementation's internals.
    expectTypeOf<keyof IntentSession>().toEqualTypeOf<
      | 'propose'
      | 'observe'
      | 'resolve'
      | 'status'
      | 'roadmap'
      | 'history'
      | 'clock'
      | 'schema'
      | 'lastCommit'
      | 'rollback'
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

  const transferTo = (to: string, amount: number) => ({
    action: { name: 'BankTransfer', args: { to, amount } },
  });
  const confirmSpec = specOf(
    [
      'BankCheckBalance() -> BalanceKnown',
      '@confirm @repeat',
      'BalanceKnown & BankTransfer(amount <= 500) -> Transferred',
      'Transferred -> Done',
    ].join('\n'),
    schema,
  );
  const confirming: readonly (readonly [string, () => IntentSession])[] = [
    ['Session', () => createSession(confirmSpec, { now: fixedNow, rollback: true })],
    ['MajoritySession', () => createMajoritySession([confirmSpec, confirmSpec], { now: fixedNow })],
  ];

  it.each(confirming)(
    '%s keeps confirmations by call id while other calls are proposed',
    (_name, create) => {
      const session = create();
      session.propose({ action: { name: 'BankCheckBalance', args: {} } });
      session.observe({ updates: { BankCheckBalanceResult: { balance: 1000 } } });
      expect(session.propose(transferTo('Alice', 100), 'a').decision).toBe('confirm');
      expect(session.propose(transferTo('Bob', 200), 'b').decision).toBe('confirm');
      expect(session.propose(transferTo('Carol', 900), 'c').decision).not.toBe('allow');
      expect(session.status().pending).toBe(true);
      // The answer names its call: Alice's transfer, asked first, still waits.
      expect(session.resolve(true, 'a')).toMatchObject({ ok: true, committed: true });
      const alice = session.lastCommit();
      expect(alice).toBeDefined();
      expect(session.status().achieved).toEqual({ BalanceKnown: 1, Transferred: 1 });
      expect(session.resolve(false, 'b')).toMatchObject({ ok: true, committed: false });
      expect(session.lastCommit()).toBeUndefined();
      expect(session.resolve(true, 'b')).toMatchObject({ ok: false, committed: false });
      expect(session.status().pending).toBe(false);
      // Alice's transfer failed: rolled back once.
      expect(session.rollback(alice!)).toBe(true);
      expect(session.rollback(alice!)).toBe(false);
      expect(session.status().achieved).toEqual({ BalanceKnown: 1 });
    },
  );

  it.each(confirming)(
    '%s answers resolve() without an id for the latest proposal only, as a trace does',
    (_name, create) => {
      const session = create();
      session.propose({ action: { name: 'BankCheckBalance', args: {} } });
      session.observe({ updates: { BankCheckBalanceResult: { balance: 1000 } } });
      expect(session.propose(transferTo('Alice', 100)).decision).toBe('confirm');
      session.propose({ action: { name: 'BankCheckBalance', args: {} } });
      // The next proposal replaced the unanswered confirmation.
      expect(session.resolve(true)).toMatchObject({ ok: false, committed: false });
      expect(session.propose(transferTo('Alice', 100), 'a').decision).toBe('confirm');
      expect(session.resolve(true)).toMatchObject({ ok: true, committed: true });
    },
  );

  it.each(confirming)('%s refuses an approval that comes after the task ended', (_name, create) => {
    const session = create();
    session.propose({ action: { name: 'BankCheckBalance', args: {} } });
    session.observe({ updates: { BankCheckBalanceResult: { balance: 1000 } } });
    expect(session.propose(transferTo('Alice', 100), 'a').decision).toBe('confirm');
    expect(session.propose({ ask: 'Anything else?' }).decision).toBe('allow');
    const late = session.resolve(true, 'a');
    expect(late).toMatchObject({ ok: false, committed: false });
    expect(late.verdict?.reasons[0]?.code).toBe('session-finished');
    expect(session.status().achieved).toEqual({ BalanceKnown: 1 });
  });

  it.each(sessions)('%s has a fixed clock, and NoSpecSession commits nothing', (name, create) => {
    const session = create();
    expect(session.clock).toMatchObject({ timeZone: 'UTC' });
    expect(session.clock).toEqual(create().clock);
    if (name === 'NoSpecSession') {
      expect(session.schema).toBeUndefined();
      expect(session.lastCommit()).toBeUndefined();
      expect(session.rollback(1)).toBe(false);
    } else expect(session.schema).toBe(schema);
  });
});
