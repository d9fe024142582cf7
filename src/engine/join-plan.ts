import { type CheckedComparison, defaultLimits } from '../language/index.js';
import { compileComparison, scheduleComparisons } from './binding-comparisons.js';
import type { CompiledPattern } from './compiled-spec.js';
import type { EngineParts } from './engine-parts.js';
import type { Binder, JoinPlan } from './join.js';

/*
 * The plan of a join (join.ts), made when a rule or a guard with bindings is compiled
 * (compiled-spec.ts): only a spec with bindings needs it, so it is part of the engine's
 * on-demand part with the evaluators that run it (path-evaluators.ts).
 */

/** A join over patterns in body order, with where each binding gets its value. */
export function joinPlan(
  patterns: readonly CompiledPattern[],
  slots: ReadonlyMap<string, number>,
  negations: readonly CompiledPattern[],
  parts: EngineParts,
  comparisons: readonly CheckedComparison[] = [],
  guard = false,
): JoinPlan {
  const ordered = [...patterns].sort(
    (a, b) => a.source.range.start.offset - b.source.range.start.offset,
  );
  const binders: Binder[] = [...slots.keys()].map((name) => ({
    name,
    text: `$${name}`,
    predicate: '',
  }));
  // Per slot, the pattern that binds it: a comparison is judged once all of its are matched.
  const boundAt: (number | undefined)[] = [];
  for (const [index, pattern] of ordered.entries()) {
    for (const constraint of pattern.constraints) {
      const binding = constraint.binding;
      for (const inner of binding?.filter?.binders ?? []) {
        boundAt[inner.slot] ??= index;
        binders[inner.slot] = {
          name: inner.name,
          text: inner.text,
          predicate: pattern.predicate.name,
        };
      }
      if (binding === undefined || !binding.binds) continue;
      boundAt[binding.slot] ??= index;
      binders[binding.slot] = {
        name: binding.name,
        text: constraint.source.access?.text ?? constraint.source.variable.name,
        predicate: pattern.predicate.name,
      };
    }
  }
  return {
    patterns: ordered,
    bindingConstraints: ordered.map((pattern) =>
      pattern.constraints.filter((constraint) => constraint.binding !== undefined),
    ),
    binders,
    // `not P(x = $a)`: judged for each assignment, after every positive atom bound it.
    negations: negations.filter((pattern) =>
      pattern.constraints.some((constraint) => constraint.binding !== undefined),
    ),
    limit: defaultLimits.maxJoinWork,
    parts,
    ...(comparisons.length > 0
      ? {
          comparisons: scheduleComparisons(
            comparisons.map((comparison) => compileComparison(comparison, slots, parts, guard)),
            slots,
            boundAt,
            ordered.length,
          ),
        }
      : {}),
  };
}
