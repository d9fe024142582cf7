import type { CheckedArithmetic, CheckedComparison } from '../language/index.js';
import type { SessionClock } from './clock.js';
import type { EngineParts } from './engine-parts.js';
import { comparePositive, compute, type Key, unitIn } from './join.js';

/*
 * Conditions on bindings (v3, LANGUAGE.md §9): `$paid - $price <= 600` in a rule's body or
 * after a guard's pattern. The join (join.ts) judges each as soon as the patterns that bind
 * its bindings have been matched, so an assignment that fails it is dropped before the
 * rest of the body is searched. A side that does not fit — a text where a number is
 * computed on, a binding without a value, a date against a number — makes the comparison
 * false in a rule and true in a guard (§5.1: fail closed).
 */

export interface CompiledComparison {
  readonly source: CheckedComparison;
  /** Whether it holds under the assignment (`env` by slot); undefined: it does not fit. */
  readonly holds: (env: readonly unknown[], clock: SessionClock) => boolean | undefined;
}

/** A side's value as bindings compare it: a bound value itself, or a number computed on them. */
function termKey(
  term: CheckedArithmetic,
  env: readonly unknown[],
  slotOf: (name: string) => number,
  clock: SessionClock,
): Key | undefined {
  if (term.kind === 'binding') {
    const value = env[slotOf(term.name)];
    return typeof value === 'object' && value !== null ? (value as Key) : undefined;
  }
  const value = compute(term, env, slotOf, clock);
  if (value === undefined) return undefined;
  const unit = unitIn(term, env, slotOf);
  return unit === undefined ? { kind: 'number', value } : { kind: 'number', value, unit };
}

/** Compiles a comparison against the slots of its rule's (or guard's) bindings. */
export function compileComparison(
  source: CheckedComparison,
  slots: ReadonlyMap<string, number>,
  parts: EngineParts,
  guard: boolean,
): CompiledComparison {
  const slotOf = (name: string) => slots.get(name) ?? -1;
  const negated = source.operator === '!=';
  const positive = negated ? '=' : source.operator;
  return {
    source,
    holds: (env, clock) => {
      const left = termKey(source.left, env, slotOf, clock);
      const right = termKey(source.right, env, slotOf, clock);
      // A guard reads equal texts as the deny-list reading does (look-alikes, parts); its
      // negation stays the rules' reading, which holds more often.
      const result = comparePositive(positive, left, right, parts, guard && !negated);
      return result === undefined ? undefined : result !== negated;
    },
  };
}

/**
 * The comparisons judged before each pattern of a join (index `patterns.length`: after
 * the last): each where the last pattern that binds one of its bindings has been matched.
 * `boundAt` gives, per slot, the index of the pattern that binds it.
 */
export function scheduleComparisons(
  comparisons: readonly CompiledComparison[],
  slots: ReadonlyMap<string, number>,
  boundAt: readonly (number | undefined)[],
  patternCount: number,
): readonly (readonly CompiledComparison[] | undefined)[] {
  const schedule: CompiledComparison[][] = [];
  for (const comparison of comparisons) {
    const names: string[] = [];
    namesIn(comparison.source.left, names);
    namesIn(comparison.source.right, names);
    let due = 0;
    for (const name of names) {
      const slot = slots.get(name);
      // A binding no pattern binds (only a use in another alternative): judged last.
      const at = slot === undefined ? undefined : boundAt[slot];
      due = Math.max(due, at === undefined ? patternCount : at + 1);
    }
    const list = schedule[due];
    if (list === undefined) schedule[due] = [comparison];
    else list.push(comparison);
  }
  return Array.from({ length: patternCount + 1 }, (_, index) => schedule[index]);
}

function namesIn(term: CheckedArithmetic, into: string[]): void {
  if (term.kind === 'binding') into.push(term.name);
  else if (term.kind === 'operation' || term.kind === 'extremum') {
    namesIn(term.left, into);
    namesIn(term.right, into);
  }
}
