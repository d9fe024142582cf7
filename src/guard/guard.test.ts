import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntentguardDiagnosticsError } from '../language/index.js';
import { loadToolSchema } from '../schema/index.js';
import { continueGuard, createGuard, GuardJournalError, restoreGuard } from './create-guard.js';
import type { Guard, GuardEvent, ToolCall } from './types.js';

const examples = new URL('../../examples/', import.meta.url);
const bankText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;
const now = '2025-03-14T12:00';

const balance = (id: string): ToolCall => ({ id, name: 'BankCheckBalance', args: {} });
const transfer = (id: string, to: string, amount: number): ToolCall => ({
  id,
  name: 'BankTransfer',
  args: { to, amount },
});

function bankGuard(options: Parameters<typeof createGuard>[2] = {}): Guard {
  return createGuard(bankText, schema, { now, ...options });
}

/** A guard that has checked the balance and seen it: `balance` is the tool's output. */
function richGuard(amount = 1500, options: Parameters<typeof createGuard>[2] = {}): Guard {
  const guard = bankGuard(options);
  expect(guard.check(balance('b1')).action).toBe('run');
  expect(guard.result('b1', { output: { balance: amount } }).ok).toBe(true);
  return guard;
}

describe('createGuard: run, ask or refuse', () => {
  it('runs an allowed call, asks for a @confirm rule, refuses the rest with text for the model', () => {
    const guard = richGuard();
    const wrong = guard.check(transfer('t1', 'Mallory', 100));
    expect(wrong).toMatchObject({ id: 't1', action: 'refuse' });
    expect(wrong.message).toMatch(/^intentguard: revise \(hard\)\./);
    expect(wrong.message).toContain('"Alice"');
    const guarded = guard.check(transfer('t2', 'Alice', 900));
    expect(guarded).toMatchObject({ action: 'refuse', verdict: { decision: 'reject' } });
    const right = guard.check(transfer('t3', 'Alice', 500));
    expect(right).toMatchObject({ action: 'ask', verdict: { decision: 'confirm' } });
    expect(right.prompt).toContain('(BankTransfer) with to: "Alice", amount: 500?');
    expect(guard.status()).toMatchObject({ pendingIds: ['t3'], runningIds: [] });
  });

  it('answers twice the same for one id, and refuses an id reused for another call', () => {
    const guard = richGuard();
    const first = guard.check(transfer('t1', 'Alice', 500));
    expect(guard.check(transfer('t1', 'Alice', 500))).toBe(first);
    const reused = guard.check(transfer('t1', 'Mallory', 500));
    expect(reused.action).toBe('refuse');
    expect(reused.message).toContain("call id 't1' was already used");
    // Only one session proposal was made for t1.
    expect(guard.journal().events.filter((event) => 'propose' in event)).toHaveLength(2);
  });

  it('fails closed without a spec', () => {
    const guard = createGuard(undefined, schema);
    expect(guard.check(balance('b1'))).toMatchObject({
      action: 'refuse',
      verdict: { reasons: [{ code: 'no-spec' }] },
    });
    expect(guard.finish().action).toBe('refuse');
  });

  it('throws errors that name the parameter on misuse', () => {
    const guard = bankGuard();
    expect(() => guard.approve('nope', true)).toThrow(/unknown id 'nope'/);
    expect(() => createGuard(bankText, undefined)).toThrow(/'schema'/);
    expect(() => createGuard(bankText, schema, { mode: 'loud' as never })).toThrow(/options.mode/);
    expect(() => createGuard('BankTransfer(to = 1) -> X\nX -> Done', schema)).toThrow(
      IntentguardDiagnosticsError,
    );
  });
});

