import { IntentguardError } from '../language/index.js';
import { missingPart } from './engine-parts.js';

/**
 * Semantic similarity for `~` and `!~`: a number in [0, 1]. The engine is
 * synchronous, so an embedding-backed measure must answer from a cache it filled
 * beforehand; this lexical measure is the deterministic default and the offline
 * fallback.
 */
export type SimilarityFunction = (left: string, right: string) => number;

/** The default threshold at or above which two texts are similar. */
export const defaultSimilarityThreshold = 0.75;

/**
 * A similarity function answered something other than a number in [0, 1]. A guard
 * that compares by `~` must not silently stop firing because an embedding cache
 * missed (`undefined`) or a cosine came out `NaN`: the check fails closed instead.
 */
export class InvalidSimilarityError extends IntentguardError {
  static override readonly marker = 'intentguard.error.InvalidSimilarityError';
  override readonly name = 'InvalidSimilarityError';
  override readonly code = 'invalid-similarity';

  constructor(message: string) {
    super({ code: 'invalid-similarity', message });
  }
}

function describeResult(result: unknown): string {
  if (typeof result === 'string') return `the string ${JSON.stringify(result.slice(0, 40))}`;
  if (typeof result === 'object' && result !== null) return 'an object';
  return String(result);
}

/** Calls the similarity function and insists on a number in [0, 1] (LANGUAGE.md §5.1). */
export function similarityOf(similarity: SimilarityFunction, left: string, right: string): number {
  const result: unknown = similarity(left, right);
  if (typeof result === 'number' && result >= 0 && result <= 1) return result;
  throw new InvalidSimilarityError(
    `The similarity function returned ${describeResult(result)} for ${JSON.stringify(right.slice(0, 40))}; it must return a number in [0, 1].`,
  );
}

/**
 * The similarity of a session given none, and given no lexical measure either
 * (`EngineParts.lexicalSimilarity`): a spec that compares by `~` is refused when it is
 * compiled (`requireSimilarity`), and a comparison never holds by default: it throws,
 * and the session refuses (fail closed).
 */
export const missingSimilarity: SimilarityFunction = () => {
  throw missingPart('lexicalSimilarity');
};

/** Called where a `~` is compiled: a measure must be there to compare by it. */
export function requireSimilarity(similarity: SimilarityFunction): void {
  if (similarity === missingSimilarity) throw missingPart('lexicalSimilarity');
}
