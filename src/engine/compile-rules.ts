import {
  type CheckedGuard,
  type CheckedRule,
  performanceLimit,
  perValueLimit,
} from '../language/index.js';
import { orNone, type PatternCompiler } from './compile-pattern.js';
import type {
  CompiledGuard,
  CompiledPattern,
  CompiledPredicate,
  CompiledRule,
} from './compiled-spec.js';
import { type EngineParts, requirePart } from './engine-parts.js';
import type { JoinPlan } from './join.js';

/** The empty list of rules, shared; frozen, as every list a compiled spec shares. */
export const noRules: readonly CompiledRule[] = Object.freeze([]);

/*
 * The middle steps of compiling a spec: its rules, with their patterns and the indexes
 * from heads, actions, objectives and state variables to them, and its guards.
 */

export function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** A spec's rules, compiled, with the indexes a proposal's evaluation looks them up by. */
export interface CompiledRules {
  readonly rules: readonly CompiledRule[];
  readonly rulesByHead: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly rulesByAction: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly gestureRulesByHead: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly patternsByVariable: ReadonlyArray<ReadonlyArray<readonly CompiledPattern[]>>;
  readonly doneRulesByPredicate: ReadonlyArray<readonly CompiledRule[]>;
  readonly doneRulesByObjective: ReadonlyMap<string, readonly CompiledRule[]>;
}

/**
 * The index of the rule a checked rule was written as: the first alternative's for an
 * alternative (`R3b` → `R3a`, by the id without its letter), else its own.
 */
function sourceRuleIndex(rule: CheckedRule, seen: Map<string, number>): number {
  const suffix = rule.alternative?.suffix;
  if (suffix === undefined || suffix === '' || !rule.id.endsWith(suffix)) return rule.index;
  const id = rule.id.slice(0, -suffix.length);
  const first = seen.get(id);
  if (first !== undefined) return first;
  seen.set(id, rule.index);
  return rule.index;
}

/** One rule with its patterns; a rule with bindings gets the plan of its join (LANGUAGE.md §7). */
function compileRule(
  source: CheckedRule,
  compilePattern: PatternCompiler,
  sourceRules: Map<string, number>,
  parts: EngineParts,
): CompiledRule {
  // The rule object is filled in place so that its patterns can point back at it.
  const rule = {
    source,
    index: source.index,
    id: source.id,
    head: source.head,
    isDone: source.isDone,
    states: [] as CompiledPattern[],
    negations: [] as readonly CompiledPattern[],
    action: undefined as CompiledPattern | undefined,
    objectives: orNone(source.objectives),
    limit: performanceLimit(source),
    budget: sourceRuleIndex(source, sourceRules),
    per: undefined as CompiledRule['per'],
    join: undefined as JoinPlan | undefined,
    alone: noRules,
    countedBy: noRules,
  };
  // Not frozen, as the rest of the compiled spec: V8 reads a frozen array's elements
  // through a generic path (about 90 instructions more per read), and every allowed step
  // of this rule reads this list. Only the engine holds it; no caller is given it.
  rule.alone = [rule];
  const slots = new Map<string, number>();
  rule.states = source.states.map((pattern) => compilePattern(pattern, rule, false, slots));
  rule.negations = orNone(
    (source.negations ?? []).map((pattern) => compilePattern(pattern, rule, false, slots, true)),
  );
  rule.action = source.action ? compilePattern(source.action, rule, false, slots) : undefined;
  // `not (A & B)`, `forall(A => B)` (LANGUAGE.md §9): joins of their own (universal.ts).
  const scopes =
    source.scopes === undefined
      ? []
      : requirePart(parts, 'paths').compileScopes(
          source.scopes,
          rule,
          compilePattern,
          slots,
          parts,
        );
  if (slots.size > 0 || scopes.length > 0) {
    const plan = requirePart(parts, 'paths').joinPlan(
      rule.action ? [...rule.states, rule.action] : rule.states,
      slots,
      rule.negations,
      parts,
      source.comparisons,
    );
    rule.join = scopes.length > 0 ? { ...plan, scopes } : plan;
  }
  const per = source.repeat?.per;
  if (per && rule.action) {
    const variable = rule.action.predicate.variableIndex.get(per.name);
    if (variable !== undefined) rule.per = { variable, limit: perValueLimit(source) };
  }
  return rule;
}

