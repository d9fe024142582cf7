/**
 * Persistence (Node only: SQLite through better-sqlite3). Experience memory for the
 * formalizer: specs that worked, found again by full-text search, and an embedding
 * cache; and the check of the hash-chained audit log that `intentguard serve` and
 * `intentguard mcp-proxy` keep.
 *
 * The complete public surface of `intentguard/store`, pinned by
 * `test/architecture/public-api.test.ts`: named exports only.
 */

export {
  type AuditVerification,
  verifyAuditChain,
} from './audit-chain.js';
export { verifyAuditFile } from './audit-file.js';
export {
  ExperienceMemory,
  type ExperienceMemoryOptions,
  type MemoryEntry,
  MemoryError,
  type MemoryErrorCode,
  type MemoryOutcome,
  type MemorySearch,
  memoryOutcomes,
  type NewMemoryEntry,
} from './experience-memory.js';
export { defaultMemoryLimits, type MemoryLimits } from './limits.js';
