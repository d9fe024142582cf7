import { IntentguardError } from '../language/index.js';

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

let lexical: SimilarityFunction | undefined;

/** Registers the lexical measure (lexical-similarity.ts); the first one registered stays. */
export function provideLexicalSimilarity(measure: SimilarityFunction): void {
  lexical ??= measure;
}

/**
 * Loads the lexical measure where it is not registered: Node entry points register it at
 * once (parts-eager.ts); a page's guard loads it only for a spec that compares by `~`.
 */
export async function loadLexicalSimilarity(): Promise<void> {
  if (lexical === undefined)
    provideLexicalSimilarity((await import('./on-demand-part.js')).lexicalSimilarity);
}

function missingMeasure(): IntentguardError {
  return new IntentguardError({
    code: 'missing-part',
    message:
      'The spec compares by ~, and the lexical similarity is not loaded (loadLexicalSimilarity).',
  });
}

/**
 * The similarity of a session given none: the lexical measure, once registered. Without
 * it, a spec that compares by `~` is refused when it is compiled (`requireSimilarity`),
 * and a comparison never holds by default: it throws, and the session refuses (fail
 * closed).
 */
export const defaultSimilarity: SimilarityFunction = (left, right) => {
  if (lexical === undefined) throw missingMeasure();
  return lexical(left, right);
};

/** Called where a `~` is compiled: the default measure must be there to compare by it. */
export function requireSimilarity(similarity: SimilarityFunction): void {
  if (similarity === defaultSimilarity && lexical === undefined) throw missingMeasure();
}
