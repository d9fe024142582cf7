/**
 * The guard: the host-facing core every integration programs against (ARCHITECTURE.md
 * layer 6) — tool calls with ids, several pending approvals, results and failures with
 * rollback, and a journal to persist and restore.
 */

export { loadCompiledGuard } from './compiled-guard.js';
export { loadComposedGuard } from './composed-guard.js';
export {
  createGuard,
  formalizeInstruction,
  type GuardInstruction,
  GuardJournalError,
  restoreGuard,
} from './create-guard.js';
export { renderForModel, renderForPerson } from './render.js';
export { toolResultObservation } from './tool-results.js';
export type {
  Guard,
  GuardAction,
  GuardCallState,
  GuardDecision,
  GuardEvent,
  GuardJournal,
  GuardOptions,
  GuardStatus,
  JournalEvent,
  ToolCall,
  ToolOutcome,
} from './types.js';
