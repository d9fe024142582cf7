import type { ConfirmCategory } from '../language/index.js';
import { plainConstructor } from '../support/plain-constructor.js';

export type Decision = 'allow' | 'confirm' | 'revise' | 'reject';
export type Severity = 'soft' | 'hard';

/** Stable reason codes (FORMATS.md §2); text is rendered from them, never the reverse. */
export const reasonCodes = [
  'unmet-conditions',
  'soft-deviation',
  'unplanned-change',
  'premature-finish',
  'already-achieved',
  'unplanned-critical',
  'guard-reject',
  'guard-confirm',
  'rule-confirm',
  'repeated-violation',
  'invalid-proposal',
  'no-spec',
  'internal-error',
  'session-finished',
  'fabricated-action',
  'policy-violation',
] as const;
export type ReasonCode = (typeof reasonCodes)[number];

/** Why a verdict is what it is, as data. */
export interface Reason {
  readonly code: ReasonCode;
  readonly rule?: string;
  readonly objective?: string;
  readonly predicate?: string;
  readonly variable?: string;
  /** The condition, e.g. `< 19:00`, `>= 1`. */
  readonly expected?: string;
  /** What was found, e.g. `20:00`, `unobserved`. */
  readonly actual?: string;
  /** Actions that would establish a missing precondition (RefineAct's candidates). */
  readonly candidates?: readonly string[];
  readonly category?: ConfirmCategory;
  /** `fabricated-action`: the actions the answer shows but the session never committed. */
  readonly actions?: readonly string[];
  /**
   * `guard-confirm`, `rule-confirm`, `repeated-violation`: the arguments of the call the
   * reason is about (those its guard or rule constrains). A person asked to approve the
   * call is shown these first, each in full or cut in the middle with a marker.
   */
  readonly arguments?: readonly string[];
  /** This reason in one sentence. */
  readonly message: string;
  /**
   * Which judge gave it, in a session with a policy (LANGUAGE.md §8): the task's intent
   * or the operator's policy. Absent in a session without a policy.
   */
  readonly source?: 'intent' | 'policy';
}

export interface Verdict {
  readonly decision: Decision;
  /** Only for `revise`. */
  readonly severity?: Severity;
  readonly reasons: readonly Reason[];
  /** Objectives the proposal performs. */
  readonly performs: readonly string[];
  /** Counts of the performed objectives after this decision. */
  readonly achieved: Readonly<Record<string, number>>;
  readonly done: boolean;
  /** Natural-language feedback for the agent, rendered from the reasons. */
  readonly feedback: string;
  /** What the task still needs, for hard refusals. */
  readonly roadmap?: string;
}

/** Why every proposal after an allowed finish is refused (LANGUAGE.md §6, session life). */
export const sessionFinishedReason: Reason = Object.freeze({
  code: 'session-finished',
  message: 'The task is finished; no further action is allowed in this session.',
});

/** The decision and severity each reason code leads to when it decides a verdict. */
export const reasonDecisions: Readonly<
  Record<ReasonCode, { decision: Decision; severity?: Severity }>
> = {
  'unmet-conditions': { decision: 'revise', severity: 'hard' },
  'soft-deviation': { decision: 'revise', severity: 'soft' },
  'unplanned-change': { decision: 'revise', severity: 'soft' },
  'premature-finish': { decision: 'revise', severity: 'hard' },
  'already-achieved': { decision: 'revise', severity: 'hard' },
  'unplanned-critical': { decision: 'revise', severity: 'hard' },
  'guard-reject': { decision: 'reject' },
  'guard-confirm': { decision: 'confirm' },
  'rule-confirm': { decision: 'confirm' },
  'repeated-violation': { decision: 'confirm' },
  'invalid-proposal': { decision: 'revise', severity: 'hard' },
  'no-spec': { decision: 'reject' },
  'internal-error': { decision: 'reject' },
  'session-finished': { decision: 'reject' },
  'fabricated-action': { decision: 'revise', severity: 'hard' },
  'policy-violation': { decision: 'revise', severity: 'hard' },
};

/**
 * A verdict, with `severity` and `roadmap` only when given, its fields in the order of the
 * interface. Made by a constructor, not an object literal (`plainConstructor` says why): a
 * long session keeps thousands of verdicts in its history.
 */
export const PlainVerdict = plainConstructor<
  [
    decision: Decision,
    severity: Severity | undefined,
    reasons: readonly Reason[],
    performs: readonly string[],
    achieved: Readonly<Record<string, number>>,
    done: boolean,
    feedback: string,
    roadmap: string | undefined,
  ],
  Verdict
>(function (
  this: Record<string, unknown>,
  decision,
  severity,
  reasons,
  performs,
  achieved,
  done,
  feedback,
  roadmap,
) {
  this.decision = decision;
  if (severity !== undefined) this.severity = severity;
  this.reasons = reasons;
  this.performs = performs;
  this.achieved = achieved;
  this.done = done;
  this.feedback = feedback;
  if (roadmap !== undefined) this.roadmap = roadmap;
});
