import { argumentError, specProblem } from '../language/arguments.js';
import type {
  CheckedGuard,
  CheckedPattern,
  CheckedRule,
  ObjectiveCondition,
  PredicateDeclaration,
  Spec,
  VariableDeclaration,
} from '../language/index.js';
import {
  answerPredicate,
  type Literal,
  operatorPolarity,
  performanceLimit,
  perValueLimit,
} from '../language/index.js';
import {
  type ConstraintTest,
  compileConstraintTest,
  type SimilaritySettings,
  scalarKey,
} from './constraint-test.js';
import { compileGuardTest } from './guard-constraint-test.js';
import type { CompiledBinding, JoinPlan } from './join.js';
import { pathEvaluators } from './path-evaluators.js';
import { absentList, type Value } from './values.js';

const alwaysHolds = () => true;

/**
 * A spec prepared for fast evaluation: variables addressed by index, constraint
 * tests compiled to closures, and indexes from predicates, variables, actions and
 * objectives to the rules that mention them — so a proposal touches only the rules
 * that mention what it changes. Built once per spec and shared by its sessions.
 */
export interface CompiledPredicate {
  readonly index: number;
  readonly declaration: PredicateDeclaration;
  readonly name: string;
  readonly variables: readonly VariableDeclaration[];
  readonly variableIndex: ReadonlyMap<string, number>;
  /** Indexes of the key variables; empty for a single-instance predicate. */
  readonly keyIndexes: readonly number[];
}

export interface CompiledConstraint {
  readonly source: CheckedPattern['constraints'][number];
  readonly variable: number;
  readonly test: ConstraintTest;
  /**
   * What an absent argument stands for: the empty list for a list argument of an action
   * (LANGUAGE.md §5.1); undefined otherwise (unobserved).
   */
  readonly absent: Value | undefined;
  /** Whether the constraint holds on an unobserved value: a negative one in a guard on an action. */
  readonly holdsWhenAbsent: boolean;
  /** A constraint with a binding `$x` (its `test` always holds; the join decides). */
  readonly binding: CompiledBinding | undefined;
}

export interface CompiledPattern {
  readonly source: CheckedPattern;
  readonly predicate: CompiledPredicate;
  readonly constraints: readonly CompiledConstraint[];
  /** `absent(arg)` (v2): indexes of arguments the action must not give. */
  readonly absentArguments: readonly number[];
  /** The rule the pattern belongs to; undefined for a guard's pattern. */
  readonly rule: CompiledRule | undefined;
  /** A guard's pattern with bindings: matched by a join over its one action. */
  readonly join?: JoinPlan;
}

export interface CompiledRule {
  readonly source: CheckedRule;
  readonly index: number;
  readonly id: string;
  readonly head: string;
  readonly isDone: boolean;
  readonly states: readonly CompiledPattern[];
  /** `not P(...)` (v2): patterns no instance may satisfy. */
  readonly negations: readonly CompiledPattern[];
  readonly action: CompiledPattern | undefined;
  readonly objectives: readonly ObjectiveCondition[];
  /** How often this rule may be performed: 1, n for @repeat(n), Infinity for @repeat. */
  readonly limit: number;
  /**
   * Whose `@repeat` budget the rule spends (its performances, its values per `per:`): its
   * own index, or for an alternative of a disjunctive rule the first alternative's. The
   * budget belongs to the source rule — alternatives are sugar (LANGUAGE.md §7, E5).
   */
  readonly budget: number;
  /** `@repeat(per: arg)` (v2): the action argument's index, and the budget per value. */
  readonly per: { readonly variable: number; readonly limit: number } | undefined;
  /** Set when the rule has bindings: it fires by a join (LANGUAGE.md §7). */
  readonly join?: JoinPlan;
}

/**
 * A first-argument index (as Prolog systems have): for an action whose rules mostly
 * pin one argument with `=`, the rules by that argument's value, so that deciding a
 * call evaluates only the rules that can match it.
 */
export interface ArgumentIndex {
  readonly variable: number;
  readonly byKey: ReadonlyMap<string | number | boolean, readonly CompiledRule[]>;
  /** Rules that do not pin the variable: always candidates. */
  readonly unindexed: readonly CompiledRule[];
}

