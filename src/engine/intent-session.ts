import type {
  HistoryEntry,
  ObservationResult,
  ResolutionResult,
  SessionStatus,
} from './session-types.js';
import type { Verdict } from './verdict.js';

/**
 * What every session answers, whatever decides behind it: one spec (`Session`), no
 * spec (`NoSpecSession`, which refuses everything critical) or a majority of specs
 * (`MajoritySession`). Hosts and integrations program against this, so that any of
 * them can stand behind a guard. Synchronous and deterministic for a fixed clock;
 * `propose` never throws.
 *
 * @example
 * function step(session: IntentSession, proposal: unknown): boolean {
 *   const verdict = session.propose(proposal);
 *   if (verdict.decision === 'confirm') return session.resolve(askUser(verdict.feedback)).committed;
 *   return verdict.decision === 'allow';
 * }
 */
export interface IntentSession {
  /** Decides a proposed action (FORMATS.md §2) before it runs. */
  propose(input: unknown): Verdict;
  /** Applies what the app or a tool reports after an action. All or nothing. */
  observe(input: unknown): ObservationResult;
  /** Answers the latest `confirm`: approval commits that proposal, denial nothing. */
  resolve(approved: boolean): ResolutionResult;
  status(): SessionStatus;
  /** What remains to do, as text for the agent. */
  roadmap(): string;
  /** What happened, newest last; bounded by `historyLimit`. */
  readonly history: readonly HistoryEntry[];
}
