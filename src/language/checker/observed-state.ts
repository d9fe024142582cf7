import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { hasObservedFacts, type Schema } from '../schema-model.js';
import type { CheckedPattern, CheckedRule } from './spec.js';

/**
 * Warns when the spec's rules need state but the schema marks no fact observed
 * (FORMATS.md §1): then the agent's own `updates` can claim every precondition
 * ("available = true") and outcome ("success = true"). Tool schemas never warn: their
 * results are observed. One warning per spec, at the first state pattern of a rule —
 * the first precondition the agent could claim — since the fix is in the schema, which
 * has no position of its own in the spec's diagnostics.
 */
export function reportNoObservedState(
  rules: readonly CheckedRule[],
  schema: Schema,
  diagnostics: DiagnosticBag,
): void {
  for (const predicate of schema.predicates.values()) {
    if (predicate.kind === 'state' && hasObservedFacts(predicate)) return;
  }
  let first: CheckedPattern | undefined;
  for (const rule of rules) {
    for (const pattern of rule.states) {
      if (first === undefined || pattern.range.start.offset < first.range.start.offset) {
        first = pattern;
      }
    }
  }
  if (first === undefined) return;
  diagnostics.report('no-observed-state', { range: first.range }, { name: first.predicate.name });
}
