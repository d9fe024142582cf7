import { describe, expect, it } from 'vitest';
import { BoundedMemo } from '../../src/engine/bounded-memo.js';
import { createSession, defaultLimits, loadStateSchema } from '../../src/index.js';
import {
  balanceOf,
  bankSchema,
  checkBalance,
  exampleText,
  fixedNow,
  sessionFor,
  specFor,
  transfer,
} from './support.js';

/**
 * S4, D11: what a session remembers is bounded. The refusal memos are LRUs bounded in
 * entries and characters, and forgetting only ever errs toward refusing again.
 */
const bankText = exampleText('bank-transfer/spec.intent');

describe('S4: the refusal memos are bounded LRUs', () => {
  it('evicts the least recently used entry by count and by characters', () => {
    const memo = new BoundedMemo<number>(3, 1_000);
    memo.set('a', 1);
    memo.set('b', 2);
    memo.set('c', 3);
    expect(memo.get('a')).toBe(1); // a is now the most recent
    memo.set('d', 4);
    expect([memo.has('a'), memo.has('b'), memo.has('c'), memo.has('d')]).toEqual([
      true,
      false,
      true,
      true,
    ]);
    const small = new BoundedMemo<number>(100, 10);
    small.set('12345', 1);
    small.set('67890', 2);
    small.set('abc', 3);
    expect(small.has('12345')).toBe(false);
    expect(small.characters).toBeLessThanOrEqual(10);
    small.set('x'.repeat(11), 4); // larger than the whole budget: not kept
    expect(small.has('x'.repeat(11))).toBe(false);
    expect(small.size).toBe(2);
  });

  it('refuses a soft deviation again once it was evicted (never allows it as a repeat)', () => {
    const schema = loadStateSchema(exampleText('restaurant/states.json'));
    if (!schema.ok) throw new Error('restaurant states');
    const session = createSession(specFor(exampleText('restaurant/spec.intent'), schema.value), {
      now: fixedNow,
      limits: { maxRefusalMemo: 2 },
    });
    session.propose({ updates: { RestaurantInfo: { name: 'R' } } });
    const late = { updates: { ReserveInfo: { date: '2025-03-14', time: '20:00' } } };
    expect(session.propose(late).severity).toBe('soft');
    for (const time of ['20:30', '21:00']) {
      expect(
        session.propose({ updates: { ReserveInfo: { date: '2025-03-14', time } } }).severity,
      ).toBe('soft');
    }
    // Evicted: the identical proposal is refused softly again instead of passing as a repeat.
    expect(session.propose(late).severity).toBe('soft');
    expect(session.propose(late).decision).toBe('allow');
  });

  it('keeps hard-refusal counts for escalation in a bounded memo', () => {
    const session = sessionFor(bankText, bankSchema(), { limits: { maxRefusalMemo: 2 } });
    session.propose(checkBalance);
    session.observe(balanceOf(1500));
    const wrong = transfer('Mallory', 100);
    for (let attempt = 0; attempt < 3; attempt++)
      expect(session.propose(wrong).reasons[0]?.code).toBe('unmet-conditions');
    // Two other refusals push Mallory's count out: it starts again rather than escalating.
    session.propose(transfer('Eve', 100));
    session.propose(transfer('Oscar', 100));
    expect(session.propose(wrong).reasons[0]?.code).toBe('unmet-conditions');
  });

  it('caps the history of a long session', () => {
    const session = sessionFor(bankText, bankSchema(), { historyLimit: 50 });
    session.propose(checkBalance);
    session.observe(balanceOf(1500));
    for (let index = 0; index < 5_000; index++) session.propose(transfer(`Bob${index}`, 100));
    expect(session.history.length).toBeLessThanOrEqual(50 + 51);
    expect(session.status().proposals).toBe(5_001);
  });

  it('cuts feedback and roadmap to maxFeedbackLength', () => {
    const rules = Array.from(
      { length: 40 },
      (_, index) =>
        `BalanceKnown & BankTransfer(to = "Payee number ${index}", amount = ${index + 1}) -> Paid${index}`,
    );
    const text = `BankCheckBalance() -> BalanceKnown\n${rules.join('\n')}\n${rules
      .map((_, index) => `Paid${index} -> Done`)
      .join('\n')}`;
    const session = sessionFor(text, bankSchema(), { limits: { maxFeedbackLength: 400 } });
    const verdict = session.propose({ finish: true });
    expect(verdict.decision).toBe('revise');
    expect(verdict.feedback.length).toBeLessThanOrEqual(400);
    expect(verdict.feedback).toContain('(cut: the feedback was longer than the limit)');
    expect(verdict.roadmap?.length).toBeLessThanOrEqual(400);
    const roomy = sessionFor(text, bankSchema());
    expect(roomy.propose({ finish: true }).feedback.length).toBeGreaterThan(400);
  });

  it('documents its defaults in the one limits object', () => {
    expect(defaultLimits).toMatchObject({
      maxRefusalMemo: 1_024,
      maxRefusalMemoCharacters: 4_000_000,
      maxHistory: 10_000,
    });
    expect(Object.isFrozen(defaultLimits)).toBe(true);
  });
});

describe('D11: a session without a spec has a bounded history too', () => {
  it('caps NoSpecSession history at the history limit', () => {
    const session = createSession(undefined, { historyLimit: 10 });
    for (let index = 0; index < 3_000; index++) session.propose({ finish: true });
    expect(session.history.length).toBeLessThanOrEqual(10 + 11);
    expect(session.status().proposals).toBe(3_000);
    const byDefault = createSession(undefined);
    for (let index = 0; index < defaultLimits.maxHistory + 2_000; index++) byDefault.propose({});
    expect(byDefault.history.length).toBeLessThan(defaultLimits.maxHistory + 1_025);
  });
});
