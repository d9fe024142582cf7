/**
 * Persistence (Node only: SQLite through better-sqlite3). Experience memory for the
 * formalizer: specs that worked, found again by full-text search, and an embedding
 * cache.
 */
export {
  ExperienceMemory,
  type ExperienceMemoryOptions,
  type MemoryEntry,
  MemoryError,
  type MemoryOutcome,
  type MemorySearch,
  memoryOutcomes,
  type NewMemoryEntry,
} from './experience-memory.js';
export { ftsQuery } from './fts-query.js';
export { defaultMemoryLimits, type MemoryLimits } from './limits.js';
