import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createGuard } from '../../guard/index.js';
import { loadToolSchema } from '../../schema/index.js';
import { finishedMessage, finishTool } from './finish.js';

const examples = new URL('../../../examples/', import.meta.url);
const specText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;

/** A guard where the balance was checked ($800): Done holds by the low-balance branch. */
function lowBalance() {
  const guard = createGuard(specText, schema, { now: '2025-03-14T12:00' });
  guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} });
  guard.result('b1', { output: { balance: 800 } });
  return guard;
}

describe('finishTool: the final answer', () => {
  it('refuses an answer that shows a transfer that never ran, and accepts a true one', () => {
    const guard = lowBalance();
    const tool = finishTool(guard);
    const refused = tool.execute({
      answer:
        'Action: BankTransfer\nAction Input: {"to": "Alice", "amount": 500}\nSent Alice $500.',
    });
    expect(refused).toContain('never carried out: BankTransfer');
    expect(guard.status().finished).toBe(false);
    expect(tool.execute({ answer: 'Your balance is $800, so I sent nothing.' })).toBe(
      finishedMessage,
    );
  });

  it('takes an optional answer: no answer finishes as before, a non-text one is an input error', () => {
    const validate = finishTool(lowBalance()).inputSchema['~standard'].validate;
    expect(validate({})).toEqual({ value: {} });
    expect(validate({ answer: 'Done.' })).toEqual({ value: { answer: 'Done.' } });
    expect(validate({ answer: 42 })).toEqual({ issues: [{ message: 'answer must be text' }] });
    expect(finishTool(lowBalance()).execute({})).toBe(finishedMessage);
  });
});

describe('finishTool: calls still running', () => {
  /** A guard whose approved transfer is still running: the task is done once it returns. */
  function transferring(finishWaitsForResults: boolean) {
    const guard = createGuard(specText, schema, {
      now: '2025-03-14T12:00',
      finishWaitsForResults,
    });
    guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} });
    guard.result('b1', { output: { balance: 1500 } });
    guard.check({ id: 't1', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } });
    expect(guard.approve('t1', true).action).toBe('run');
    return guard;
  }

  it('waits for their results by default, as the guard does', () => {
    const guard = transferring(true);
    expect(finishTool(guard).execute({})).toMatch(
      /^intentguard: revise \(hard\)\.\nThe results of BankTransfer \(t1\) have not come yet/,
    );
    expect(guard.status().finished).toBe(false);
  });

  it('finishes at once when the host set finishWaitsForResults: false', () => {
    const guard = transferring(false);
    expect(guard.status().runningIds).toEqual(['t1']);
    expect(finishTool(guard).execute({})).toBe(finishedMessage);
    expect(guard.status().finished).toBe(true);
  });
});
