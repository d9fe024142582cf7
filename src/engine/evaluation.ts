import type { ObjectiveCondition } from '../language/index.js';
import { plainConstructor } from '../support/plain-constructor.js';
import type { SessionClock } from './clock.js';
import type {
  CompiledConstraint,
  CompiledPattern,
  CompiledPredicate,
  CompiledRule,
} from './compiled-spec.js';
import { requirePart } from './engine-parts.js';
import type { JoinFailure, ScopeWitnesses } from './join.js';
import { type Instance, type StateView, singleKey, unreadableReason } from './state.js';
import { isGiven, type Value } from './values.js';

/** The action a proposal carries, with its arguments read into an instance. */
export interface ProposedAction {
  readonly predicate: CompiledPredicate;
  readonly values: Instance;
}

/**
 * A proposed action, made by a constructor for the reason `PlainVerdict` is (verdict.ts):
 * a session keeps the actions it committed (up to `maxHistory`).
 */
export const PlainAction = plainConstructor<
  [predicate: CompiledPredicate, values: Instance],
  ProposedAction
>(function (this: Record<string, unknown>, predicate, values) {
  this.predicate = predicate;
  this.values = values;
});

/** Everything a rule is evaluated against. */
export interface EvaluationContext {
  readonly view: StateView;
  /** The proposal's action; absent when judging the current state (Done, roadmap). */
  readonly action: ProposedAction | undefined;
  readonly achieved: ReadonlyMap<string, number>;
  readonly clock: SessionClock;
}

export function compareCount(count: number, condition: ObjectiveCondition): boolean {
  switch (condition.operator) {
    case '=':
      return count === condition.count;
    case '!=':
      return count !== condition.count;
    case '<':
      return count < condition.count;
    case '<=':
      return count <= condition.count;
    case '>':
      return count > condition.count;
    case '>=':
      return count >= condition.count;
  }
}

function instanceSatisfies(
  instance: Instance,
  constraints: readonly CompiledConstraint[],
  clock: SessionClock,
  unobservedMatches = false,
): boolean {
  for (let index = 0; index < constraints.length; index++) {
    const constraint = constraints[index]!;
    const value = instance[constraint.variable] ?? constraint.absent;
    if (value === undefined) {
      // Unobserved: false, except a guard's negative constraint on an action (§5.1).
      if (!constraint.holdsWhenAbsent && !unobservedMatches) return false;
    } else if (!constraint.test(value, clock)) return false;
  }
  return true;
}

/**
 * Whether some instance matches a negated pattern (`not P(…)` holds when none does). In
 * a tool's result, a field that is unobserved — the result did not report it, or came
 * and could not be read (E1, E3) — counts as matching, as a record the result does not
 * carry does: the result may hold what the `not` forbids (fail closed).
 */
export function negationMatches(
  pattern: CompiledPattern,
  view: StateView,
  clock: SessionClock,
): boolean {
  if (pattern.predicate.declaration.resultOf === undefined)
    return patternHolds(pattern, view, clock);
  return view.someInstance(pattern.predicate, (instance) =>
    instanceSatisfies(instance, pattern.constraints, clock, true),
  );
}

/** A state pattern holds if some instance satisfies all its constraints together. */
export function patternHolds(
  pattern: CompiledPattern,
  view: StateView,
  clock: SessionClock,
): boolean {
  // A single-instance predicate has at most one instance: test it without a visitor closure.
  if (pattern.predicate.keyIndexes.length === 0) {
    const instance = view.instance(pattern.predicate, singleKey);
    return instance !== undefined && instanceSatisfies(instance, pattern.constraints, clock);
  }
  return view.someInstance(pattern.predicate, (instance) =>
    instanceSatisfies(instance, pattern.constraints, clock),
  );
}

/** `absent(arg)` (v2): none of these arguments is given. */
function argumentsAbsent(pattern: CompiledPattern, values: Instance): boolean {
  for (const variable of pattern.absentArguments) if (isGiven(values[variable])) return false;
  return true;
}

export function actionMatches(
  pattern: CompiledPattern,
  action: ProposedAction | undefined,
  clock: SessionClock,
): boolean {
  // A guard with bindings: some assignment over its one action, or over the instance an
  // update makes for a guard on a state (LANGUAGE.md §7).
  if (pattern.join) {
    if (pattern.predicate.declaration.kind === 'state')
      return (
        action !== undefined &&
        action.predicate === pattern.predicate &&
        requirePart(pattern.join.parts, 'paths').joinHolds(
          pattern.join,
          { view: undefined, action: undefined, clock, instance: action.values },
          true,
        )
      );
    return (
      (pattern.absentArguments.length === 0 ||
        (action !== undefined && argumentsAbsent(pattern, action.values))) &&
      requirePart(pattern.join.parts, 'paths').joinHolds(
        pattern.join,
        { view: undefined, action, clock },
        true,
      )
    );
  }
  return (
    action !== undefined &&
    action.predicate === pattern.predicate &&
    instanceSatisfies(action.values, pattern.constraints, clock) &&
    (pattern.absentArguments.length === 0 || argumentsAbsent(pattern, action.values))
  );
}

