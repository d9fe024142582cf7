import { argumentError, specProblem } from '../language/arguments.js';
import {
  type CheckedGuard,
  type CheckedPattern,
  type CheckedRule,
  declaresSettings,
  type ObjectiveCondition,
  type PredicateDeclaration,
  type Spec,
  type VariableDeclaration,
} from '../language/index.js';
import { buildArgumentIndex } from './argument-index.js';
import { patternCompiler } from './compile-pattern.js';
import { compilePredicates } from './compile-predicates.js';
import { compileGuards, compileRules, stepNumbersOf } from './compile-rules.js';
import type { CompileSettings, ConstraintTest } from './constraint-test.js';
import { type EngineParts, requirePart } from './engine-parts.js';
import type { FrameCheck } from './frame-conditions.js';
import type { CompiledBinding, JoinPlan } from './join.js';
import type { ArgumentLayout } from './proposal.js';
import type { PerformedHeads } from './session/decision.js';
import type { Value } from './values.js';

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
  /**
   * For an action: the rules whose action pattern names it (`rulesByAction`), and their
   * first-argument index — found from a proposal's action without a lookup by name.
   * Filled in once the rules are compiled.
   */
  readonly actionRules: readonly CompiledRule[];
  readonly argumentIndex: ArgumentIndex | undefined;
  /**
   * Made on first use and kept here, read by every proposal that names the predicate (a
   * field read where a WeakMap would cost a hash lookup on the allowed path): the
   * proposal reader's layout of its arguments (proposal.ts), and the heads of
   * `actionRules` with their shared `achieved` records (session/decision.ts). Derived
   * from the predicate and its rules alone, so equal whichever session makes them.
   */
  layout: ArgumentLayout | undefined;
  actionHeads: PerformedHeads | undefined;
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
  readonly join?: JoinPlan | undefined;
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
  readonly join?: JoinPlan | undefined;
  /**
   * The list of this rule alone, one list for every proposal that performs only it, so that
   * what is cached per list (decision.ts) is found and no list is made per proposal.
   */
  readonly alone: readonly CompiledRule[];
  /** The Done rules with a count condition on this rule's head (`Paid >= 2`). */
  readonly countedBy: readonly CompiledRule[];
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
  /** The built-in states behind `refused A(…)` the rules read (LANGUAGE.md §8), by action name. */
  readonly refused: ReadonlyMap<string, CompiledPredicate>;
  readonly rules: readonly CompiledRule[];
  readonly doneRules: readonly CompiledRule[];
  readonly rulesByHead: ReadonlyMap<string, readonly CompiledRule[]>;
  readonly rulesByAction: ReadonlyMap<string, readonly CompiledRule[]>;
  /** Per objective, its rules without an action pattern: what a proposal without an action may perform. */
  readonly gestureRulesByHead: ReadonlyMap<string, readonly CompiledRule[]>;
  /** The non-Done rules (the roadmap's steps), and each objective's step numbers. */
  readonly steps: readonly CompiledRule[];
  readonly stepNumbers: ReadonlyMap<string, readonly number[]>;
  readonly guardsByPredicate: ReadonlyMap<string, readonly CompiledGuard[]>;
  /** predicate index → variable index → state patterns (of any rule) constraining it. */
  readonly patternsByVariable: ReadonlyArray<ReadonlyArray<readonly CompiledPattern[]>>;
  /** Done rules by the predicate indexes they mention (by objective: each rule's `countedBy`). */
  readonly doneRulesByPredicate: ReadonlyArray<readonly CompiledRule[]>;
  /** The engine's parts it was compiled with: what evaluating it and explaining its verdicts use. */
  readonly parts: EngineParts;
  /**
   * The frame conditions of the settings its schema marks and no rule or guard
   * constrains (frame-conditions.ts); undefined where there are none.
   */
  readonly frame: FrameCheck | undefined;
}

/**
 * Compiles a checked spec, step by step: its predicates (compile-predicates.ts), its
 * rules with their patterns and the indexes to them, its guards (compile-rules.ts), the
 * roadmap's steps, and the first-argument indexes of actions (argument-index.ts).
 * `settings.parts`: a spec that needs a part it is not given is refused here
 * (`requirePart`), never compiled without it.
 */
export function compileSpec(spec: Spec, settings: CompileSettings): CompiledSpec {
  const misuse = specProblem(spec);
  if (misuse) throw argumentError('compileSpec', misuse);
  const table = compilePredicates(spec, settings.parts);
  const compilePattern = patternCompiler(table, settings);
  const compiled = compileRules(spec.rules, compilePattern, table.predicateList, settings.parts);
  const steps = compiled.rules.filter((rule) => !rule.isDone);
  for (const actionRules of compiled.rulesByAction.values()) {
    const index = buildArgumentIndex(actionRules);
    // The action's predicate object, this compilation's own (compile-predicates.ts).
    const predicate = actionRules[0]?.action?.predicate;
    if (predicate === undefined) continue;
    const filled = predicate as { actionRules: CompiledPredicate['actionRules'] } & {
      argumentIndex: CompiledPredicate['argumentIndex'];
    };
    filled.actionRules = actionRules;
    filled.argumentIndex = index;
  }
  return {
    spec,
    predicates: table.predicates,
    predicatesBySourceName: table.predicatesBySourceName,
    predicateList: table.predicateList,
    answer: table.answer,
    refused: table.refused,
    rules: compiled.rules,
    doneRules: compiled.rules.filter((rule) => rule.isDone),
    rulesByHead: compiled.rulesByHead,
    rulesByAction: compiled.rulesByAction,
    gestureRulesByHead: compiled.gestureRulesByHead,
    steps,
    stepNumbers: stepNumbersOf(steps),
    guardsByPredicate: compileGuards(spec.guards, compilePattern, settings.parts),
    patternsByVariable: compiled.patternsByVariable,
    doneRulesByPredicate: compiled.doneRulesByPredicate,
    parts: settings.parts,
    // A schema that marks settings is refused without the part: they would go unchecked.
    frame: declaresSettings(spec.schema)
      ? requirePart(settings.parts, 'frame')(spec, table.predicates)
      : undefined,
  };
}
