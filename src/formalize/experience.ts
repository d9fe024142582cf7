/**
 * What the formalizer needs from an experience memory (VeriSafe Agent's
 * experience-driven encoding). The formalizer sits below the store layer, so it
 * names the shape; `ExperienceMemory` in `store/` provides it.
 */

export type ExperienceOutcome = 'success' | 'failure' | 'pending';

/** A spec recorded for an instruction on a schema, with what became of it. */
export interface Experience {
  readonly id: number;
  readonly instruction: string;
  readonly schemaId: string;
  readonly spec: string;
  readonly outcome: ExperienceOutcome;
}

export interface ExperienceQuery {
  readonly schemaId: string;
  readonly limit: number;
  /** Only entries with this outcome. */
  readonly outcome?: ExperienceOutcome;
}

/** Retrieves recorded specs for instructions similar to a new one, most similar first. */
export interface ExperienceSource {
  search(
    instruction: string,
    query: ExperienceQuery,
  ): readonly Experience[] | Promise<readonly Experience[]>;
  /**
   * Recent entries, newest first. When given, the formalizer also ranks these by
   * meaning, so that an instruction sharing no exact word with a remembered one
   * ("Setting alarms" and "set an alarm", or with embeddings "wake me up at 6") is
   * still recalled.
   */
  list?(query: ExperienceQuery): readonly Experience[] | Promise<readonly Experience[]>;
}

/** A persistent cache of embeddings, keyed by model and text. */
export interface EmbeddingCache {
  getEmbeddings(model: string, texts: readonly string[]): ReadonlyMap<string, readonly number[]>;
  putEmbeddings(model: string, embeddings: ReadonlyMap<string, readonly number[]>): void;
}
