import type { CompiledGuard, CompiledRule } from '../compiled-spec.js';
import { type EvaluationContext, ruleFires } from '../evaluation.js';
import { guardReason, ruleConfirmReason } from '../feedback.js';
import type { NormalizedProposal } from '../proposal.js';
import type { Reason, Verdict } from '../verdict.js';
import { actionRulesOf } from './decide-performed.js';
import {
  allowFeedback,
  type CommitPlan,
  type DecisionHost,
  joinFeedback,
  noReasons,
  noRules,
  type Recheck,
  uniqueByHead,
} from './decision.js';

/**
 * Step 7: user approval from @confirm rules, confirm guards, or unplanned critical
 * actions. A declared objective narrows what is achieved, never what is confirmed: a
 * firing @confirm rule of the same action still asks (LANGUAGE.md §5.2). Undefined when
 * nothing asks; at a re-check the approval already given commits.
 */
export function confirmation(
  host: DecisionHost,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
  plan: CommitPlan,
  performed: readonly CompiledRule[],
  context: EvaluationContext,
  confirmGuard: CompiledGuard | undefined,
  unplanned: Reason | undefined,
): Verdict | undefined {
  const deciding = plan.rules;
  const narrowedAway = narrowedAwayConfirms(host, proposal, context, deciding);
  // The common case, nothing asks, allocates nothing.
  if (
    confirmGuard === undefined &&
    unplanned === undefined &&
    narrowedAway.length === 0 &&
    !someConfirms(deciding)
  )
    return undefined;
  const confirming = [...deciding.filter(confirms), ...narrowedAway];
  const { clock } = host;
  const confirmations: Reason[] = [
    ...uniqueByHead(confirming).map(ruleConfirmReason),
    ...(confirmGuard
      ? [guardReason(confirmGuard, clock, proposal.action, host.settings.limits.maxEchoLength)]
      : []),
    ...(unplanned ? [unplanned] : []),
  ];
  if (recheck) {
    host.commit(plan, true);
    return host.verdict('allow', undefined, noReasons, performed, allowFeedback);
  }
  host.awaitApproval(plan, proposal);
  return host.verdict(
    'confirm',
    undefined,
    confirmations,
    performed,
    joinFeedback('Ask the user first:', confirmations),
  );
}

function confirms(rule: CompiledRule): boolean {
  return rule.source.confirm !== undefined;
}

/** `rules.some(confirms)` by index: the list is often a frozen shared one, which V8's `some` walks slowly. */
function someConfirms(rules: readonly CompiledRule[]): boolean {
  for (let index = 0; index < rules.length; index++) if (confirms(rules[index]!)) return true;
  return false;
}

/** Firing, budgeted @confirm rules of the action that a declared objective left out. */
function narrowedAwayConfirms(
  host: DecisionHost,
  proposal: NormalizedProposal,
  context: EvaluationContext,
  deciding: readonly CompiledRule[],
): readonly CompiledRule[] {
  const { action, objective } = proposal;
  if (!action || objective === undefined) return noRules;
  const own = actionRulesOf(host.compiled, action);
  return own.filter(
    (rule) =>
      rule.source.confirm !== undefined &&
      rule.head !== objective &&
      !deciding.includes(rule) &&
      host.hasBudget(rule, action) &&
      ruleFires(rule, context),
  );
}
