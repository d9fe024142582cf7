import type { Limits, Spec } from '../language/index.js';
import type { ClockInput } from './clock.js';
import type { EngineParts } from './engine-parts.js';
import type { ProposalProblem } from './proposal.js';
import type { SimilarityFunction } from './similarity.js';
import type { Verdict } from './verdict.js';

/* The options, results and history records of a session. */
export interface SessionOptions {
  /** The session's "now" (default: the current time); fixed for the whole session. */
  readonly now?: ClockInput;
  /** IANA time zone for instants (default UTC). */
  readonly timeZone?: string;
  readonly similarity?: SimilarityFunction;
  readonly similarityThreshold?: number;
  /** Hard refusals of one identical proposal before the next asks a person (default 3; 0 never). */
  readonly escalateAfter?: number;
  /** What an unplanned critical action gets (default `revise`). */
  readonly unplannedCritical?: 'revise' | 'confirm';
  /** History entries kept (default `limits.maxHistory`); older ones are dropped so long runs stay bounded. */
  readonly historyLimit?: number;
  /** Overrides of `defaultLimits` for what the session reads, keeps and says. */
  readonly limits?: Partial<Limits>;
  /**
   * Keep what each allowed proposal changed, so that `rollback(commit)` can undo it when
   * the tool call it allowed fails (the guard sets this). Off by default: it costs a
   * little memory per commit, bounded by `limits.maxHistory` commits.
   */
  readonly rollback?: boolean;
  /**
   * The engine's parts that only some specs need (engine-parts.ts). The root entry's
   * sessions and guards are given all of them by default; a session given none refuses a
   * spec that needs one.
   */
  readonly parts?: EngineParts;
  /**
   * The operator's standing policy (LANGUAGE.md §8), checked with `checkPolicy` against the
   * intent's schema: every proposal is decided by the intent and by the policy, and the
   * stricter decision wins. Absent: the intent alone.
   */
  readonly policy?: Spec;
}

export interface SessionStatus {
  readonly done: boolean;
  readonly finished: boolean;
  /** v2: the session ended with a question to the user (`ask`), not a finish; present only then. */
  readonly asked?: boolean;
  /** Objectives achieved so far, with counts. */
  readonly achieved: Readonly<Record<string, number>>;
  /** With a policy (LANGUAGE.md §8): the policy's own objectives achieved so far; present only then. */
  readonly policyAchieved?: Readonly<Record<string, number>>;
  /** Whether a `confirm` verdict awaits `resolve`. */
  readonly pending: boolean;
  readonly proposals: number;
}

export interface ObservationResult {
  readonly ok: boolean;
  /** Why nothing was applied (invalid observation). */
  readonly problems: readonly ProposalProblem[];
  /** Fields the schema does not know; they were ignored. */
  readonly ignored: readonly ProposalProblem[];
  readonly status: SessionStatus;
}

export interface ResolutionResult {
  readonly ok: boolean;
  /** Whether the approved proposal was committed. */
  readonly committed: boolean;
  readonly message: string;
  /**
   * When the state changed since the approval was asked and the proposal no longer
   * passes: the verdict it gets now (nothing was committed).
   */
  readonly verdict?: Verdict;
  readonly status: SessionStatus;
}

export type HistoryEntry =
  | { readonly kind: 'propose'; readonly label: string | undefined; readonly verdict: Verdict }
  | { readonly kind: 'observe'; readonly ok: boolean }
  | { readonly kind: 'resolve'; readonly approved: boolean; readonly committed: boolean };
