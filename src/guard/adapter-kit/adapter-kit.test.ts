import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadToolSchema } from '../../schema/index.js';
import { createGuard } from '../create-guard.js';
import type { Guard, ToolCall } from '../types.js';
import {
  checkGuardSource,
  checkOrRefuse,
  finishOrRefuse,
  type Refusal,
  refusalCodes,
  refusalDecision,
  renderRefusal,
  resolveGuard,
} from './index.js';

const examples = new URL('../../../examples/', import.meta.url);
const bankText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;
const bankGuard = (): Guard => createGuard(bankText, schema, { now: '2025-03-14T12:00' });
const balance: ToolCall = { id: 'b1', name: 'BankCheckBalance', args: {} };

/** One example of every refusal code. */
const examplesByCode: { readonly [code in Refusal['code']]: Extract<Refusal, { code: code }> } = {
  unchecked: { code: 'unchecked', reason: 'boom' },
  'finish-unchecked': { code: 'finish-unchecked', reason: 'boom' },
  'awaiting-approval': { code: 'awaiting-approval' },
  'approval-missing': { code: 'approval-missing', question: 'Send $500 to Alice?' },
  'approval-unmatched': { code: 'approval-unmatched' },
  'user-declined': { code: 'user-declined', feedback: 'Transfers need approval.' },
  'changed-after-check': { code: 'changed-after-check', name: 'BankTransfer' },
};

describe('refusals: one English text per code', () => {
  it('renders every code, each with its own text, all starting with the prefix the model knows', () => {
    expect(Object.keys(examplesByCode).sort()).toEqual([...refusalCodes].sort());
    const texts = refusalCodes.map((code) => renderRefusal(examplesByCode[code]));
    expect(new Set(texts).size).toBe(refusalCodes.length);
    for (const text of texts) expect(text).toMatch(/^intentguard: /);
  });

  it('quotes a reason at most 300 characters long (it may be the model’s own text)', () => {
    const text = renderRefusal({ code: 'unchecked', reason: 'x'.repeat(5000) });
    expect(text).toContain(`(${'x'.repeat(300)})`);
    expect(text).not.toContain('x'.repeat(301));
  });

  it('makes a fail-closed decision: reject, internal-error, the refusal as the message', () => {
    const decision = refusalDecision('c1', { code: 'unchecked', reason: 'the store is down' });
    expect(decision).toMatchObject({
      id: 'c1',
      action: 'refuse',
      prompt: '',
      message: renderRefusal({ code: 'unchecked', reason: 'the store is down' }),
      verdict: { decision: 'reject', reasons: [{ code: 'internal-error' }] },
    });
    expect(decision.verdict.feedback).toContain('the store is down');
  });
});

describe('checkOrRefuse: the fail-closed check', () => {
  it('answers the guard’s decision when it decides', () => {
    const guard = bankGuard();
    expect(checkOrRefuse(guard, balance)).toBe(guard.decision('b1'));
    expect(checkOrRefuse(() => guard, balance).action).toBe('run');
  });

  it('refuses, with the reason, when the guard cannot be found or throws', () => {
    const errors: unknown[] = [];
    const lost = checkOrRefuse(
      () => {
        throw new Error('no guard for this chat');
      },
      balance,
      (error) => errors.push(error),
    );
    expect(lost).toMatchObject({ id: 'b1', action: 'refuse' });
    expect(lost.message).toBe(
      renderRefusal({ code: 'unchecked', reason: 'no guard for this chat' }),
    );
    expect(errors).toHaveLength(1);
    const guard = createGuard(bankText, schema, {
      now: '2025-03-14T12:00',
      render: () => {
        throw new Error('the host’s renderer failed');
      },
    });
    const refused = checkOrRefuse(guard, { id: 't1', name: 'BankTransfer', args: { to: 'M' } });
    expect(refused.message).toMatch(/could not be checked \(the host’s renderer failed\)/);
    expect(checkOrRefuse(() => ({}) as Guard, { id: 7 } as never).id).toBe('');
  });
});

describe('finishOrRefuse: the fail-closed finish', () => {
  it('asks the guard, passing only a text answer on', () => {
    const guard = bankGuard();
    expect(finishOrRefuse(guard, 42).action).toBe('refuse');
    expect(finishOrRefuse(guard, 'Done.').verdict.reasons[0]?.code).not.toBe('internal-error');
  });

  it('leaves waiting for results to the guard (finishWaitsForResults)', () => {
    /** A guard whose approved transfer is still running: the task is done once it returns. */
    const transferring = (finishWaitsForResults: boolean): Guard => {
      const guard = createGuard(bankText, schema, {
        now: '2025-03-14T12:00',
        finishWaitsForResults,
      });
      guard.check(balance);
      guard.result('b1', { output: { balance: 1500 } });
      guard.check({ id: 't1', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } });
      expect(guard.approve('t1', true).action).toBe('run');
      return guard;
    };
    const waits = finishOrRefuse(transferring(true));
    expect(waits.action).toBe('refuse');
    expect(waits.message).toContain('BankTransfer (t1) have not come yet');
    expect(finishOrRefuse(transferring(false)).action).toBe('run');
  });

  it('refuses the finish when the guard cannot be found', () => {
    const decision = finishOrRefuse(() => {
      throw new Error('gone');
    });
    expect(decision).toMatchObject({ id: '#finish', action: 'refuse' });
    expect(decision.message).toBe(renderRefusal({ code: 'finish-unchecked', reason: 'gone' }));
  });
});

describe('guard sources', () => {
  it('resolves a guard or a function of the context, and refuses anything else', () => {
    const guard = bankGuard();
    expect(resolveGuard(guard, undefined)).toBe(guard);
    expect(resolveGuard((chat: string) => (chat === 'a' ? guard : bankGuard()), 'a')).toBe(guard);
    expect(() => resolveGuard(() => ({}) as Guard, undefined)).toThrow(
      /the guard source did not return a guard/,
    );
    expect(checkGuardSource(guard, 'someAdapter')).toBe(guard);
    expect(() => checkGuardSource({}, 'someAdapter')).toThrow(/^someAdapter: 'guard' must be/);
  });
});