describe('approvals', () => {
  it('keeps several approvals pending at once, each for its own call', () => {
    const spec = `${bankText.replace(/^reject .*$/m, '')}
@confirm
BalanceKnown & BankCheckBalanceResult(balance > 1000) & BankTransfer(to = "Bob", amount = 20) -> Tipped`;
    const guard = createGuard(spec, schema, { now });
    guard.check(balance('b1'));
    guard.result('b1', { output: { balance: 1500 } });
    expect(guard.check(transfer('a', 'Alice', 500)).action).toBe('ask');
    expect(guard.check(transfer('b', 'Bob', 20)).action).toBe('ask');
    expect(guard.status().pendingIds).toEqual(['a', 'b']);
    expect(guard.approve('b', true).action).toBe('run');
    expect(guard.approve('a', true).action).toBe('run');
    expect(guard.status()).toMatchObject({
      pendingIds: [],
      runningIds: ['a', 'b'],
      achieved: { BalanceKnown: 1, Transferred: 1, Tipped: 1 },
    });
    // Approving again answers the same.
    expect(guard.approve('a', true).action).toBe('run');
  });

  it('re-checks an approval against the state of that moment', () => {
    const guard = richGuard();
    expect(guard.check(transfer('t1', 'Alice', 500)).action).toBe('ask');
    guard.observe({ BankCheckBalanceResult: { balance: 10 } });
    const answer = guard.approve('t1', true);
    expect(answer.action).toBe('refuse');
    expect(answer.verdict.reasons[0]?.code).toBe('unmet-conditions');
    expect(guard.status().achieved).toEqual({ BalanceKnown: 1 });
  });

  it('turns a denial into a refusal that tells the model not to retry', () => {
    const guard = richGuard();
    guard.check(transfer('t1', 'Alice', 500));
    const denied = guard.approve('t1', false);
    expect(denied.action).toBe('refuse');
    expect(denied.message).toContain('the user declined this call');
    expect(guard.status()).toMatchObject({ pendingIds: [], achieved: { BalanceKnown: 1 } });
  });
});

describe('results: success-based achievement', () => {
  it('observes a result as the tool result predicate, so Done can follow', () => {
    const guard = bankGuard();
    guard.check(balance('b1'));
    expect(guard.status().runningIds).toEqual(['b1']);
    guard.result('b1', { output: { balance: 500 } });
    expect(guard.status()).toMatchObject({ runningIds: [], done: true });
    expect(guard.finish().action).toBe('run');
    expect(guard.check(balance('b2')).verdict.reasons[0]?.code).toBe('session-finished');
  });

  it('refuses to finish while an allowed call has no result yet', () => {
    const guard = bankGuard();
    guard.check(balance('b1'));
    guard.observe({ BankCheckBalanceResult: { balance: 500 } });
    expect(guard.status().done).toBe(true);
    const early = guard.finish();
    expect(early).toMatchObject({
      action: 'refuse',
      verdict: { reasons: [{ code: 'premature-finish' }] },
    });
    expect(early.message).toContain('BankCheckBalance (b1)');
    guard.result('b1', { output: { balance: 500 } });
    expect(guard.finish().action).toBe('run');
    const eager = bankGuard({ finishWaitsForResults: false });
    eager.check(balance('b1'));
    eager.observe({ BankCheckBalanceResult: { balance: 500 } });
    expect(eager.finish().action).toBe('run');
  });

  it('rolls a failed call back, so the agent may retry it', () => {
    const guard = richGuard();
    guard.check(transfer('t1', 'Alice', 500));
    guard.approve('t1', true);
    expect(guard.status().achieved).toMatchObject({ Transferred: 1 });
    expect(guard.result('t1', { error: new Error('bank offline') }).ok).toBe(true);
    expect(guard.status()).toMatchObject({ achieved: { BalanceKnown: 1 }, done: false });
    expect(guard.check(transfer('t2', 'Alice', 500)).action).toBe('ask');
  });

  it('reads string and MCP-shaped outputs', () => {
    for (const output of [
      '{"balance": 500}',
      { structuredContent: { balance: 500 }, content: [] },
      { content: [{ type: 'text', text: '{"balance": 500}' }] },
    ]) {
      const guard = bankGuard();
      guard.check(balance('b1'));
      guard.result('b1', { output });
      expect(guard.status().done, JSON.stringify(output)).toBe(true);
    }
  });

  it('does not observe the result of a call it did not allow', () => {
    const guard = richGuard();
    guard.check(transfer('t1', 'Mallory', 9000));
    expect(guard.result('t1', { output: {} }).ok).toBe(false);
  });
});

describe('parallel calls in one step', () => {
  it('checks each against the state the earlier ones leave', () => {
    const guard = bankGuard();
    expect(guard.check(balance('b1')).action).toBe('run');
    // The second balance check in the same step: BalanceKnown is already achieved.
    expect(guard.check(balance('b2')).verdict.reasons[0]?.code).toBe('already-achieved');
    // If the first fails, the retry is allowed.
    guard.result('b1', { error: 'timeout' });
    expect(guard.check(balance('b3')).action).toBe('run');
  });
});

