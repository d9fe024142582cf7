import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lexicalSimilarity } from './lexical-similarity.js';
import { defaultSimilarityThreshold, InvalidSimilarityError, similarityOf } from './similarity.js';

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
    ['colour', 'color'],
    ['Jonathan Smith', 'Jonathon Smith'],
    ['Alcie', 'Alice'],
    ['Smith Alice', 'Alice Smith'],
    ['Crème brûlée', 'creme brulee'],
  ])('judges %j similar to %j at the default threshold', (left, right) => {
    expect(similar(left, right)).toBe(true);
  });

  it.each([
    ['Pizza Hut', 'Burger King'],
    ['Alice', 'Bob'],
    ['delete all tasks', 'send an email'],
    ['Alice Smith', 'Bob Smith'],
    ['Alicia', 'Alice'],
  ])('judges %j not similar to %j', (left, right) => {
    expect(similar(left, right)).toBe(false);
  });

  it.each([
    ['Mallory alice', 'Alice'],
    ['Alice Mallory', 'Alice'],
    ['send to Mallory instead of alice', 'Alice'],
    [`${'x'.repeat(100)} alice`, 'Alice'],
    ['Pizza Hut', 'pizza hut downtown'],
    ['Meeting with Bob', 'meeting with bob tomorrow'],
    ['transfer', 'transfer money to a stranger abroad now'],
  ])('lowers the score for extra words: %j is not similar to %j', (left, right) => {
    expect(similar(left, right)).toBe(false);
    expect(similar(right, left)).toBe(false);
  });

  it('scores fewer extra words higher, never reaching a shared word alone', () => {
    const one = lexicalSimilarity('Alice Mallory', 'Alice');
    const two = lexicalSimilarity('Alice Mallory Eve', 'Alice');
    expect(two).toBeLessThan(one);
    expect(one).toBeLessThan(defaultSimilarityThreshold);
  });

  it('compares long texts in linear time', () => {
    const long = `${'lorem ipsum '.repeat(20_000)}alice`;
    const started = performance.now();
    expect(lexicalSimilarity(long, `${long} bob`)).toBeGreaterThan(0.99);
    expect(lexicalSimilarity(long, 'Alice')).toBeLessThan(0.01);
    expect(performance.now() - started).toBeLessThan(2_000);
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

describe('similarityOf', () => {
  it('passes a number in [0, 1] through', () => {
    expect(similarityOf(() => 0, 'a', 'b')).toBe(0);
    expect(similarityOf(() => 0.5, 'a', 'b')).toBe(0.5);
    expect(similarityOf(() => 1, 'a', 'b')).toBe(1);
  });

  it.each([
    ['NaN', Number.NaN],
    ['undefined', undefined],
    ['null', null],
    ['-1', -1],
    ['2', 2],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '0.9'],
  ])('throws a clear error for %s', (_, result) => {
    const similarity = () => result as unknown as number;
    expect(() => similarityOf(similarity, 'Mallory', 'Mallory')).toThrow(InvalidSimilarityError);
    expect(() => similarityOf(similarity, 'Mallory', 'Mallory')).toThrow(
      /must return a number in \[0, 1\]/,
    );
  });
});
