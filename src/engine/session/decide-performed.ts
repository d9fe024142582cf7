import { callName } from '../../language/index.js';
import type { CompiledRule, CompiledSpec } from '../compiled-spec.js';
import {
  closestRule,
  type EvaluationContext,
  type ProposedAction,
  ruleFires,
} from '../evaluation.js';
import { alreadyAchievedReason, unmetFeedback, unmetReason } from '../feedback.js';
import type { NormalizedProposal } from '../proposal.js';
import { formatValue, isTextValue, type Value } from '../values.js';
import type { Verdict } from '../verdict.js';
import {
  type DecisionHost,
  headsOf,
  joinFeedback,
  noRules,
  onePerSourceRule,
  type Recheck,
  uniqueByHead,
} from './decision.js';

/**
 * Step 3: the rules a proposal performs (LANGUAGE.md §5.2), or why it cannot perform its
 * declared objective. With an action: exactly the rules whose action pattern names it,
 * narrowed to the declared objective's head — an objective can never let an action skip
 * its own rules or their `@confirm`. Without an action: the declared objective's rules
 * that have no action pattern (a UI gesture such as tapping "Reserve"); none can fire
 * when it has no such rule.
 */
export function performedRules(
  host: DecisionHost,
  proposal: NormalizedProposal,
): readonly CompiledRule[] | string {
  const { objective, action } = proposal;
  const { compiled } = host;
  if (action) {
    const byAction = actionRulesOf(compiled, action);
    if (objective === undefined) return byAction;
    const narrowed = rulesWithHead(byAction, objective);
    if (narrowed.length > 0) return narrowed;
    const heads = headsOf(byAction);
    return heads.length === 0
      ? `${callName(action.predicate.declaration)} performs no objective, so it cannot declare '${objective}'; propose it without "objective"`
      : `${callName(action.predicate.declaration)} does not perform '${objective}' (it performs ${heads.join(', ')})`;
  }
  if (objective === undefined) return noRules;
  // Rules with an action pattern cannot fire without that action; when the objective
  // has only such rules they are still "performed", so the refusal names the action.
  return (
    compiled.gestureRulesByHead.get(objective) ?? compiled.rulesByHead.get(objective) ?? noRules
  );
}

/**
 * The rules whose action pattern names the action: kept on its compiled predicate, found
 * by name only for a predicate of another compilation (a policy reads its own, translated).
 */
export function actionRulesOf(
  compiled: CompiledSpec,
  action: ProposedAction,
): readonly CompiledRule[] {
  const { predicate } = action;
  return compiled.predicateList[predicate.index] === predicate
    ? predicate.actionRules
    : (compiled.rulesByAction.get(predicate.name) ?? noRules);
}

/**
 * Step 4, the rule-level (hard) check: the performed rules that fire and still have
 * budget, one per source rule — or the refusal when none fires, or none has budget.
 */
export function decidingRules(
  host: DecisionHost,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
  performed: readonly CompiledRule[],
  context: EvaluationContext,
): readonly CompiledRule[] | Verdict {
  const firing = firingRules(firingCandidates(proposal, performed), context);
  if (firing.length === 0) return unmetRefusal(host, proposal, recheck, performed, context);
  const deciding =
    firing.length === 1 && host.hasBudget(firing[0]!, proposal.action)
      ? firing
      : budgetedRules(host, firing, proposal.action);
  if (deciding.length > 0) return deciding;
  return achievedRefusal(host, proposal, recheck, performed, firing);
}

// The closures of the uncommon paths live in functions of their own: a function makes the
// scope its closures capture on entry, even on a path that makes none.

/** The firing rules that still have budget, one per source rule. */
function budgetedRules(
  host: DecisionHost,
  firing: readonly CompiledRule[],
  action: ProposedAction | undefined,
): readonly CompiledRule[] {
  return onePerSourceRule(firing.filter((rule) => host.hasBudget(rule, action)));
}

/** Every firing rule has spent its budget: what each has achieved. */
function achievedRefusal(
  host: DecisionHost,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
  performed: readonly CompiledRule[],
  firing: readonly CompiledRule[],
): Verdict {
  const action = proposal.action;
  const reasons = uniqueByHead(firing).map((rule) =>
    alreadyAchievedReason(
      rule,
      host.achieved.get(rule.head) ?? 0,
      rule.per && action ? perValueText(host, rule, action) : undefined,
    ),
  );
  const plan = {
    updates: proposal.updates,
    rules: onePerSourceRule(firing),
    finish: false,
    action,
  };
  return host.hardRefusal(proposal, recheck, reasons, performed, plan, joinFeedback('', reasons));
}

