import type { CompiledRule } from '../compiled-spec.js';
import type { EvaluationContext } from '../evaluation.js';
import { invalidProposalReasons } from '../feedback.js';
import type { NormalizedProposal, ProposalProblem } from '../proposal.js';
import type { Verdict } from '../verdict.js';
import { decideAsk } from './decide-ask.js';
import { confirmation } from './decide-confirm.js';
import { decideFinish } from './decide-finish.js';
import { guardRejection, matchingGuard } from './decide-guards.js';
import { decidingRules, performedRules } from './decide-performed.js';
import { softRefusal } from './decide-soft.js';
import { unplannedCritical } from './decide-unplanned.js';
import {
  allowFeedback,
  type CommitPlan,
  type DecisionHost,
  isVerdict,
  joinFeedback,
  noReasons,
  noRules,
  type Recheck,
} from './decision.js';

/**
 * The decision procedure of LANGUAGE.md §6 for a read proposal, one step per function.
 * With `recheck` (an approved proposal checked again at `resolve`), nothing is
 * remembered, nothing escalates, and a confirmation commits.
 */
export function decide(
  host: DecisionHost,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
): Verdict {
  if (proposal.ask !== undefined) return decideAsk(host);
  // 1. finish
  if (proposal.finish) return decideFinish(host, proposal, recheck);
  const view = proposal.updates.length > 0 ? host.overlay(proposal.updates) : host.store;
  const action = proposal.action;
  // 2. guards: reject wins over confirm
  const confirmGuard = matchingGuard(host, action, proposal.updates, view);
  if (confirmGuard?.source.mode === 'reject') return guardRejection(host, confirmGuard);
  // 3. performed rules
  const performed = performedRules(host, proposal);
  if (typeof performed === 'string')
    return invalidProposal(host, [{ code: 'objective-not-performed', message: performed }]);
  const context: EvaluationContext = { view, action, achieved: host.achieved, clock: host.clock };
  // 4. the rule-level (hard) check
  let deciding: readonly CompiledRule[] = noRules;
  if (performed.length > 0) {
    const decided = decidingRules(host, proposal, recheck, performed, context);
    if (isVerdict(decided)) return decided;
    deciding = decided;
  }
  // 5. unplanned critical action
  const unplanned = unplannedCritical(host, proposal, recheck, performed, deciding, confirmGuard);
  if (unplanned !== undefined && isVerdict(unplanned)) return unplanned;
  // 6. predicate-level (soft) check of the anticipated updates
  const soft = softRefusal(host, proposal, recheck, performed, view);
  if (soft) return soft;
  const plan: CommitPlan = { updates: proposal.updates, rules: deciding, finish: false, action };
  // 7. user approval
  const confirm = confirmation(
    host,
    proposal,
    recheck,
    plan,
    performed,
    context,
    confirmGuard,
    unplanned,
  );
  if (confirm) return confirm;
  // 8. allow and commit
  host.commit(plan, true);
  return host.verdict('allow', undefined, noReasons, performed, allowFeedback);
}

/** A proposal that cannot be checked: a hard `revise` naming its problems. */
export function invalidProposal(host: DecisionHost, problems: readonly ProposalProblem[]): Verdict {
  const reasons = invalidProposalReasons(problems);
  return host.verdict(
    'revise',
    'hard',
    reasons,
    [],
    joinFeedback('The proposal cannot be checked:', reasons),
  );
}