/** Whether every atom of the rule's body holds. */
export function ruleFires(rule: CompiledRule, context: EvaluationContext): boolean {
  const { objectives, negations, states } = rule;
  for (let index = 0; index < objectives.length; index++) {
    const condition = objectives[index]!;
    if (!compareCount(context.achieved.get(condition.name) ?? 0, condition)) return false;
  }
  // `not P(...)` (v2): no instance satisfies the pattern; it never binds anything. One
  // that uses bindings is judged inside the join, for each assignment.
  for (let index = 0; index < negations.length; index++) {
    const pattern = negations[index]!;
    if (rule.join?.negations.includes(pattern)) continue;
    if (negationMatches(pattern, context.view, context.clock)) return false;
  }
  if (rule.join) {
    const action = rule.action;
    if (
      action !== undefined &&
      action.absentArguments.length > 0 &&
      (context.action === undefined || !argumentsAbsent(action, context.action.values))
    )
      return false;
    return requirePart(rule.join.parts, 'paths').joinHolds(rule.join, context, false);
  }
  if (rule.action && !actionMatches(rule.action, context.action, context.clock)) return false;
  for (let index = 0; index < states.length; index++) {
    if (!patternHolds(states[index]!, context.view, context.clock)) return false;
  }
  return true;
}

/** One atom or constraint of a rule that does not hold, with what was found instead. */
export type UnmetCondition =
  | { readonly kind: 'objective'; readonly condition: ObjectiveCondition; readonly actual: number }
  | {
      readonly kind: 'constraint';
      readonly pattern: CompiledPattern;
      readonly constraint: CompiledConstraint;
      readonly actual: Value | undefined;
      /** A binding's use: the values it was compared with, and where they came from. */
      readonly bound?: Pick<JoinFailure, 'bound' | 'binder' | 'exhausted' | 'computed' | 'others'>;
    }
  /** `P()` with no constraints: P has never been observed. */
  | { readonly kind: 'unobserved'; readonly pattern: CompiledPattern }
  /**
   * `not P(...)`: some instance satisfies the negated pattern — or may: a tool's result
   * that came and could not be read (`unread`: why, E1), or that does not report a field
   * the pattern reads (`unreported`), counts as matching.
   */
  | {
      readonly kind: 'negation';
      readonly pattern: CompiledPattern;
      readonly unread?: string;
      readonly unreported?: true;
    }
  /** `absent(arg)`: the action gives the argument. */
  | {
      readonly kind: 'present';
      readonly pattern: CompiledPattern;
      readonly variable: number;
      readonly actual: Value;
    }
  /**
   * `not (…)` / `forall(…)` (LANGUAGE.md §9): some assignment satisfies the rule's scope
   * at `scope` — for a `forall`, instances of its left side still without its right side.
   */
  | {
      readonly kind: 'scope';
      readonly scope: number;
      readonly assignments: ScopeWitnesses['assignments'];
      readonly exhausted: boolean;
    }
  /** The rule needs an action the proposal does not carry. */
  | {
      readonly kind: 'action';
      readonly pattern: CompiledPattern;
      readonly actual: string | undefined;
    };

function unmetInInstance(
  pattern: CompiledPattern,
  instance: Instance | undefined,
  clock: SessionClock,
): UnmetCondition[] {
  const unmet: UnmetCondition[] = [];
  for (const constraint of pattern.constraints) {
    const value =
      instance === undefined ? undefined : (instance[constraint.variable] ?? constraint.absent);
    if (value === undefined || !constraint.test(value, clock)) {
      unmet.push({ kind: 'constraint', pattern, constraint, actual: value });
    }
  }
  return unmet;
}

/** The unmet constraints of a pattern against its closest instance. */
export function explainPattern(
  pattern: CompiledPattern,
  view: StateView,
  clock: SessionClock,
): UnmetCondition[] {
  let best: UnmetCondition[] | undefined;
  view.someInstance(pattern.predicate, (instance) => {
    const unmet = unmetInInstance(pattern, instance, clock);
    if (best === undefined || unmet.length < best.length) best = unmet;
    return unmet.length === 0;
  });
  if (best !== undefined) return best;
  if (pattern.constraints.length === 0) return [{ kind: 'unobserved', pattern }];
  return unmetInInstance(pattern, undefined, clock);
}

/**
 * A negated pattern that does not hold, with why when no instance matches it for sure: a
 * result that came and could not be read, or one that does not report a field. `joined`:
 * the pattern compares with bindings, so any unreadable result of it is named.
 */
