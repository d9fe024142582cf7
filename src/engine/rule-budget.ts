import type { CompiledRule } from './compiled-spec.js';
import { perValueReadings } from './deny-list-reading.js';
import type { EngineParts } from './engine-parts.js';
import type { ProposedAction } from './evaluation.js';

/**
 * What a judge has counted of its rules (LANGUAGE.md §5.2): how often each objective was
 * achieved, each rule's budget spent, and, for `@repeat(per: arg)`, each value served.
 * The intent's session and the policy's judge each keep their own and share these steps.
 */
export interface RuleCounts {
  readonly achieved: ReadonlyMap<string, number>;
  readonly performances: ReadonlyMap<number, number>;
  readonly perValue: Map<number, Map<string, number>>;
}

/**
 * Whether the rule may still be performed (by this action). `@repeat(per: arg)` counts
 * per value of the argument; without an action (the soft check's liveness) some value
 * may still be new, so such a rule is live.
 */
export function hasBudget(
  counts: RuleCounts,
  parts: EngineParts,
  rule: CompiledRule,
  action?: ProposedAction,
): boolean {
  if (rule.per !== undefined) {
    if (!action) return true;
    // A value is new only if none of its readings was served (deny-list-reading.ts, E4).
    const served = counts.perValue.get(rule.budget);
    const limit = rule.per.limit;
    return perValueReadings(action.values[rule.per.variable], parts).every(
      (key) => (served?.get(key) ?? 0) < limit,
    );
  }
  // Only `@repeat` without a bound has no limit (performanceLimit): nothing to look up.
  if (rule.limit === Number.POSITIVE_INFINITY) return true;
  if ((counts.achieved.get(rule.head) ?? 0) === 0) return true;
  // @repeat(n) counts this rule's own performances (LANGUAGE.md §5.2) — of all its
  // alternatives (E5) — so even @repeat(1) lets the rule perform a head another rule
  // achieved; without @repeat an achieved head is final.
  return (
    rule.source.repeat !== undefined && (counts.performances.get(rule.budget) ?? 0) < rule.limit
  );
}

/** Counts (1) or gives back (-1) one achievement of the head; answers its count before. */
export function countAchieved(achieved: Map<string, number>, head: string, change: 1 | -1): number {
  const before = achieved.get(head) ?? 0;
  if (before + change > 0) achieved.set(head, before + change);
  else achieved.delete(head);
  return before;
}

/**
 * Counts (1) or gives back (-1) one performance of the rule. Only a rule whose
 * performances `hasBudget` reads — `@repeat(n)` — is counted: a plain rule is judged by its
 * head's count and `@repeat` has no bound, so a count of theirs would be kept and never read.
 */
export function countPerformance(
  performances: Map<number, number>,
  rule: CompiledRule,
  change: 1 | -1,
): void {
  if (rule.source.repeat === undefined || rule.limit === Number.POSITIVE_INFINITY) return;
  const performed = (performances.get(rule.budget) ?? 0) + change;
  if (performed > 0) performances.set(rule.budget, performed);
  else performances.delete(rule.budget);
}

/** Counts (1) or gives back (-1) the values a `@repeat(per:)` rule served with `action`. */
export function countPerValue(
  perValue: Map<number, Map<string, number>>,
  parts: EngineParts,
  rule: CompiledRule,
  action: ProposedAction,
  change: 1 | -1,
): void {
  let counts = perValue.get(rule.budget);
  if (!counts) {
    counts = new Map();
    perValue.set(rule.budget, counts);
  }
  // Every reading of the value is served (E4): `a, b` serves a and b.
  for (const key of perValueReadings(action.values[rule.per!.variable], parts)) {
    const count = (counts.get(key) ?? 0) + change;
    if (count > 0) counts.set(key, count);
    else counts.delete(key);
  }
}
