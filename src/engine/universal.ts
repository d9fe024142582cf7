import type { CheckedScope } from '../language/index.js';
import type { PatternCompiler } from './compile-pattern.js';
import type { CompiledPattern, CompiledRule } from './compiled-spec.js';
import { type EngineParts, requirePart } from './engine-parts.js';
import type { JoinPlan } from './join.js';

/*
 * Scoped negation and universals (LANGUAGE.md §9) compiled for the join (join.ts): each
 * scope is a join of its own over the rule's bindings and its local ones, and holds when
 * that join finds no assignment. `forall(A => B)` is `not (A & not (B))`: the checker
 * gives it as a scope over A whose last nested scope is B.
 *
 * Readings alternate with depth so that doubt never lets a rule fire: what a scope at odd
 * depth finds makes the rule's `not` fail, so it is matched broadly (the deny-list reading
 * of `not P(…)`, a field not reported as matching); at even depth (the conclusion of a
 * `forall`), what is found makes the rule hold, so it is matched as rules match.
 */

/** The patterns of a rule's scopes, nested ones too, as compiled (for the indexes to Done rules). */
export function scopePlanPatterns(plans: readonly JoinPlan[] | undefined): CompiledPattern[] {
  const found: CompiledPattern[] = [];
  for (const plan of plans ?? []) found.push(...plan.patterns, ...scopePlanPatterns(plan.scopes));
  return found;
}

/**
 * The plans of a rule's scopes; `slots` is the rule's numbering of bindings, which the
 * scopes' local bindings extend (a sibling scope's same name shares a slot: scopes are
 * judged one after another, and each leaves its slots unbound).
 */
export function compileScopes(
  scopes: readonly CheckedScope[],
  rule: CompiledRule,
  compilePattern: PatternCompiler,
  slots: Map<string, number>,
  parts: EngineParts,
  depth = 1,
): JoinPlan[] {
  const paths = requirePart(parts, 'paths');
  return scopes.map((scope) => {
    const patterns = scope.states.map((pattern) =>
      compilePattern(pattern, rule, false, slots, depth % 2 === 1),
    );
    const inner = compileScopes(scope.scopes ?? [], rule, compilePattern, slots, parts, depth + 1);
    // A condition on bindings inside is read as the scope's patterns are: broadly where
    // what is found makes the rule's `not` fail.
    const plan = paths.joinPlan(patterns, slots, [], parts, scope.comparisons, depth % 2 === 1);
    return inner.length > 0 ? { ...plan, scopes: inner } : plan;
  });
}
