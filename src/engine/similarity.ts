import { normalizeText } from '../language/index.js';

/**
 * Semantic similarity for `~` and `!~`: a number in [0, 1]. The engine is
 * synchronous, so an embedding-backed measure must answer from a cache it filled
 * beforehand; this lexical measure is the deterministic default and the offline
 * fallback.
 */
export type SimilarityFunction = (left: string, right: string) => number;

/** The default threshold at or above which two texts are similar. */
export const defaultSimilarityThreshold = 0.75;

function bigrams(text: string): Map<string, number> {
  const padded = ` ${text} `;
  const counts = new Map<string, number>();
  for (let index = 0; index < padded.length - 1; index++) {
    const gram = padded.slice(index, index + 2);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

/**
 * Sørensen–Dice over character bigrams of the normalised texts, or the share of the
 * shorter text's words found in the longer one when that is higher — so that
 * "Pizza Hut" is similar to "pizza hut downtown" and "cafe" to "café".
 */
export const lexicalSimilarity: SimilarityFunction = (left, right) => {
  const a = normalizeText(left).normalize('NFD').replace(/\p{M}/gu, '');
  const b = normalizeText(right).normalize('NFD').replace(/\p{M}/gu, '');
  if (a === b) return 1;
  if (a.length === 0 || b.length === 0) return 0;
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
  const dice = (2 * shared) / (totalA + totalB);
  // Distinct words on both sides, so that the measure is symmetric: sim(a, b) = sim(b, a).
  const wordsA = new Set(a.split(' '));
  const wordsB = new Set(b.split(' '));
  const [shorter, longer] = wordsA.size <= wordsB.size ? [wordsA, wordsB] : [wordsB, wordsA];
  let found = 0;
  for (const word of shorter) if (longer.has(word)) found++;
  const covered = found / shorter.size;
  return Math.max(dice, covered * 0.9);
};
