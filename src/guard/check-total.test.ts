import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadToolSchema } from '../schema/index.js';
import { createGuard } from './create-guard.js';
import type { Guard, ToolCall } from './types.js';

/*
 * `Guard.check` is total over what a model or a framework hands it: a malformed call is
 * refused (`invalid-proposal`, with what was expected), never thrown on, and it changes
 * nothing — no record, no journal event, no event for the host.
 */

const examples = new URL('../../examples/', import.meta.url);
const bankText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;

function bankGuard(options: Parameters<typeof createGuard>[2] = {}): {
  guard: Guard;
  events: unknown[];
} {
  const events: unknown[] = [];
  const guard = createGuard(bankText, schema, {
    now: '2025-03-14T12:00',
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { guard, events };
}

const throwing = {
  get id(): string {
    throw new Error('no id today');
  },
  name: 'BankCheckBalance',
};

/** Each malformed shape, the parameter its refusal names, and the id the decision carries. */
const malformed: ReadonlyArray<readonly [string, unknown, string, string]> = [
  ['undefined', undefined, 'its call must be a tool call { id, name, args }, not undefined', ''],
  ['null', null, 'its call must be', ''],
  ['a string', 'BankTransfer', 'its call must be', ''],
  ['no id', { name: 'BankCheckBalance' }, 'its call.id must be a non-empty string', ''],
  ['an empty id', { id: '', name: 'BankCheckBalance' }, 'not the empty string', ''],
  ['a numeric id', { id: 7, name: 'BankCheckBalance' }, 'its call.id must be', ''],
  ['an object id', { id: { x: 1 }, name: 'BankCheckBalance' }, 'not an object', ''],
  ['a long id', { id: 'x'.repeat(257), name: 'BankCheckBalance' }, 'at most 256', 'x'.repeat(257)],
  ['the finish id', { id: '#finish', name: 'BankCheckBalance' }, "other than '#finish'", '#finish'],
  ['no name', { id: 'c1' }, 'its call.name must be the tool name', 'c1'],
  ['an empty name', { id: 'c1', name: '' }, 'its call.name must be', 'c1'],
  ['a name that is an array', { id: 'c1', name: ['BankTransfer'] }, 'not an array', 'c1'],
  ['a getter that throws', throwing, 'one that throws (no id today)', ''],
];

describe('Guard.check: a malformed call is refused, never thrown on', () => {
  for (const [what, call, text, id] of malformed) {
    it(`refuses a call with ${what}`, () => {
      const { guard, events } = bankGuard();
      const decision = guard.check(call as ToolCall);
      expect(decision).toMatchObject({ id, action: 'refuse', prompt: '' });
      expect(decision.verdict.reasons).toHaveLength(1);
      expect(decision.verdict.reasons[0]).toMatchObject({ code: 'invalid-proposal' });
      expect(decision.verdict.reasons[0]?.expected).toEqual(expect.any(String));
      expect(decision.message).toContain(text);
      expect(decision.message).toMatch(/^intentguard: revise \(hard\)\./);
      // Nothing was recorded: the journal, the host's events and the guard's calls.
      expect(guard.journalLength()).toBe(0);
      expect(events).toEqual([]);
      expect(guard.status().runningIds).toEqual([]);
      if (typeof id === 'string' && id !== '') expect(guard.decision(id)).toBeUndefined();
    });
  }

  it('refuses a malformed call in shadow mode too: there is no id to follow it by', () => {
    const { guard } = bankGuard({ mode: 'shadow' });
    expect(guard.check({ id: '', name: 'BankCheckBalance' }).action).toBe('refuse');
    expect(guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} }).action).toBe('run');
  });

  it('leaves a known id alone when a malformed call names it', () => {
    const { guard } = bankGuard();
    expect(guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} }).action).toBe('run');
    expect(guard.check({ id: 'b1', name: '' }).action).toBe('refuse');
    expect(guard.state('b1')).toBe('running');
    expect(guard.decision('b1')?.action).toBe('run');
  });

  it('decides arguments of any shape (the session refuses what it cannot read)', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const shapes: unknown[] = ['text', 42, null, [1, 2], 10n, cyclic, { to: { deep: [] } }];
    const { guard } = bankGuard();
    shapes.forEach((args, index) => {
      const decision = guard.check({ id: `t${index}`, name: 'BankTransfer', args });
      expect(decision.action).toBe('refuse');
    });
    // Odd updates and objectives are the session's to refuse as well.
    expect(() =>
      guard.check({ id: 'u1', name: 'BankCheckBalance', updates: 'x', objective: 5 as never }),
    ).not.toThrow();
  });

  it('never throws on any value as a call (property)', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (id, name, args) => {
        const { guard } = bankGuard();
        for (const call of [id, { id, name, args }, { id: 'c1', name, args }]) {
          const decision = guard.check(call as ToolCall);
          expect(['run', 'ask', 'refuse']).toContain(decision.action);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('Guard.state', () => {
  it('tells where each checked call stands, and undefined for any other id', () => {
    const { guard } = bankGuard();
    expect(guard.state('b0')).toBeUndefined();
    guard.check({ id: 'b0', name: 'BankCheckBalance', args: {} });
    expect(guard.state('b0')).toBe('running');
    guard.result('b0', { error: 'timeout' });
    expect(guard.state('b0')).toBe('failed');
    guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} });
    guard.result('b1', { output: { balance: 1500 } });
    expect(guard.state('b1')).toBe('done');
    guard.check({ id: 't1', name: 'BankTransfer', args: { to: 'Mallory', amount: 5 } });
    expect(guard.state('t1')).toBe('refused');
    const transfer = { id: 't2', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } };
    expect(guard.check(transfer).action).toBe('ask');
    expect(guard.state('t2')).toBe('asked');
    guard.approve('t2', false);
    expect(guard.state('t2')).toBe('denied');
    expect(guard.state(7 as never)).toBeUndefined();
  });
});