function negationUnmet(
  pattern: CompiledPattern,
  view: StateView,
  clock: SessionClock,
  joined = false,
): UnmetCondition {
  const plain: UnmetCondition = { kind: 'negation', pattern };
  if (pattern.predicate.declaration.resultOf === undefined) return plain;
  let unread: string | undefined;
  view.someInstance(pattern.predicate, (instance) => {
    const reason = unreadableReason(instance);
    if (reason === undefined) return false;
    if (!joined && !instanceSatisfies(instance, pattern.constraints, clock, true)) return false;
    unread = reason;
    return true;
  });
  if (unread !== undefined) return { kind: 'negation', pattern, unread };
  if (joined) return plain;
  // An instance that reports every field the pattern reads, and matches: there is one.
  const reported = view.someInstance(
    pattern.predicate,
    (instance) =>
      pattern.constraints.every((constraint) => instance[constraint.variable] !== undefined) &&
      instanceSatisfies(instance, pattern.constraints, clock),
  );
  return reported ? plain : { kind: 'negation', pattern, unreported: true };
}

/** Every condition of the rule that does not hold, in body order. */
export function explainRule(rule: CompiledRule, context: EvaluationContext): UnmetCondition[] {
  const unmet: UnmetCondition[] = [];
  for (const condition of rule.objectives) {
    const actual = context.achieved.get(condition.name) ?? 0;
    if (!compareCount(actual, condition)) unmet.push({ kind: 'objective', condition, actual });
  }
  for (const pattern of rule.states)
    unmet.push(...explainPattern(pattern, context.view, context.clock));
  for (const pattern of rule.negations)
    if (
      !rule.join?.negations.includes(pattern) &&
      negationMatches(pattern, context.view, context.clock)
    )
      unmet.push(negationUnmet(pattern, context.view, context.clock));
  const action = rule.action;
  if (action) {
    if (context.action?.predicate !== action.predicate) {
      unmet.push({ kind: 'action', pattern: action, actual: context.action?.predicate.name });
    } else {
      const values = context.action.values;
      unmet.push(...unmetInInstance(action, values, context.clock));
      for (const variable of action.absentArguments) {
        const actual = values[variable];
        if (actual !== undefined && isGiven(actual))
          unmet.push({ kind: 'present', pattern: action, variable, actual });
      }
    }
  }
  if (unmet.length === 0 && rule.join) {
    // Every atom holds on its own; no assignment of the bindings satisfies them together.
    const failure: { current?: JoinFailure } = {};
    const paths = requirePart(rule.join.parts, 'paths');
    // A scope that some assignment satisfies: name what it found (the instances still to do).
    const witnesses =
      rule.join.scopes === undefined ? undefined : paths.scopeWitnesses(rule.join, context, 3);
    if (witnesses !== undefined) {
      unmet.push({ kind: 'scope', ...witnesses });
      return unmet;
    }
    if (!paths.joinHolds(rule.join, context, false, failure)) {
      const found = failure.current;
      const negation = rule.join.negations[0];
      if (found === undefined && negation !== undefined)
        unmet.push(negationUnmet(negation, context.view, context.clock, true));
      if (found !== undefined)
        unmet.push({
          kind: 'constraint',
          pattern: found.pattern,
          constraint: found.constraint,
          actual: found.actual,
          bound: {
            bound: found.bound,
            binder: found.binder,
            exhausted: found.exhausted,
            ...('computed' in found ? { computed: found.computed } : {}),
            ...(found.others !== undefined ? { others: found.others } : {}),
          },
        });
      if (found === undefined && negation === undefined) unmet.push(...emptyBinder(rule, context));
    }
  }
  return unmet;
}

/**
 * The binder that gave no value at all (a filter or projection that matched nothing, an
 * empty list argument), so that a refusal always names what is missing: the first binding
 * constraint of the rule's states, against the latest instance it read, else the action's.
 */
function emptyBinder(rule: CompiledRule, context: EvaluationContext): UnmetCondition[] {
  for (const pattern of rule.states) {
    // A binder, or a filter that binds (`products[name contains "x", id = $id]`).
    const constraint = pattern.constraints.find(
      (candidate) => candidate.binding?.binds || candidate.binding?.filter !== undefined,
    );
    if (constraint === undefined) continue;
    let actual: Value | undefined;
    context.view.someInstance(pattern.predicate, (instance) => {
      actual = instance[constraint.variable] ?? constraint.absent;
      return false;
    });
    return [{ kind: 'constraint', pattern, constraint, actual }];
  }
  // A binder in the action pattern: a list argument without elements offers no value.
  const action = rule.action;
  const proposed = context.action;
  if (action !== undefined && proposed?.predicate === action.predicate) {
    const constraint = action.constraints.find((candidate) => candidate.binding?.binds);
    if (constraint !== undefined)
      return [
        {
          kind: 'constraint',
          pattern: action,
          constraint,
          actual: proposed.values[constraint.variable] ?? constraint.absent,
        },
      ];
  }
  return [];
}

/** Among rules, the one with the fewest unmet conditions (the first on ties), with them. */
export function closestRule(
  rules: readonly CompiledRule[],
  context: EvaluationContext,
): { readonly rule: CompiledRule; readonly unmet: UnmetCondition[] } | undefined {
  let best: { rule: CompiledRule; unmet: UnmetCondition[] } | undefined;
  for (const rule of rules) {
    const unmet = explainRule(rule, context);
    if (!best || unmet.length < best.unmet.length) best = { rule, unmet };
  }
  return best;
}
