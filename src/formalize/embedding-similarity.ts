import { lexicalSimilarity, type SimilarityFunction } from '../engine/index.js';
import type { CheckedConstraint, Literal, Spec } from '../language/index.js';
import { errorMessage } from '../support/error-message.js';
import type { EmbeddingCache } from './experience.js';
import type { EmbeddingModel } from './model/model.js';

export interface EmbeddingSimilarityOptions {
  readonly model: EmbeddingModel;
  /** A persistent cache (the SQLite store) consulted before the model and filled after it. */
  readonly cache?: EmbeddingCache;
  /** Answers pairs that are not both cached (default `lexicalSimilarity`). */
  readonly fallback?: SimilarityFunction;
  /** Texts kept in memory (default 10,000); the oldest are dropped first. */
  readonly maxCached?: number;
  /** Characters of one text sent to the model (default 2,000). */
  readonly maxTextLength?: number;
  /** Texts per embedding request (default 256). */
  readonly batchSize?: number;
}

/**
 * `~` similarity backed by embeddings. The engine is synchronous, so embeddings are
 * fetched ahead of time with `prepare`; `similarity` answers from the cache (cosine,
 * clamped to [0, 1]) and falls back to the lexical measure for a text it has not
 * seen, or when the model could not be reached.
 */
export interface EmbeddingSimilarity {
  /** Embeds the texts not cached yet. Never rejects: failures leave the fallback in charge. */
  prepare(
    texts: Iterable<string>,
    signal?: AbortSignal,
  ): Promise<{ readonly embedded: number; readonly error?: string }>;
  readonly similarity: SimilarityFunction;
  /** Whether a text has an embedding cached. */
  has(text: string): boolean;
}

/** Cosine similarity of two embeddings; NaN when it is undefined (unequal or zero vectors). */
export function cosine(left: readonly number[], right: readonly number[]): number {
  if (left.length !== right.length || left.length === 0) return Number.NaN;
  let dot = 0;
  let normLeft = 0;
  let normRight = 0;
  for (let index = 0; index < left.length; index++) {
    const a = left[index] ?? 0;
    const b = right[index] ?? 0;
    dot += a * b;
    normLeft += a * a;
    normRight += b * b;
  }
  if (normLeft === 0 || normRight === 0) return Number.NaN;
  return dot / Math.sqrt(normLeft * normRight);
}

/**
 * Creates an embedding-backed similarity.
 *
 * @example
 * const similar = createEmbeddingSimilarity({ model: createEmbeddingModel('openai:text-embedding-3-small', { env }) });
 * await similar.prepare([...textsInSpec(spec), 'Pizza Hut downtown']);
 * const session = createSession(spec, { similarity: similar.similarity });
 */
export function createEmbeddingSimilarity(
  options: EmbeddingSimilarityOptions,
): EmbeddingSimilarity {
  const fallback = options.fallback ?? lexicalSimilarity;
  const maxCached = options.maxCached ?? 10_000;
  const maxTextLength = options.maxTextLength ?? 2000;
  const batchSize = Math.max(1, options.batchSize ?? 256);
  const cache = new Map<string, readonly number[]>();
  const key = (text: string) => text.slice(0, maxTextLength);

  const remember = (text: string, embedding: readonly number[]) => {
    cache.delete(text);
    cache.set(text, embedding);
    while (cache.size > maxCached) {
      const oldest = cache.keys().next().value;
      if (oldest === undefined) break;
      cache.delete(oldest);
    }
  };

  return {
    has: (text) => cache.has(key(text)),
    similarity: (left, right) => {
      const a = cache.get(key(left));
      const b = cache.get(key(right));
      if (a === undefined || b === undefined) return fallback(left, right);
      const value = cosine(a, b);
      return Number.isNaN(value) ? fallback(left, right) : Math.min(1, Math.max(0, value));
    },
    async prepare(texts, signal) {
      const wanted = [...new Set([...texts].map(key))].filter(
        (text) => text.trim() !== '' && !cache.has(text),
      );
      if (wanted.length === 0) return { embedded: 0 };
      let missing = wanted;
      if (options.cache) {
        try {
          const stored = options.cache.getEmbeddings(options.model.id, wanted);
          for (const [text, embedding] of stored) remember(text, embedding);
          missing = wanted.filter((text) => !stored.has(text));
        } catch {
          // A broken cache is only slower: ask the model.
        }
      }
      let embedded = 0;
      try {
        for (let start = 0; start < missing.length; start += batchSize) {
          const batch = missing.slice(start, start + batchSize);
          const response = await options.model.embed(batch, signal);
          const fresh = new Map<string, readonly number[]>();
          batch.forEach((text, index) => {
            const embedding = response.embeddings[index];
            if (embedding && embedding.length > 0) fresh.set(text, embedding);
          });
          for (const [text, embedding] of fresh) remember(text, embedding);
          embedded += fresh.size;
          try {
            options.cache?.putEmbeddings(options.model.id, fresh);
          } catch {
            // Not persisting is not a failure of the check.
          }
        }
        return { embedded };
      } catch (error) {
        return { embedded, error: errorMessage(error) };
      }
    },
  };
}

/** The text constants that `~` and `!~` compare against in a spec's rules and guards. */
export function textsInSpec(spec: Spec): string[] {
  const texts = new Set<string>();
  const collect = (literal: Literal) => {
    if (literal.kind === 'text' || literal.kind === 'enum') texts.add(literal.value);
    else if (literal.kind === 'list') literal.elements.forEach(collect);
  };
  const visit = (constraint: CheckedConstraint) => {
    if (constraint.operator === '~' || constraint.operator === '!~') collect(constraint.value);
  };
  for (const rule of spec.rules) {
    for (const pattern of [...rule.states, ...(rule.action ? [rule.action] : [])])
      pattern.constraints.forEach(visit);
  }
  for (const guard of spec.guards) guard.pattern.constraints.forEach(visit);
  return [...texts];
}
