import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Reason, Verdict } from '../engine/verdict.js';
import { unwrap } from '../language/index.js';
import { loadToolSchema } from '../schema/index.js';
import { createGuard } from './create-guard.js';
import { maxPromptLength, personPrompt } from './person-prompt.js';

const root = join(import.meta.dirname, '../..');
const bankSpec = readFileSync(join(root, 'examples/bank-transfer/spec.intent'), 'utf8');
const bankTools = readFileSync(join(root, 'examples/bank-transfer/tools.json'), 'utf8');

function askedTransfer(options: { task?: string; description?: string } = {}) {
  const tools = JSON.parse(bankTools) as { tools: { name: string; description: string }[] };
  if (options.description !== undefined)
    for (const tool of tools.tools)
      if (tool.name === 'BankTransfer') tool.description = options.description;
  const schema = unwrap(loadToolSchema(JSON.stringify(tools)));
  const guard = createGuard(bankSpec, schema, {
    now: new Date(),
    ...(options.task !== undefined ? { task: options.task } : {}),
  });
  guard.check({ id: 'b', name: 'BankCheckBalance', args: {} });
  guard.result('b', { output: { balance: 1500 } });
  return guard.check({ id: 't', name: 'BankTransfer', args: { amount: 500, to: 'Alice' } });
}

describe('the question a person approves, in plain words', () => {
  it("names the action in the tool description's words, its arguments, the reason and the task", () => {
    const decision = askedTransfer({ task: 'Transfer $500 to Alice if my balance exceeds $1000.' });
    expect(decision.action).toBe('ask');
    expect(decision.prompt).toBe(
      'Transfers money from the user\'s checking account to a payee (BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details with the user. (financial) You asked: "Transfer $500 to Alice if my balance exceeds $1000."',
    );
  });

  it('without a task or a description it still names the tool and asks', () => {
    const decision = askedTransfer({ description: '' });
    expect(decision.prompt).toBe(
      'Run BankTransfer with to: "Alice", amount: 500? Why: Confirm the transfer details with the user. (financial)',
    );
  });

  it('a description or task cannot forge lines or hide the arguments: escaped, cut, bounded', () => {
    const decision = askedTransfer({
      description: 'Check the weather\u202e\n to: "Bob"',
      task: `Pay\u2028${'t'.repeat(50_000)}`,
    });
    expect(decision.action).toBe('ask');
    expect(decision.prompt).not.toMatch(/[\u2028\u202e\n]/);
    expect(decision.prompt).toContain('with to: "Alice", amount: 500?');
    expect(decision.prompt).toMatch(
      /You asked: "Pay\\u2028t+…\[[\d,]+ characters not shown\]…t+"$/,
    );
    expect(decision.prompt.length).toBeLessThanOrEqual(maxPromptLength);
  });

  it('a task that is not text is refused at setup', () => {
    expect(() => createGuard(bankSpec, undefined, { task: 5 as unknown as string })).toThrow(
      /options\.task/,
    );
  });
});

/** The reasons of the one question a composed confirm asks (LANGUAGE.md §8). */
const verdictOf = (reasons: Partial<Reason>[]): Verdict =>
  ({
    decision: 'confirm',
    reasons: reasons.map((reason) => ({ code: 'rule-confirm', ...reason })),
    performs: [],
    achieved: {},
    done: false,
    feedback: '',
  }) as Verdict;
const args = { to: 'Alice', amount: 500 };

describe('personPrompt with the reasons of both judges', () => {
  it("says each reason once, the policy's first, each with whose it is", () => {
    const prompt = personPrompt(
      'BankTransfer',
      args,
      verdictOf([
        { message: 'Confirm the details.', source: 'intent' },
        { message: 'Over 100 is confirmed.', source: 'policy' },
        { message: 'Confirm the details.', source: 'intent' },
      ]),
    );
    expect(prompt).toBe(
      'Run BankTransfer with to: "Alice", amount: 500? Why: Policy: Over 100 is confirmed. Task: Confirm the details.',
    );
  });

  it('says a reason both sides give once, as the policy says it', () => {
    const prompt = personPrompt(
      'BankTransfer',
      args,
      verdictOf([
        { message: 'Confirm the details.', source: 'intent' },
        { message: 'Confirm the details.', source: 'policy' },
      ]),
    );
    expect(prompt).toBe(
      'Run BankTransfer with to: "Alice", amount: 500? Why: Policy: Confirm the details.',
    );
  });

  it('a verdict without a policy reads as its reasons', () => {
    const prompt = personPrompt(
      'BankTransfer',
      args,
      verdictOf([{ message: 'Confirm the details.' }, { message: 'Mind the amount.' }]),
    );
    expect(prompt).toBe(
      'Run BankTransfer with to: "Alice", amount: 500? Why: Confirm the details. Mind the amount.',
    );
  });
});