describe('shadow mode and events', () => {
  it('decides and records everything, but always runs', () => {
    const events: GuardEvent[] = [];
    const guard = richGuard(1500, { mode: 'shadow', onEvent: (event) => events.push(event) });
    const refused = guard.check(transfer('t1', 'Mallory', 100));
    expect(refused).toMatchObject({ action: 'run', verdict: { decision: 'revise' } });
    expect(guard.check(transfer('t2', 'Alice', 500)).action).toBe('run');
    expect(events.map((event) => event.kind)).toEqual([
      'decision',
      'result',
      'decision',
      'decision',
    ]);
  });

  it('ignores an audit hook that throws', () => {
    const guard = bankGuard({
      onEvent: () => {
        throw new Error('log full');
      },
    });
    expect(guard.check(balance('b1')).action).toBe('run');
  });
});

describe('journal and restore', () => {
  it('writes the trace format with ids and restores the guard exactly', () => {
    const guard = richGuard();
    guard.check(transfer('t1', 'Alice', 500));
    const journal = guard.journal();
    expect(journal).toMatchObject({ version: 1, timeZone: 'UTC' });
    expect(journal.now).toMatch(/^2025-03-14T12:00/);
    expect(journal.events[0]).toEqual({
      propose: { action: { name: 'BankCheckBalance', args: {} } },
      id: 'b1',
      expect: { decision: 'allow' },
    });
    const restored = restoreGuard(bankText, schema, JSON.parse(JSON.stringify(journal)));
    expect(restored.status()).toEqual(guard.status());
    expect(restored.approve('t1', true).action).toBe('run');
    expect(restored.status().achieved).toMatchObject({ Transferred: 1 });
  });

  it('refuses a journal that does not replay as recorded', () => {
    const guard = richGuard();
    const journal = guard.journal();
    const other = bankText.replace('balance > 1000', 'balance > 100000');
    expect(() => restoreGuard(other, schema, journal)).not.toThrow(); // same decisions so far
    guard.check(transfer('t1', 'Alice', 500));
    expect(() => restoreGuard(other, schema, guard.journal())).toThrow(GuardJournalError);
    expect(() => restoreGuard(bankText, schema, { version: 2 } as never)).toThrow(/'journal'/);
  });

  it('restores at every point of random interleavings to the same decisions', () => {
    type Step =
      | { kind: 'check'; to: string; amount: number }
      | { kind: 'balance' }
      | { kind: 'approve'; ok: boolean; pick: number }
      | { kind: 'result'; fail: boolean; pick: number; amount: number }
      | { kind: 'observe'; amount: number }
      | { kind: 'finish' };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        kind: fc.constant('check' as const),
        to: fc.constantFrom('Alice', 'Bob'),
        amount: fc.constantFrom(100, 500, 900),
      }),
      fc.record({ kind: fc.constant('balance' as const) }),
      fc.record({ kind: fc.constant('approve' as const), ok: fc.boolean(), pick: fc.nat() }),
      fc.record({
        kind: fc.constant('result' as const),
        fail: fc.boolean(),
        pick: fc.nat(),
        amount: fc.constantFrom(10, 1500),
      }),
      fc.record({ kind: fc.constant('observe' as const), amount: fc.constantFrom(10, 1500) }),
      fc.record({ kind: fc.constant('finish' as const) }),
    );
    /** Runs steps[from..to) on a guard, logging every answer. */
    const run = (guard: Guard, steps: readonly Step[], from: number, to: number, log: string[]) => {
      for (let index = from; index < to; index++) {
        const current = steps[index]!;
        const { pendingIds, runningIds } = guard.status();
        switch (current.kind) {
          case 'check':
            log.push(guard.check(transfer(`c${index}`, current.to, current.amount)).action);
            break;
          case 'balance':
            log.push(guard.check(balance(`c${index}`)).action);
            break;
          case 'approve': {
            const target = pendingIds[current.pick % Math.max(1, pendingIds.length)];
            if (target) log.push(guard.approve(target, current.ok).action);
            break;
          }
          case 'result': {
            const target = runningIds[current.pick % Math.max(1, runningIds.length)];
            if (target) {
              const outcome = current.fail
                ? { error: 'failed' }
                : { output: { balance: current.amount } };
              log.push(String(guard.result(target, outcome).ok));
            }
            break;
          }
          case 'observe':
            log.push(
              String(guard.observe({ BankCheckBalanceResult: { balance: current.amount } }).ok),
            );
            break;
          case 'finish':
            log.push(guard.finish().action);
            break;
        }
      }
    };
    fc.assert(
      fc.property(fc.array(step, { maxLength: 14 }), fc.nat(), (steps, cut) => {
        const at = cut % (steps.length + 1);
        const original = bankGuard();
        const whole: string[] = [];
        run(original, steps, 0, steps.length, whole);
        // The same run, restored from its (serialized) journal after `at` steps, then continued.
        const first = bankGuard();
        const log: string[] = [];
        run(first, steps, 0, at, log);
        const restored = restoreGuard(
          bankText,
          schema,
          JSON.parse(JSON.stringify(first.journal())),
        );
        expect(restored.status()).toEqual(first.status());
        expect(restored.roadmap()).toBe(first.roadmap());
        run(restored, steps, at, steps.length, log);
        expect(log).toEqual(whole);
        expect(restored.status()).toEqual(original.status());
        expect(restored.journal()).toEqual(original.journal());
        // A copy restored after `at` steps and then given only the events written since
        // (another service instance's), instead of the whole journal again.
        const behind = restoreGuard(bankText, schema, JSON.parse(JSON.stringify(first.journal())));
        continueGuard(
          behind,
          JSON.parse(JSON.stringify(original.journalSince(behind.journalLength()))),
        );
        expect(behind.status()).toEqual(original.status());
        expect(behind.journal()).toEqual(original.journal());
      }),
      { numRuns: 200 },
    );
  });

  it('continues a guard with events written elsewhere, refusing ones that do not replay', () => {
    const elsewhere = richGuard();
    const copy = restoreGuard(bankText, schema, elsewhere.journal());
    const from = elsewhere.journalLength();
    expect(elsewhere.check(transfer('t1', 'Alice', 500)).action).toBe('ask');
    expect(elsewhere.approve('t1', true).action).toBe('run');
    expect(elsewhere.result('t1', { error: 'declined' }).ok).toBe(true);
    const written = elsewhere.journalSince(from);
    // A `fail` of a call proposed before the events given is part of the same journal.
    const untouched = restoreGuard(bankText, schema, elsewhere.journal());
    continueGuard(copy, written);
    expect(copy.journal()).toEqual(untouched.journal());
    expect(copy.check(transfer('t1', 'Alice', 500))).toEqual(
      untouched.check(transfer('t1', 'Alice', 500)),
    );

    const prefix = () =>
      restoreGuard(bankText, schema, {
        ...elsewhere.journal(),
        events: elsewhere.journal().events.slice(0, from),
      });
    // An approval rewritten as a refusal no longer replays as recorded.
    const forged = written.map((event) =>
      'resolve' in event ? { ...event, resolve: { approved: false } } : event,
    );
    expect(() => continueGuard(prefix(), forged)).toThrow(GuardJournalError);
    // Numbered in the whole journal.
    expect(() => continueGuard(prefix(), [{ fail: { id: 'never-proposed' } }])).toThrow(
      new RegExp(`journal event ${from + 1}: fail.id "never-proposed" names no call`),
    );
    expect(() => continueGuard({} as Guard, written)).toThrow(/'guard'/);
  });
});