export interface CompiledGuard {
  readonly source: CheckedGuard;
  readonly pattern: CompiledPattern;
}

export interface CompiledSpec {
  readonly spec: Spec;
  readonly predicates: ReadonlyMap<string, CompiledPredicate>;
  /** Also by a tool's own name when it differs (`get-weather`). */
  readonly predicatesBySourceName: ReadonlyMap<string, CompiledPredicate>;
  readonly predicateList: readonly CompiledPredicate[];
  /** The built-in `Answer` when a rule uses it (and the schema has no own `Answer`). */
  readonly answer: CompiledPredicate | undefined;
  readonly rules: readonly CompiledRule[];
  readonly doneRules: readonly CompiledRule[];
  readonly rulesByHead: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly rulesByAction: ReadonlyMap<string, readonly CompiledRule[]>;
  /** Per objective, its rules without an action pattern: what a proposal without an action may perform. */
  readonly gestureRulesByHead: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly argumentIndexes: ReadonlyMap<string, ArgumentIndex>;
  /** The non-Done rules (the roadmap's steps), and each objective's step numbers. */
  readonly steps: readonly CompiledRule[];
  readonly stepNumbers: ReadonlyMap<string, readonly number[]>;
  readonly guardsByPredicate: ReadonlyMap<string, readonly CompiledGuard[]>;
  /** predicate index → variable index → state patterns (of any rule) constraining it. */
  readonly patternsByVariable: ReadonlyArray<ReadonlyArray<readonly CompiledPattern[]>>;
  /** Done rules by the predicate indexes and objectives they mention. */
  readonly doneRulesByPredicate: ReadonlyArray<readonly CompiledRule[]>;
  readonly doneRulesByObjective: ReadonlyMap<string, readonly CompiledRule[]>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function compileSpec(spec: Spec, settings: SimilaritySettings): CompiledSpec {
  const misuse = specProblem(spec);
  if (misuse) throw argumentError('compileSpec', misuse);
  const predicates = new Map<string, CompiledPredicate>();
  const predicatesBySourceName = new Map<string, CompiledPredicate>();
  const predicateList: CompiledPredicate[] = [];
  // The built-in Answer (LANGUAGE.md §7) is indexed like any state, but it is not in
  // `predicates`: no proposal or observation can name it.
  const usesAnswer =
    !spec.schema.predicates.has(answerPredicate.name) &&
    spec.rules.some((rule) =>
      [...rule.states, ...(rule.negations ?? [])].some(
        (pattern) => pattern.predicate === answerPredicate,
      ),
    );
  const declarations = usesAnswer
    ? [...spec.schema.predicates.values(), answerPredicate]
    : spec.schema.predicates.values();
  let answer: CompiledPredicate | undefined;
  for (const declaration of declarations) {
    // Record arguments are read by the record reader (record-values.ts): a schema with
    // records is refused here when it is not loaded, rather than at a proposal.
    if (declaration.variables.some((variable) => variable.record !== undefined)) pathEvaluators();
    const variableIndex = new Map(
      declaration.variables.map((variable, index) => [variable.name, index]),
    );
    const compiled: CompiledPredicate = {
      index: predicateList.length,
      declaration,
      name: declaration.name,
      variables: declaration.variables,
      variableIndex,
      keyIndexes: declaration.keys.flatMap((key) => {
        const index = variableIndex.get(key);
        return index === undefined ? [] : [index];
      }),
    };
    predicateList.push(compiled);
    if (declaration === answerPredicate) {
      answer = compiled;
      continue;
    }
    predicates.set(declaration.name, compiled);
    if (declaration.sourceName !== undefined)
      predicatesBySourceName.set(declaration.sourceName, compiled);
  }

  // Guards err toward firing (LANGUAGE.md §5.1): their text constraints match broadly,
  // and on an action a negative one holds on an argument that is not given.
  const compilePattern = (
    pattern: CheckedPattern,
    rule: CompiledRule | undefined,
    guard = false,
    slots: Map<string, number> = new Map(),
    negated = false,
  ): CompiledPattern => {
    const predicate =
      pattern.predicate === answerPredicate ? answer : predicates.get(pattern.predicate.name);
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
      constraints: pattern.constraints.map((constraint) => ({
        source: constraint,
        variable: predicate.variableIndex.get(constraint.variable.name) ?? -1,
        test:
          constraint.binding || constraint.access?.joins
            ? alwaysHolds
            : constraint.access
              ? pathEvaluators().compileAccessTest(constraint, settings, guard, isAction, negated)
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
          (negated && constraint.access !== undefined && constraint.variable.record !== undefined),
        // Every compiled constraint has the same shape (one hidden class on the hot path).
        binding:
          constraint.binding || constraint.access?.joins
            ? pathEvaluators().compileBinding(
                constraint,
                constraint.binding ? slotOf(constraint.binding.name) : -1,
                settings,
                isAction,
                slotOf,
                guard,
                negated,
              )
            : undefined,
      })),
      absentArguments: (pattern.absent ?? []).map(
        (variable) => predicate.variableIndex.get(variable.name) ?? -1,
      ),
    };
  };

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
  for (const source of spec.rules) {
    // The rule object is filled in place so that its patterns can point back at it.
    const rule = {
      source,
      index: source.index,
      id: source.id,
      head: source.head,
      isDone: source.isDone,
      states: [] as CompiledPattern[],
      negations: [] as CompiledPattern[],
      action: undefined as CompiledPattern | undefined,
      objectives: source.objectives,
      limit: performanceLimit(source),
      budget: sourceRuleIndex(source, sourceRules),
      per: undefined as CompiledRule['per'],
      join: undefined as JoinPlan | undefined,
    };
    const slots = new Map<string, number>();
    rule.states = source.states.map((pattern) => compilePattern(pattern, rule, false, slots));
    rule.negations = (source.negations ?? []).map((pattern) =>
      compilePattern(pattern, rule, false, slots, true),
    );
    rule.action = source.action ? compilePattern(source.action, rule, false, slots) : undefined;
    if (slots.size > 0)
      rule.join = pathEvaluators().joinPlan(
        rule.action ? [...rule.states, rule.action] : rule.states,
        slots,
        rule.negations,
      );
    const per = source.repeat?.per;
    if (per && rule.action) {
      const variable = rule.action.predicate.variableIndex.get(per.name);
      if (variable !== undefined) rule.per = { variable, limit: perValueLimit(source) };
    }
    rules.push(rule);
    if (rule.isDone) {
      // A negated pattern changes the rule's truth as much as a positive one.
      const predicateIndexes = new Set(
        [...rule.states, ...rule.negations].map((pattern) => pattern.predicate.index),
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

  const guardsByPredicate = new Map<string, CompiledGuard[]>();
  for (const guard of spec.guards) {
    const slots = new Map<string, number>();
    const pattern = compilePattern(guard.pattern, undefined, true, slots);
    push(guardsByPredicate, guard.pattern.predicate.name, {
      source: guard,
      pattern:
        slots.size > 0
          ? { ...pattern, join: pathEvaluators().joinPlan([pattern], slots) }
          : pattern,
    });
  }

  const steps = rules.filter((rule) => !rule.isDone);
  const stepNumbers = new Map<string, number[]>();
  steps.forEach((rule, index) => {
    push(stepNumbers, rule.head, index + 1);
  });
  const argumentIndexes = new Map<string, ArgumentIndex>();
  for (const [name, actionRules] of rulesByAction) {
    const index = buildArgumentIndex(actionRules);
    if (index) argumentIndexes.set(name, index);
  }

  return {
    spec,
    predicates,
    predicatesBySourceName,
    predicateList,
    answer,
    rules,
    doneRules: rules.filter((rule) => rule.isDone),
    rulesByHead,
    rulesByAction,
    gestureRulesByHead,
    argumentIndexes,
    steps,
    stepNumbers,
    guardsByPredicate,
    patternsByVariable,
    doneRulesByPredicate,
    doneRulesByObjective,
  };
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

/** The value a pinned argument is compared by at run time; undefined when it cannot be indexed. */
export function indexKey(literal: Literal): string | number | boolean | undefined {
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

function buildArgumentIndex(rules: readonly CompiledRule[]): ArgumentIndex | undefined {
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
