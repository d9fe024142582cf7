import type { CompiledGuard } from '../compiled-spec.js';
import { actionMatches, type ProposedAction } from '../evaluation.js';
import { guardReason } from '../feedback.js';
import type { StateUpdate, StateView } from '../state.js';
import type { Verdict } from '../verdict.js';
import type { DecisionHost } from './decision.js';

const noGuards: readonly CompiledGuard[] = [];

/**
 * Step 2: the first matching reject guard, else the first matching confirm guard —
 * guards on the action, and guards on states whose anticipated update makes them hold.
 * Reject wins over confirm.
 */
export function matchingGuard(
  host: DecisionHost,
  action: ProposedAction | undefined,
  updates: readonly StateUpdate[],
  view: StateView,
): CompiledGuard | undefined {
  const guards = host.compiled.guardsByPredicate;
  if (guards.size === 0) return undefined;
  // Most calls meet no guard: decided here, before the scope of the closure in
  // `guardOf` is made (a function makes it on entry).
  if (updates.length === 0 && (!action || !guards.has(action.predicate.name))) return undefined;
  return guardOf(host, action, updates, view);
}

function guardOf(
  host: DecisionHost,
  action: ProposedAction | undefined,
  updates: readonly StateUpdate[],
  view: StateView,
): CompiledGuard | undefined {
  const guards = host.compiled.guardsByPredicate;
  let confirm: CompiledGuard | undefined;
  const consider = (guard: CompiledGuard, candidate: ProposedAction): boolean => {
    if (!actionMatches(guard.pattern, candidate, host.clock)) return false;
    if (guard.source.mode === 'reject') return true;
    confirm ??= guard;
    return false;
  };
  if (action) {
    for (const guard of guards.get(action.predicate.name) ?? noGuards) {
      if (consider(guard, action)) return guard;
    }
  }
  for (const update of updates) {
    if (update.operation !== 'set') continue;
    const instance = view.instance(update.predicate, update.key);
    if (!instance) continue;
    for (const guard of guards.get(update.predicate.name) ?? noGuards) {
      if (consider(guard, { predicate: update.predicate, values: instance })) return guard;
    }
  }
  return confirm;
}

/** A reject guard's verdict: no person can overrule it, so it never escalates. */
export function guardRejection(host: DecisionHost, guard: CompiledGuard): Verdict {
  const reason = guardReason(guard, host.clock);
  return host.verdict('reject', undefined, [reason], [], reason.message);
}
