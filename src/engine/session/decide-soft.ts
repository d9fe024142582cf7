import type { CompiledRule } from '../compiled-spec.js';
import { type EvaluationContext, explainRule, ruleFires } from '../evaluation.js';
import {
  brokenDoneReason,
  frameFeedbackTail,
  softDeviationReason,
  softFeedbackTail,
  unmetReason,
} from '../feedback.js';
import { type NormalizedProposal, proposalFingerprint } from '../proposal.js';
import type { StateUpdate, StateView } from '../state.js';
import { valueKey } from '../values.js';
import type { Reason, Verdict } from '../verdict.js';
import { type DecisionHost, joinFeedback, noRules, type Recheck } from './decision.js';

/**
 * Step 6, the predicate-level (soft) check of the anticipated updates: a deviation is
 * refused once, and an identical repeat passes (it may be an intermediate step); a
 * re-check at `resolve` never counts as the repeat.
 */
export function softRefusal(
  host: DecisionHost,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
  performed: readonly CompiledRule[],
  view: StateView,
): Verdict | undefined {
  if (proposal.updates.length === 0) return undefined;
  const deviations = softCheck(host, proposal.updates, view);
  if (deviations.length === 0) return undefined;
  const key = proposalFingerprint(proposal);
  if (host.softRefused.has(key)) return undefined;
  if (!recheck) host.softRefused.set(key, true);
  return host.verdict(
    'revise',
    'soft',
    deviations,
    performed,
    joinFeedback(
      '',
      deviations,
      deviations.every((reason) => reason.code === 'unplanned-change')
        ? frameFeedbackTail
        : softFeedbackTail,
    ),
  );
}

/**
 * Each changed value must fit some live pattern that constrains its variable, a setting
 * no rule or guard constrains must not change (§9), and an update must not make a
 * holding Done stop holding (LANGUAGE.md §6 step 6).
 */
function softCheck(host: DecisionHost, updates: readonly StateUpdate[], view: StateView): Reason[] {
  const deviations = variableDeviations(host, updates);
  // Frame conditions (LANGUAGE.md §9): settings no rule or guard constrains stay as they are.
  const frame = host.compiled.frame?.(updates, host.store, host.settings.limits.maxEchoLength);
  if (frame !== undefined) deviations.push(...frame);
  if (deviations.length === 0 && host.doneHolding.size > 0) {
    const broken = brokenDone(host, updates, view);
    if (broken) deviations.push(broken);
  }
  return deviations;
}

/**
 * When Done holds now and would hold in no way in the tentative state: what the
 * holding Done rule would lack. Only Done rules mentioning an updated predicate can
 * stop holding, so the others are not re-evaluated.
 */
function brokenDone(
  host: DecisionHost,
  updates: readonly StateUpdate[],
  view: StateView,
): Reason | undefined {
  const { compiled } = host;
  const touched = new Set<CompiledRule>();
  for (const update of updates)
    for (const rule of compiled.doneRulesByPredicate[update.predicate.index] ?? noRules)
      touched.add(rule);
  for (const rule of host.doneHolding) if (!touched.has(rule)) return undefined;
  const context: EvaluationContext = {
    view,
    action: undefined,
    achieved: host.achieved,
    clock: host.clock,
  };
  for (const rule of compiled.doneRules) if (ruleFires(rule, context)) return undefined;
  const holding = [...host.doneHolding][0]!;
  const unmet = explainRule(holding, context).map((condition) =>
    unmetReason(
      compiled,
      holding,
      condition,
      host.clock,
      () => true,
      host.settings.limits.maxEchoLength,
    ),
  );
  return brokenDoneReason(holding, unmet);
}

/** Done rules are always live: once Done holds, an update must not undo it (§6 step 6). */
function isLive(host: DecisionHost, rule: CompiledRule): boolean {
  return rule.isDone || host.hasBudget(rule);
}

function variableDeviations(host: DecisionHost, updates: readonly StateUpdate[]): Reason[] {
  const deviations: Reason[] = [];
  for (const update of updates) {
    if (update.operation !== 'set') continue;
    const byVariable = host.compiled.patternsByVariable[update.predicate.index];
    if (!byVariable) continue;
    const before = host.store.instance(update.predicate, update.key);
    for (const [variable, value] of update.assignments) {
      if (value === undefined) continue;
      const patterns = byVariable[variable];
      if (!patterns || patterns.length === 0) continue;
      if (before && valueKey(before[variable]) === valueKey(value)) continue;
      const live = patterns.filter(
        (pattern) => pattern.rule !== undefined && isLive(host, pattern.rule),
      );
      if (live.length === 0) continue;
      const fits = live.some((pattern) =>
        pattern.constraints.every(
          (constraint) => constraint.variable !== variable || constraint.test(value, host.clock),
        ),
      );
      if (!fits)
        deviations.push(
          softDeviationReason(
            live[0]!,
            variable,
            value,
            live,
            host.clock,
            host.settings.limits.maxEchoLength,
          ),
        );
    }
  }
  return deviations;
}
