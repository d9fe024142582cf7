import {
  answerPredicate,
  type CheckedPattern,
  operatorPolarity,
  refusedPrefix,
} from '../language/index.js';
import type { PredicateTable } from './compile-predicates.js';
import type { CompiledConstraint, CompiledPattern, CompiledRule } from './compiled-spec.js';
import { type CompileSettings, compileConstraintTest } from './constraint-test.js';
import { requirePart } from './engine-parts.js';
import { compileGuardTest } from './guard-constraint-test.js';
import { absentList } from './values.js';

const none: readonly never[] = Object.freeze([]);

/**
 * `list`, or one empty list shared by every empty one. Each allowed step reads the length
 * of its rules' lists: thousands of empty lists of a large spec lie each on a cache line
 * of their own (measured at 10,000 rules: 40 first-level cache misses a step in the rule
 * check), one shared list stays in cache.
 */
export function orNone<T>(list: readonly T[]): readonly T[] {
  return list.length === 0 ? none : list;
}

const alwaysHolds = () => true;

/** Compiles one pattern of a rule (`rule`) or of a guard; `slots` numbers its bindings. */
export type PatternCompiler = (
  pattern: CheckedPattern,
  rule: CompiledRule | undefined,
  guard?: boolean,
  slots?: Map<string, number>,
  negated?: boolean,
) => CompiledPattern;

/**
 * How a spec's patterns are compiled: each constraint to a test, by the rules' reading or
 * the deny-list reading (`guard`, or inside `not P(…)`), with its binding for the join.
 * Guards err toward firing (LANGUAGE.md §5.1): their text constraints match broadly, and
 * on an action a negative one holds on an argument that is not given.
 */
export function patternCompiler(table: PredicateTable, settings: CompileSettings): PatternCompiler {
  return (pattern, rule, guard = false, slots = new Map(), negated = false) => {
    const predicate =
      pattern.predicate === answerPredicate
        ? table.answer
        : (table.predicates.get(pattern.predicate.name) ??
          (pattern.predicate.name.startsWith(refusedPrefix)
            ? table.refused.get(pattern.predicate.name.slice(refusedPrefix.length))
            : undefined));
    if (!predicate)
      throw new Error(`internal: predicate ${pattern.predicate.name} is not in the schema`);
    const isAction = predicate.declaration.kind === 'action';
    const slotOf = (name: string) => {
      const known = slots.get(name);
      if (known !== undefined) return known;
      slots.set(name, slots.size);
      return slots.size - 1;
    };
    return {
      source: pattern,
      predicate,
      rule,
      constraints: pattern.constraints.map(
        (constraint): CompiledConstraint => ({
          source: constraint,
          variable: predicate.variableIndex.get(constraint.variable.name) ?? -1,
          test:
            constraint.binding || constraint.access?.joins
              ? alwaysHolds
              : constraint.access
                ? requirePart(settings.parts, 'paths').compileAccessTest(
                    constraint,
                    settings,
                    guard,
                    isAction,
                    negated,
                  )
                : // Inside `not P(…)`, what a guard counts as matching matches (E2).
                  guard || negated
                  ? compileGuardTest(constraint, settings)
                  : compileConstraintTest(constraint, settings),
          absent: isAction && constraint.variable.type.kind === 'list' ? absentList : undefined,
          // In a guard, only a negative constraint holds on an argument that is not given —
          // with a path, `len` or `as` too (LANGUAGE.md §5.1, O2): `len(description) > 2000`
          // must not refuse every call that leaves the description out. A path into a value
          // that is given but lacks the field is a missing field (§7): compileAccessTest.
          // In a rule's `not P(…)`, a path into a record the result does not carry holds too,
          // so that `not` fails closed (see compileAccessTest).
          holdsWhenAbsent:
            (guard && isAction && operatorPolarity[constraint.operator].negated) ||
            (negated &&
              constraint.access !== undefined &&
              constraint.variable.record !== undefined),
          // Every compiled constraint has the same shape (one hidden class on the hot path).
          binding:
            constraint.binding || constraint.access?.joins
              ? requirePart(settings.parts, 'paths').compileBinding(
                  constraint,
                  constraint.binding ? slotOf(constraint.binding.name) : -1,
                  settings,
                  isAction,
                  slotOf,
                  guard,
                  negated,
                )
              : undefined,
        }),
      ),
      absentArguments: orNone(
        (pattern.absent ?? []).map((variable) => predicate.variableIndex.get(variable.name) ?? -1),
      ),
    };
  };
}
