import { describe, expect, it } from 'vitest';
import type { Reason, Verdict } from '../engine/verdict.js';
import { personPrompt } from './person-prompt.js';

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
      'Allow BankTransfer {"to":"Alice","amount":500}? Policy: Over 100 is confirmed. Task: Confirm the details.',
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
      'Allow BankTransfer {"to":"Alice","amount":500}? Policy: Confirm the details.',
    );
  });

  it('a verdict without a policy reads as its reasons', () => {
    const prompt = personPrompt(
      'BankTransfer',
      args,
      verdictOf([{ message: 'Confirm the details.' }, { message: 'Mind the amount.' }]),
    );
    expect(prompt).toBe(
      'Allow BankTransfer {"to":"Alice","amount":500}? Confirm the details. Mind the amount.',
    );
  });
});
