import type { Literal } from '../language/index.js';
import { push } from './compile-rules.js';
import type { ArgumentIndex, CompiledRule } from './compiled-spec.js';
import { scalarKey } from './constraint-test.js';

/*
 * The last step of compiling a spec: first-argument indexes (as Prolog systems have) of
 * the actions whose rules mostly pin one argument with `=` (`ArgumentIndex`).
 */

/** The value a pinned argument is compared by at run time; undefined when it cannot be indexed. */
function indexKey(literal: Literal): string | number | boolean | undefined {
  const key = scalarKey(literal);
  // Relative dates depend on the session clock: such rules are not indexed.
  return typeof key === 'function' ? undefined : key;
}

function pinnedKey(rule: CompiledRule, variable: number): string | number | boolean | undefined {
  const constraint = rule.action?.constraints.find(
    (candidate) =>
      candidate.variable === variable &&
      candidate.source.access === undefined &&
      candidate.source.binding === undefined &&
      candidate.source.operator === '=' &&
      indexKey(candidate.source.value) !== undefined,
  );
  return constraint === undefined ? undefined : indexKey(constraint.source.value);
}

export function buildArgumentIndex(rules: readonly CompiledRule[]): ArgumentIndex | undefined {
  if (rules.length < 4) return undefined;
  const counts = new Map<number, number>();
  for (const rule of rules) {
    const seen = new Set<number>();
    for (const constraint of rule.action?.constraints ?? []) {
      if (
        constraint.source.operator !== '=' ||
        constraint.source.access !== undefined ||
        constraint.source.binding !== undefined ||
        indexKey(constraint.source.value) === undefined ||
        seen.has(constraint.variable)
      )
        continue;
      seen.add(constraint.variable);
      counts.set(constraint.variable, (counts.get(constraint.variable) ?? 0) + 1);
    }
  }
  let best: number | undefined;
  for (const [variable, count] of counts)
    if (best === undefined || count > (counts.get(best) ?? 0)) best = variable;
  if (best === undefined || (counts.get(best) ?? 0) < 2) return undefined;
  const variable = best;
  const byKey = new Map<string | number | boolean, CompiledRule[]>();
  const unindexed: CompiledRule[] = [];
  for (const rule of rules) {
    const key = pinnedKey(rule, variable);
    if (key === undefined) unindexed.push(rule);
    else push(byKey, key, rule);
  }
  return { variable, byKey, unindexed };
}
