import type { BoundedMemo } from '../bounded-memo.js';
import type { SessionClock } from '../clock.js';
import type { CompiledRule, CompiledSpec } from '../compiled-spec.js';
import type { EvaluationContext, ProposedAction } from '../evaluation.js';
import type { CommittedCall } from '../fabricated-action.js';
import type { NormalizedProposal } from '../proposal.js';
import type { SessionSettings } from '../session-settings.js';
import type { StateUpdate, StateView } from '../state.js';
import type { Decision, Reason, Severity, Verdict } from '../verdict.js';

/**
 * What the steps of the decision procedure (LANGUAGE.md §6, one `decide-*.ts` per step)
 * read of a session and ask of it. The session owns its state; a step reads it and
 * returns a verdict or what the next step needs, and changes it only through `commit`,
 * `awaitApproval` and `endAsked`.
 */
export interface DecisionHost {
  readonly compiled: CompiledSpec;
  readonly clock: SessionClock;
  readonly settings: SessionSettings;
  readonly achieved: ReadonlyMap<string, number>;
  /** The committed state. */
  readonly store: StateView;
  /** The Done rules that hold in the committed state. */
  readonly doneHolding: ReadonlySet<CompiledRule>;
  /** Calls committed (allowed or approved), for the fabricated-action check. */
  readonly committedCalls: readonly CommittedCall[];
  /** Soft refusals by proposal fingerprint: an identical repeat passes. */
  readonly softRefused: BoundedMemo<true>;
  /** Whether the state is known (no commit failed half-way). */
  intact(): boolean;
  done(): boolean;
  roadmap(): string;
  currentContext(): EvaluationContext;
  /** The committed state with updates laid over it. */
  overlay(updates: readonly StateUpdate[]): StateView;
  /** Whether the rule may still be performed (by this action). */
  hasBudget(rule: CompiledRule, action?: ProposedAction): boolean;
  verdict(
    decision: Decision,
    severity: Severity | undefined,
    reasons: readonly Reason[],
    performed: readonly CompiledRule[],
    feedback: string,
    roadmap?: string,
  ): Verdict;
  /** Step 9: a hard refusal, or — after N identical ones — a question to a person. */
  hardRefusal(
    proposal: NormalizedProposal,
    recheck: Recheck | undefined,
    reasons: readonly Reason[],
    performed: readonly CompiledRule[],
    plan: CommitPlan,
    feedback: string,
    roadmap?: string,
  ): Verdict;
  commit(plan: CommitPlan, undoable?: boolean): void;
  /** Keeps the plan until the user answers the `confirm`. */
  awaitApproval(plan: CommitPlan, proposal: NormalizedProposal): void;
  /** The session ended by a question to the user. */
  endAsked(): void;
  /**
   * Changes the plan kept for approval by this proposal (the intent's escalation), or
   * drops it when `change` returns undefined: a composed decision may refuse or extend it.
   */
  amendApproval(change: (plan: CommitPlan) => CommitPlan | undefined): void;
}

/** What a proposal commits when it is allowed, or approved after `confirm`. */
export interface CommitPlan {
  readonly updates: readonly StateUpdate[];
  readonly rules: readonly CompiledRule[];
  /** The proposal's action: what `@repeat(per: arg)` budgets count by. */
  readonly action?: ProposedAction | undefined;
  readonly finish: boolean;
  /** Set when the plan comes from an escalation, to reset its refusal count on approval. */
  readonly escalated?: string;
  /** With a policy (LANGUAGE.md §8): the policy's permissions the proposal performs. */
  readonly policyRules?: readonly CompiledRule[];
}

/** Set while an approved proposal is re-checked at `resolve`: no memo changes, and approval commits. */
export interface Recheck {
  readonly approved: true;
}

export { noRules } from '../compile-rules.js';
/** Shared by allowed verdicts, which carry no reasons; frozen so no caller can change it. */
export const noReasons: readonly Reason[] = Object.freeze([]);
export const allowFeedback = 'Allowed.';

/** The distinct heads of a shared rules array, and the `achieved` records shared for them. */
export interface PerformedHeads {
  /** Frozen: verdicts of every session share it as their `performs`. */
  readonly heads: readonly string[];
  /** The same heads, not frozen, for the engine's own reading (a frozen array's are slower). */
  readonly read: readonly string[];
  /** Frozen `achieved` records by their counts (`countsKey`), each made when first needed. */
  readonly byCounts: Map<number, Readonly<Record<string, number>>>;
}

const headsCache = new WeakMap<readonly CompiledRule[], PerformedHeads>();

