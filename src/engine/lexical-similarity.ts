import { normalizeText } from '../language/index.js';
import type { SimilarityFunction } from './similarity.js';

/*
 * The default measure of `~` and `!~` (LANGUAGE.md §5.1), a part of its own: a page's guard
 * loads it only for a spec that compares by similarity (similarity.ts).
 */

/** Texts at most this long are compared by edit distance; longer ones by bigrams. */
const editDistanceLength = 256;

function bigrams(text: string): Map<string, number> {
  const padded = ` ${text} `;
  const counts = new Map<string, number>();
  for (let index = 0; index < padded.length - 1; index++) {
    const gram = padded.slice(index, index + 2);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/** Sørensen–Dice over character bigrams: linear, for long texts. */
function dice(a: string, b: string): number {
  const gramsA = bigrams(a);
  const gramsB = bigrams(b);
  let shared = 0;
  let totalA = 0;
  let totalB = 0;
  for (const count of gramsA.values()) totalA += count;
  for (const [gram, count] of gramsB) {
    totalB += count;
    shared += Math.min(count, gramsA.get(gram) ?? 0);
  }
  return (2 * shared) / (totalA + totalB);
}

/**
 * Optimal string alignment distance (Levenshtein with adjacent transpositions) over
 * code points, in three rows.
 */
function editDistance(a: readonly string[], b: readonly string[]): number {
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (before[j - 2] ?? 0) + 1);
      }
      current[j] = best;
    }
    [before, previous, current] = [previous, current, before];
  }
  return previous[b.length] ?? 0;
}

function editSimilarity(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  return 1 - editDistance(left, right) / Math.max(left.length, right.length);
}

const sortedWords = (text: string): string => text.split(' ').sort().join(' ');

function comparable(text: string): string {
  return normalizeText(text).normalize('NFD').replace(/\p{M}/gu, '');
}

/**
 * A symmetric lexical similarity of the normalized texts, accents ignored: one minus
 * the edit distance (with transpositions) over the longer length, also tried with the
 * words in sorted order ("Smith Alice" is "Alice Smith"); Sørensen–Dice over bigrams
 * for texts longer than 256 characters. Every extra word on either side lowers the
 * score — "Mallory alice" is not similar to "Alice" — and typos cost one edit each:
 * "colour" ≈ "color", "Jonathan Smith" ≈ "Jonathon Smith", "cafe" = "café".
 */
export const lexicalSimilarity: SimilarityFunction = (left, right) => {
  const a = comparable(left);
  const b = comparable(right);
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
  if (a.length > editDistanceLength || b.length > editDistanceLength) return dice(a, b);
  const direct = editSimilarity(a, b);
  if (!a.includes(' ') && !b.includes(' ')) return direct;
  return Math.max(direct, editSimilarity(sortedWords(a), sortedWords(b)));
};
