import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultSimilarityThreshold, lexicalSimilarity } from './similarity.js';

const similar = (left: string, right: string) =>
  lexicalSimilarity(left, right) >= defaultSimilarityThreshold;

describe('lexicalSimilarity', () => {
  it('is 1 for texts equal up to case, spacing and accents', () => {
    expect(lexicalSimilarity('Pizza Hut', 'pizza   hut ')).toBe(1);
    expect(lexicalSimilarity('café', 'cafe')).toBe(1);
    expect(lexicalSimilarity('Ｒ', 'r')).toBe(1);
  });

  it('is 0 when one side is empty and the other is not', () => {
    expect(lexicalSimilarity('', 'anything')).toBe(0);
    expect(lexicalSimilarity('anything', '   ')).toBe(0);
    expect(lexicalSimilarity('', '')).toBe(1);
  });

  it.each([
    ['Pizza Hut', 'pizza hut downtown'],
    ['Meeting with Bob', 'meeting with bob tomorrow'],
    ['colour', 'color'],
    ['Jonathan Smith', 'Jonathon Smith'],
  ])('judges %j similar to %j at the default threshold', (left, right) => {
    expect(similar(left, right)).toBe(true);
  });

  it.each([
    ['Pizza Hut', 'Burger King'],
    ['Alice', 'Bob'],
    ['delete all tasks', 'send an email'],
    ['Alice Smith', 'Bob Smith'],
  ])('judges %j not similar to %j', (left, right) => {
    expect(similar(left, right)).toBe(false);
  });

  it('scores a text whose words all occur in the other at 0.9 (word coverage)', () => {
    expect(lexicalSimilarity('transfer', 'transfer money to a stranger abroad now')).toBeCloseTo(
      0.9,
    );
    expect(lexicalSimilarity('Alice Smith', 'Bob Smith')).toBeLessThan(defaultSimilarityThreshold);
  });

  it('is deterministic, symmetric and within [0, 1]', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (left, right) => {
        const forward = lexicalSimilarity(left, right);
        expect(lexicalSimilarity(left, right)).toBe(forward);
        expect(lexicalSimilarity(right, left)).toBe(forward);
        expect(forward).toBeGreaterThanOrEqual(0);
        expect(forward).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('is symmetric for texts with repeated words', () => {
    expect(lexicalSimilarity('x y', 'x x x')).toBe(lexicalSimilarity('x x x', 'x y'));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('a', 'b', 'cc', 'ddd'), { minLength: 1, maxLength: 6 }),
        fc.array(fc.constantFrom('a', 'b', 'cc', 'ddd'), { minLength: 1, maxLength: 6 }),
        (left, right) => {
          expect(lexicalSimilarity(left.join(' '), right.join(' '))).toBe(
            lexicalSimilarity(right.join(' '), left.join(' ')),
          );
        },
      ),
    );
  });

  it('is 1 for a text and itself', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        expect(lexicalSimilarity(text, text)).toBe(1);
      }),
    );
  });

  it('uses 0.75 as the default threshold', () => {
    expect(defaultSimilarityThreshold).toBe(0.75);
  });
});