/** No performed rule fires: what the closest one lacks. */
function unmetRefusal(
  host: DecisionHost,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
  performed: readonly CompiledRule[],
  context: EvaluationContext,
): Verdict {
  const action = proposal.action;
  const closest = closestRule(performed, context);
  const rule = closest?.rule ?? performed[0]!;
  const changed = new Set(proposal.updates.map((update) => update.predicate.index));
  const reasons = (closest?.unmet ?? []).map((unmet) =>
    unmetReason(
      host.compiled,
      rule,
      unmet,
      host.clock,
      (index) => changed.has(index),
      host.settings.limits.maxEchoLength,
    ),
  );
  const plan = {
    updates: proposal.updates,
    rules: onePerSourceRule(performed.filter((candidate) => host.hasBudget(candidate, action))),
    finish: false,
    action,
  };
  return host.hardRefusal(
    proposal,
    recheck,
    reasons,
    performed,
    plan,
    unmetFeedback(rule, reasons),
    host.roadmap(),
  );
}

/**
 * The performed rules that could fire: through the action's argument index when the
 * proposal names no objective, so a call touches only the rules that can match it.
 */
function firingCandidates(
  proposal: NormalizedProposal,
  performed: readonly CompiledRule[],
): readonly CompiledRule[] {
  const action = proposal.action;
  // A declared objective has already narrowed the rules; the index covers all of them.
  if (proposal.objective !== undefined || !action) return performed;
  // The index of exactly these rules: the action's own, in the spec they were compiled with.
  const index =
    action.predicate.actionRules === performed ? action.predicate.argumentIndex : undefined;
  if (!index) return performed;
  const value = action.values[index.variable];
  const pinned = value === undefined ? undefined : index.byKey.get(runtimeIndexKey(value));
  if (!pinned) return index.unindexed;
  if (index.unindexed.length === 0) return pinned;
  return [...pinned, ...index.unindexed].sort((a, b) => a.index - b.index);
}

function runtimeIndexKey(value: Value): string | number | boolean {
  return isTextValue(value) ? value.key : (value as number | boolean | string);
}

/**
 * The rules that fire, as a shared list where there is one — the candidates when all fire,
 * a rule's own one-rule list when only it does — so that the performed heads and counts
 * cached per list (decision.ts) are found, and nothing is allocated in the common cases.
 */
function firingRules(
  candidates: readonly CompiledRule[],
  context: EvaluationContext,
): readonly CompiledRule[] {
  let first: CompiledRule | undefined;
  let several: CompiledRule[] | undefined;
  // Indexed: the candidates are often a frozen shared list (see Session#apply).
  for (let index = 0; index < candidates.length; index++) {
    const rule = candidates[index]!;
    if (!ruleFires(rule, context)) continue;
    if (first === undefined) {
      first = rule;
      continue;
    }
    several ??= [first];
    several.push(rule);
  }
  if (first === undefined) return noRules;
  if (several === undefined) return candidates.length === 1 ? candidates : first.alone;
  return several.length === candidates.length ? candidates : several;
}

/** `to = "+1 555…"`: the value a `@repeat(per: …)` budget is counted for, for feedback. */
function perValueText(host: DecisionHost, rule: CompiledRule, action: ProposedAction): string {
  const variable = rule.per!.variable;
  const declaration = action.predicate.variables[variable];
  const value = action.values[variable];
  const text =
    value === undefined || !declaration
      ? 'not given'
      : formatValue(value, declaration.type, host.settings.limits.maxEchoLength);
  return `${declaration?.name ?? variable} = ${text}`;
}

/** The rules among `rules` with the given head, cached per (rules, head) for the shared index arrays. */
const narrowedCache = new WeakMap<readonly CompiledRule[], Map<string, readonly CompiledRule[]>>();
function rulesWithHead(rules: readonly CompiledRule[], head: string): readonly CompiledRule[] {
  let byHead = narrowedCache.get(rules);
  if (!byHead) {
    byHead = new Map();
    narrowedCache.set(rules, byHead);
  }
  let narrowed = byHead.get(head);
  if (!narrowed) {
    narrowed = Object.freeze(rules.filter((rule) => rule.head === head));
    // Bounded by the spec's heads: only heads some rule has are cached.
    if (narrowed.length > 0) byHead.set(head, narrowed);
  }
  return narrowed;
}
