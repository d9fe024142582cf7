import type { CompiledGuard, CompiledRule } from '../compiled-spec.js';
import { unplannedReason } from '../feedback.js';
import type { NormalizedProposal } from '../proposal.js';
import type { Reason, Verdict } from '../verdict.js';
import type { DecisionHost, Recheck } from './decision.js';

/**
 * Step 5: an unplanned critical action — its action matches no rule by name and no
 * guard (a declared objective cannot plan it: see `performedRules`). The reason when
 * the session asks the user for it (`unplannedCritical: 'confirm'`), the refusal when
 * it refuses it, undefined when the action is planned or not critical.
 */
export function unplannedCritical(
  host: DecisionHost,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
  performed: readonly CompiledRule[],
  deciding: readonly CompiledRule[],
  confirmGuard: CompiledGuard | undefined,
): Reason | Verdict | undefined {
  const action = proposal.action;
  if (
    !action ||
    confirmGuard !== undefined ||
    !action.predicate.declaration.critical ||
    // The performed rules are the action's own (step 3): none means no rule names it.
    performed.length > 0
  )
    return undefined;
  const asConfirm = host.settings.unplannedCritical === 'confirm';
  const unplanned = unplannedReason(action.predicate.declaration, asConfirm);
  if (asConfirm) return unplanned;
  const plan = { updates: proposal.updates, rules: deciding, finish: false, action };
  return host.hardRefusal(
    proposal,
    recheck,
    [unplanned],
    performed,
    plan,
    unplanned.message,
    host.roadmap(),
  );
}