/** The heads of performed rules, looked up once for a verdict's `performs` and `achieved`. */
export function performedHeads(rules: readonly CompiledRule[]): PerformedHeads {
  // An action's own rules (the common case): kept on its predicate, no lookup.
  const owner = rules[0]?.action?.predicate;
  if (owner !== undefined && owner.actionRules === rules) {
    owner.actionHeads ??= headsEntry(rules);
    return owner.actionHeads;
  }
  let entry = headsCache.get(rules);
  if (!entry) {
    entry = headsEntry(rules);
    headsCache.set(rules, entry);
  }
  return entry;
}

function headsEntry(rules: readonly CompiledRule[]): PerformedHeads {
  // Frozen: verdicts of every session share it, so no caller may change it (D12).
  const read = [...new Set(rules.map((rule) => rule.head))];
  return { heads: Object.freeze(read.slice()), read, byCounts: new Map() };
}

/** The distinct heads of rules, cached for the shared arrays of the compiled spec's indexes. */
export function headsOf(rules: readonly CompiledRule[]): readonly string[] {
  return rules.length === 0 ? [] : performedHeads(rules).heads;
}

const nothingAchieved: Readonly<Record<string, number>> = Object.freeze({});
/**
 * Records are shared for up to `sharedHeads` heads each counted below `sharedCount` (a
 * session's repeats rarely go further), and at most `sharedRecords` per rule list: each
 * is made the first time some session reaches its counts, so what is kept grows no faster
 * than allowed steps are taken, and stays below ≈ 20 KB per list.
 */
const sharedHeads = 3;
const sharedCount = 256;
const sharedRecords = 256;

/** The counts of `heads` as one number (mixed radix), or undefined when not shared. */
function countsKey(
  heads: readonly string[],
  counts: ReadonlyMap<string, number>,
): number | undefined {
  if (heads.length > sharedHeads) return undefined;
  let key = 0;
  for (let index = 0; index < heads.length; index++) {
    const count = counts.get(heads[index]!) ?? 0;
    if (count >= sharedCount) return undefined;
    key = key * sharedCount + count;
  }
  return key;
}

/**
 * A verdict's `achieved`: each distinct head of the performed rules (their
 * `performedHeads`, undefined when none was performed) with its count now, frozen like
 * `performs` (D12). The record of the same counts is one object for every verdict, while
 * the counts are small enough to be shared.
 */
export function achievedCounts(
  entry: PerformedHeads | undefined,
  counts: ReadonlyMap<string, number>,
): Readonly<Record<string, number>> {
  if (entry === undefined) return nothingAchieved;
  const { read, byCounts } = entry;
  const key = countsKey(read, counts);
  if (key === undefined) return countsRecord(read, counts);
  let shared = byCounts.get(key);
  if (shared === undefined) {
    shared = countsRecord(read, counts);
    if (byCounts.size < sharedRecords) byCounts.set(key, shared);
  }
  return shared;
}

function countsRecord(
  heads: readonly string[],
  counts: ReadonlyMap<string, number>,
): Readonly<Record<string, number>> {
  const achieved: Record<string, number> = {};
  for (const head of heads) setCount(achieved, head, counts.get(head) ?? 0);
  return Object.freeze(achieved);
}

/** Sets an objective's count in a verdict's `achieved` record. */
export function setCount(achieved: Record<string, number>, head: string, count: number): void {
  // An objective may be called `__proto__`: assignment would set the prototype instead.
  // Only then a defined property: it makes a slower object, and every verdict has one.
  if (head === '__proto__')
    Object.defineProperty(achieved, head, {
      value: count,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else achieved[head] = count;
}

/** A verdict, told apart from the other results a step may return. */
export function isVerdict(value: object): value is Verdict {
  return 'decision' in value;
}

/**
 * The rules, one per source rule: alternatives of one rule that fire together are one
 * performance of it — its budget spent once, its head achieved once (E5).
 */
export function onePerSourceRule(rules: readonly CompiledRule[]): readonly CompiledRule[] {
  if (rules.length < 2) return rules;
  const seen = new Set<number>();
  return rules.filter((rule) => {
    if (seen.has(rule.budget)) return false;
    seen.add(rule.budget);
    return true;
  });
}

export function uniqueByHead(rules: readonly CompiledRule[]): CompiledRule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    if (seen.has(rule.head)) return false;
    seen.add(rule.head);
    return true;
  });
}

export function joinFeedback(lead: string, reasons: readonly Reason[], tail?: string): string {
  const lines = reasons.map((reason) =>
    reasons.length > 1 ? `- ${reason.message}` : reason.message,
  );
  return [lead, ...lines, tail]
    .filter((line): line is string => line !== undefined && line !== '')
    .join('\n');
}
