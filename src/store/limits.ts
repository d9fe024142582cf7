/**
 * Bounds of the experience memory. Instructions come from users and specs from LLMs;
 * the file must not grow without limit, and one hostile entry must not make queries
 * slow. Exceeding a size limit is an error; exceeding a count limit drops the oldest.
 */
export interface MemoryLimits {
  /** Entries kept; beyond it the oldest pending entries go first, then the oldest. */
  readonly maxEntries: number;
  readonly maxInstructionLength: number;
  readonly maxSpecLength: number;
  readonly maxNoteLength: number;
  readonly maxSchemaIdLength: number;
  readonly maxModelLength: number;
  /** Words of an instruction used in a full-text query. */
  readonly maxQueryTerms: number;
  /** Rows one search or list returns. */
  readonly maxResults: number;
  /** Embeddings kept in the cache table; the oldest go first. */
  readonly maxEmbeddings: number;
  readonly maxEmbeddingTextLength: number;
  readonly maxEmbeddingDimensions: number;
}

export const defaultMemoryLimits: MemoryLimits = Object.freeze({
  maxEntries: 10_000,
  maxInstructionLength: 4_000,
  maxSpecLength: 64_000,
  maxNoteLength: 2_000,
  maxSchemaIdLength: 200,
  maxModelLength: 200,
  maxQueryTerms: 32,
  maxResults: 100,
  maxEmbeddings: 50_000,
  maxEmbeddingTextLength: 2_000,
  maxEmbeddingDimensions: 8_192,
});