describe('incremental journal', () => {
  it('gives the events since an index, as copies, and the length', () => {
    const guard = bankGuard();
    guard.check(balance('b1'));
    const length = guard.journalLength();
    guard.result('b1', { output: { balance: 1500 } });
    const fresh = guard.journalSince(length);
    expect(fresh).toEqual(guard.journal().events.slice(length));
    expect(fresh).toHaveLength(1);
    expect(guard.journalLength()).toBe(length + 1);
    (fresh[0] as { observe: { updates: unknown } }).observe.updates = 'changed';
    expect(guard.journalSince(length)[0]).not.toHaveProperty('observe.updates', 'changed');
    expect(guard.journalSince(-5)).toHaveLength(guard.journalLength());
  });
});

describe('reading a call back', () => {
  it('gives the call as first checked, as a copy, and its decision, without deciding', () => {
    const guard = richGuard();
    const args = { to: 'Alice', amount: 500 };
    const decision = guard.check({ id: 't1', name: 'BankTransfer', args });
    args.amount = 9000; // the host's object changing later changes nothing
    const events = guard.journalLength();
    expect(guard.call('t1')).toEqual({
      id: 't1',
      name: 'BankTransfer',
      args: { to: 'Alice', amount: 500 },
    });
    (guard.call('t1')?.args as { amount: number }).amount = 1;
    expect(guard.call('t1')?.args).toEqual({ to: 'Alice', amount: 500 });
    expect(guard.decision('t1')).toBe(decision);
    expect(guard.call('nope')).toBeUndefined();
    expect(guard.decision('nope')).toBeUndefined();
    expect(guard.journalLength()).toBe(events);
  });
});
