import type { Schema } from '../language/index.js';
import type { SessionClock } from './clock.js';
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
 * (`MajoritySession`). Hosts, traces and the guard program against this, so that any of
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
  /**
   * Decides a proposed action (FORMATS.md §2) before it runs. `callId`, the host's id of
   * the tool call, keys a `confirm`: it then waits for `resolve(…, callId)` while other
   * calls are proposed. Without one a `confirm` waits only until the next proposal.
   */
  propose(input: unknown, callId?: string): Verdict;
  /** Applies what the app or a tool reports after an action. All or nothing. */
  observe(input: unknown): ObservationResult;
  /**
   * Answers the `confirm` of call `callId`, or without one the latest proposal's:
   * approval commits that proposal (checked again when the state changed since it was
   * asked), denial nothing.
   */
  resolve(approved: boolean, callId?: string): ResolutionResult;
  status(): SessionStatus;
  /** What remains to do, as text for the agent. */
  roadmap(): string;
  /** What happened, newest last; bounded by `historyLimit`. */
  readonly history: readonly HistoryEntry[];
  /** The moment `today` and `now` mean, fixed when the session starts. */
  readonly clock: SessionClock;
  /** The schema proposals and observations are read against; undefined without a spec. */
  readonly schema: Schema | undefined;
  /**
   * The number of the commit the latest `propose` or `resolve` made, or undefined when it
   * committed nothing.
   */
  lastCommit(): number | undefined;
  /**
   * Undoes a commit whose tool call failed (`lastCommit()` named it): what it achieved is
   * no longer achieved and the values it anticipated go back. False for an unknown,
   * already undone or forgotten commit, and where the session keeps no undo records
   * (`Session` without the `rollback` option).
   */
  rollback(commit: number): boolean;
}
