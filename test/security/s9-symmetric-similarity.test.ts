import { describe, expect, it } from 'vitest';
import { defaultSimilarityThreshold, lexicalSimilarity } from '../../src/index.js';
import { guardedSpec, sendMoney } from './text-tools.js';

/**
 * S9: `~` took the best of Dice and 0.9 × the share of the shorter text's words found in
 * the longer one, so any text containing the target word was similar to it. The lexical
 * measure is now symmetric edit distance over the normalized texts: every extra word on
 * either side lowers the score.
 */
const rule = 'SendMoney(to ~ "Alice", amount <= 100) -> Paid\nPaid -> Done';
const wordPlus = [
  'Alice Mallory',
  'Mallory alice',
  'send to Mallory instead of alice',
  `${'x'.repeat(100)} alice`,
];

describe('S9: extra words make a text less similar, not similar', () => {
  it.each(wordPlus)('SendMoney(to ~ "Alice") refuses %j', (to) => {
    expect(sendMoney(rule, { to })).toMatchObject({ decision: 'revise', severity: 'hard' });
  });

  it.each(['Alicia', 'Mallory'])('SendMoney(to ~ "Alice") still refuses %j', (to) => {
    expect(sendMoney(rule, { to })).toMatchObject({ decision: 'revise', severity: 'hard' });
  });

  it.each(['Alice', 'alice', ' ALICE ', 'Alcie'])('SendMoney(to ~ "Alice") allows %j', (to) => {
    expect(sendMoney(rule, { to }).decision).toBe('allow');
  });

  it('reject SendMoney(to !~ "Alice") fires for "Mallory alice"', () => {
    const spec = guardedSpec('reject SendMoney(to !~ "Alice")');
    expect(sendMoney(spec, { to: 'Mallory alice' }).decision).toBe('reject');
    expect(sendMoney(spec, { to: 'Alice' }).decision).toBe('allow');
  });

  it.each(wordPlus)('scores %j against "Alice" the same both ways, below the threshold', (text) => {
    const forward = lexicalSimilarity(text, 'Alice');
    expect(lexicalSimilarity('Alice', text)).toBe(forward);
    expect(forward).toBeLessThan(defaultSimilarityThreshold);
  });
});