/** Compiles the rules in order, and indexes each by what it mentions. */
export function compileRules(
  sources: readonly CheckedRule[],
  compilePattern: PatternCompiler,
  predicateList: readonly CompiledPredicate[],
  parts: EngineParts,
): CompiledRules {
  const rules: CompiledRule[] = [];
  const rulesByHead = new Map<string, CompiledRule[]>();
  const rulesByAction = new Map<string, CompiledRule[]>();
  const gestureRulesByHead = new Map<string, CompiledRule[]>();
  const patternsByVariable: CompiledPattern[][][] = predicateList.map((predicate) =>
    predicate.variables.map(() => []),
  );
  const doneRulesByPredicate: CompiledRule[][] = predicateList.map(() => []);
  const doneRulesByObjective = new Map<string, CompiledRule[]>();
  const sourceRules = new Map<string, number>();
  for (const source of sources) {
    const rule = compileRule(source, compilePattern, sourceRules, parts);
    rules.push(rule);
    if (rule.isDone) {
      // A negated pattern changes the rule's truth as much as a positive one.
      const predicateIndexes = new Set(
        [...rule.states, ...rule.negations, ...scopePatternsOf(rule)].map(
          (pattern) => pattern.predicate.index,
        ),
      );
      for (const index of predicateIndexes) doneRulesByPredicate[index]?.push(rule);
      for (const name of new Set(rule.objectives.map((condition) => condition.name))) {
        push(doneRulesByObjective, name, rule);
      }
    } else {
      push(rulesByHead, rule.head, rule);
      if (rule.action) push(rulesByAction, rule.action.predicate.name, rule);
      else push(gestureRulesByHead, rule.head, rule);
    }
    for (const pattern of rule.states) {
      const seen = new Set<number>();
      for (const constraint of pattern.constraints) {
        if (seen.has(constraint.variable)) continue;
        seen.add(constraint.variable);
        patternsByVariable[pattern.predicate.index]?.[constraint.variable]?.push(pattern);
      }
    }
  }
  // Filled in place once every Done rule is known (the rule objects are this module's).
  for (const rule of rules)
    (rule as { countedBy: readonly CompiledRule[] }).countedBy =
      doneRulesByObjective.get(rule.head) ?? noRules;
  return {
    rules,
    rulesByHead,
    rulesByAction,
    gestureRulesByHead,
    patternsByVariable,
    doneRulesByPredicate,
    doneRulesByObjective,
  };
}

/** The guards by the predicate of their pattern; a guard with bindings matches by a join over its one action. */
export function compileGuards(
  guards: readonly CheckedGuard[],
  compilePattern: PatternCompiler,
  parts: EngineParts,
): ReadonlyMap<string, readonly CompiledGuard[]> {
  const guardsByPredicate = new Map<string, CompiledGuard[]>();
  for (const guard of guards) {
    const slots = new Map<string, number>();
    const pattern = compilePattern(guard.pattern, undefined, true, slots);
    push(guardsByPredicate, guard.pattern.predicate.name, {
      source: guard,
      pattern:
        slots.size > 0
          ? {
              ...pattern,
              join: requirePart(parts, 'paths').joinPlan(
                [pattern],
                slots,
                [],
                parts,
                guard.comparisons,
                true,
              ),
            }
          : pattern,
    });
  }
  return guardsByPredicate;
}

/** Each objective's step numbers on the roadmap (the non-Done rules, from 1). */
export function stepNumbersOf(
  steps: readonly CompiledRule[],
): ReadonlyMap<string, readonly number[]> {
  const stepNumbers = new Map<string, number[]>();
  steps.forEach((rule, index) => {
    push(stepNumbers, rule.head, index + 1);
  });
  return stepNumbers;
}

/** The patterns of a rule's scopes, nested ones too (universal.ts), for the indexes to Done rules. */
function scopePatternsOf(rule: CompiledRule): readonly CompiledPattern[] {
  const join = rule.join;
  return join?.scopes === undefined
    ? []
    : requirePart(join.parts, 'paths').scopePlanPatterns(join.scopes);
}
