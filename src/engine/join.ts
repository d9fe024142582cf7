import { computeNumber } from '../language/arithmetic.js';
import {
  type CheckedConstraint,
  compareNumbers,
  defaultLimits,
  isDecimal,
  type NumberValue,
  normalizeText,
  operatorTable,
  type PositiveOperator,
} from '../language/index.js';
import { normalizeNeedle } from '../language/text.js';
import { bindingData, compileAccessValue } from './access-test.js';
import type { SessionClock } from './clock.js';
import type { CompiledConstraint, CompiledPattern } from './compiled-spec.js';
import type { SimilaritySettings } from './constraint-test.js';
import { type Instance, type StateView, singleKey } from './state.js';
import { canonicalJson, isTextValue, type Value } from './values.js';

/**
 * Bindings (LANGUAGE.md §7): a rule (or guard) with `$x` holds if *some* assignment of
 * its bindings satisfies every atom — a join over instances and list elements, in body
 * order (the checker makes every binder come before its uses). Only rules with bindings
 * take this path; every other rule is evaluated pattern by pattern as before. The work
 * of one evaluation is bounded (`maxJoinWork`): beyond it a rule does not fire and a
 * guard fires (fail closed).
 */

export interface CompiledBinding {
  readonly slot: number;
  readonly name: string;
  readonly binds: boolean;
  readonly positive: PositiveOperator;
  readonly negated: boolean;
  /**
   * The values the constraint offers (binder) or compares (use), as keys; undefined: it
   * does not fit. An element that cannot be compared (a list) is an undefined key.
   */
  readonly values: (value: Value, clock: SessionClock) => readonly (Key | undefined)[] | undefined;
  /** `$b * 0.5`, `$t - 3h`: the bound value computed on before comparing; undefined: no fit. */
  readonly adjust?: (bound: Key | undefined) => Key | undefined;
}

/** Where a binding got its value, for feedback: `results[…].unique_id of SpokeoSearchPeopleResult`. */
export interface Binder {
  readonly name: string;
  readonly text: string;
  readonly predicate: string;
}

export interface JoinPlan {
  /** The rule's (or guard's) patterns in body order. */
  readonly patterns: readonly CompiledPattern[];
  /** Per pattern, its constraints with bindings, in order. */
  readonly bindingConstraints: readonly (readonly CompiledConstraint[])[];
  readonly binders: readonly Binder[];
  /** Negated patterns that use bindings: no instance may match under the assignment. */
  readonly negations: readonly CompiledPattern[];
  readonly limit: number;
}

/** The action and state a join reads. */
export interface JoinContext {
  readonly view: StateView | undefined;
  readonly action: { readonly predicate: unknown; readonly values: Instance } | undefined;
  readonly clock: SessionClock;
}

/** A failed use of a binding, the deepest the search reached: what feedback names. */
export interface JoinFailure {
  readonly pattern: CompiledPattern;
  readonly constraint: CompiledConstraint;
  readonly actual: Value | undefined;
  readonly bound: readonly unknown[];
  readonly binder: Binder | undefined;
  readonly exhausted: boolean;
}

export function compileBinding(
  constraint: CheckedConstraint,
  slot: number,
  settings: SimilaritySettings,
  proposed: boolean,
): CompiledBinding {
  const binding = constraint.binding;
  if (binding === undefined) throw new Error('internal: not a binding constraint');
  const read = constraint.access
    ? compileAccessValue(constraint, settings, proposed)
    : (value: Value) => bindingData(value);
  const each = binding.each;
  const info = operatorTable[constraint.operator];
  const arithmetic = binding.arithmetic;
  return {
    ...(arithmetic
      ? {
          adjust: (bound: Key | undefined): Key | undefined => {
            if (bound?.kind !== 'number') return undefined;
            const value = computeNumber(bound.value, arithmetic.operator, arithmetic.amount);
            return value === undefined ? undefined : { kind: 'number', value };
          },
        }
      : {}),
    slot,
    name: binding.name,
    binds: binding.binds,
    positive: info.positive,
    negated: info.negated,
    values: (value, clock) => {
      const data = read(value, clock);
      if (data === undefined) return undefined;
      if (each) return Array.isArray(data) ? keysOf(data) : undefined;
      // `list contains $x` (and `not contains`): an element equal to the bound value, as
      // `contains` means on a list (LANGUAGE.md §5.1) — not a substring of some element.
      if (info.positive === 'contains' && Array.isArray(data)) return elementKeysOf(data);
      const key = keyOf(data);
      return key === undefined ? undefined : [key];
    },
  };
}

/** The keys of a list's elements, made once per list (lists are never mutated). */
const listKeys = new WeakMap<readonly unknown[], readonly (Key | undefined)[]>();

function keysOf(list: readonly unknown[]): readonly (Key | undefined)[] {
  let keys = listKeys.get(list);
  if (keys === undefined) {
    keys = list.map(keyOf);
    listKeys.set(list, keys);
  }
  return keys;
}

export type Key =
  | { readonly kind: 'text'; readonly key: string; readonly raw: string }
  | { readonly kind: 'number'; readonly value: NumberValue }
  | { readonly kind: 'boolean'; readonly value: boolean }
  /** An element of a list that `contains` compares: equal to the bound value, or not. */
  | { readonly kind: 'element'; readonly of: Key };

const listElementKeys = new WeakMap<readonly unknown[], readonly (Key | undefined)[]>();

function elementKeysOf(list: readonly unknown[]): readonly (Key | undefined)[] {
  let keys = listElementKeys.get(list);
  if (keys === undefined) {
    keys = keysOf(list).map((key) =>
      key === undefined ? undefined : { kind: 'element', of: key },
    );
    listElementKeys.set(list, keys);
  }
  return keys;
}

/** A value or datum as bindings compare it; undefined for a list (never compared whole). */
function keyOf(data: unknown): Key | undefined {
  if (isTextValue(data)) return { kind: 'text', key: data.key, raw: data.raw };
  if (typeof data === 'string') return { kind: 'text', key: normalizeText(data), raw: data };
  if (typeof data === 'number')
    return Number.isFinite(data) ? { kind: 'number', value: data } : undefined;
  if (isDecimal(data)) return { kind: 'number', value: data };
  if (typeof data === 'boolean') return { kind: 'boolean', value: data };
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    const text = canonicalJson(data);
    return { kind: 'text', key: normalizeText(text), raw: text };
  }
  return undefined;
}

/** The positive comparison of a value with a bound value; undefined: they do not fit. */
function comparePositive(
  operator: PositiveOperator,
  a: Key | undefined,
  b: Key | undefined,
): boolean | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (a.kind === 'element')
    return operator === 'contains' ? comparePositive('=', a.of, b) : undefined;
  if (b.kind === 'element') return undefined;
  if (operator === 'contains') {
    if (a.kind !== 'text' || b.kind !== 'text') return undefined;
    return a.key.includes(normalizeNeedle(b.raw));
  }
  if (a.kind !== b.kind) return undefined;
  if (operator === '=') {
    if (a.kind === 'text') return a.key === (b as typeof a).key;
    if (a.kind === 'number') return compareNumbers(a.value, (b as typeof a).value) === 0;
    return a.value === (b as typeof a).value;
  }
  if (a.kind !== 'number' || b.kind !== 'number') return undefined;
  const order = compareNumbers(a.value, b.value);
  switch (operator) {
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
    default:
      return undefined;
  }
}

class JoinLimit extends Error {}

const unbound = Symbol('unbound');
/** A guard's binder on an argument that is not given: its uses hold (err toward firing). */
const absentValue = Symbol('absent');

/**
 * Whether some assignment satisfies every pattern of the plan. `guard`: the guards'
 * reading (a value that does not fit, or too much work, holds). `failure` collects the
 * deepest failed use for feedback.
 */
export function joinHolds(
  plan: JoinPlan,
  context: JoinContext,
  guard: boolean,
  failure?: { current?: JoinFailure },
): boolean {
  const env: unknown[] = plan.binders.map(() => unbound);
  let work = 0;
  let depth = -1;
  const step = (amount = 1) => {
    work += amount;
    if (work > plan.limit) throw new JoinLimit();
  };
  const record = (
    at: number,
    pattern: CompiledPattern,
    constraint: CompiledConstraint,
    actual: Value | undefined,
    bound: unknown,
  ) => {
    if (failure === undefined || at < depth) return;
    const binding = constraint.binding as CompiledBinding;
    const previous = failure.current;
    if (at > depth || previous === undefined || previous.constraint !== constraint) {
      depth = at;
      failure.current = {
        pattern,
        constraint,
        actual,
        bound: [bound],
        binder: plan.binders[binding.slot],
        exhausted: false,
      };
    } else if (previous.bound.length < 3 && !previous.bound.includes(bound)) {
      failure.current = { ...previous, bound: [...previous.bound, bound] };
    }
  };

  const bindingConstraints = plan.bindingConstraints;

  const bindFrom = (
    index: number,
    pattern: CompiledPattern,
    instance: Instance,
    constraints: readonly CompiledConstraint[],
    position: number,
  ): boolean => {
    const constraint = constraints[position];
    if (constraint === undefined) return holdsFrom(index + 1);
    const binding = constraint.binding as CompiledBinding;
    const raw = instance[constraint.variable] ?? constraint.absent;
    const values = raw === undefined ? undefined : binding.values(raw, context.clock);
    // A use whose binder is in another alternative of a disjunction (`(A(x = $a) | B(y =
    // $a)) & C(z = $a)`): its positive equality binds, as the first one would.
    const binds =
      binding.binds ||
      (env[binding.slot] === unbound && binding.positive === '=' && !binding.negated);
    if (binds) {
      if (values === undefined) {
        if (!guard) return false;
        env[binding.slot] = absentValue;
        const holds = bindFrom(index, pattern, instance, constraints, position + 1);
        env[binding.slot] = unbound;
        return holds;
      }
      for (const value of values) {
        step();
        env[binding.slot] = value;
        if (bindFrom(index, pattern, instance, constraints, position + 1)) return true;
      }
      env[binding.slot] = unbound;
      return false;
    }
    const bound = env[binding.slot];
    if (bound === absentValue) return bindFrom(index, pattern, instance, constraints, position + 1);
    if (bound === unbound)
      return guard && bindFrom(index, pattern, instance, constraints, position + 1);
    if (values === undefined) {
      if (guard) return bindFrom(index, pattern, instance, constraints, position + 1);
      record(index * 1_000 + position, pattern, constraint, raw, bound);
      return false;
    }
    step(values.length);
    let some = false;
    let fits = true;
    const target = binding.adjust
      ? binding.adjust(bound as Key | undefined)
      : (bound as Key | undefined);
    for (const value of values) {
      const result = comparePositive(binding.positive, value, target);
      if (result === undefined) fits = false;
      else if (result) some = true;
    }
    const holds = fits ? some !== binding.negated : guard;
    if (!holds) {
      record(index * 1_000 + position, pattern, constraint, raw, bound);
      return false;
    }
    return bindFrom(index, pattern, instance, constraints, position + 1);
  };

  const tryInstance = (index: number, pattern: CompiledPattern, instance: Instance): boolean => {
    step();
    // The plain constraints first: they need no assignment.
    for (const constraint of pattern.constraints) {
      if (constraint.binding !== undefined) continue;
      const value = instance[constraint.variable] ?? constraint.absent;
      if (
        value === undefined ? !constraint.holdsWhenAbsent : !constraint.test(value, context.clock)
      )
        return false;
    }
    return bindFrom(index, pattern, instance, bindingConstraints[index] ?? [], 0);
  };

  /** Whether an instance matches a negated pattern under the current assignment. */
  const matchesUnder = (pattern: CompiledPattern, instance: Instance): boolean => {
    step();
    for (const constraint of pattern.constraints) {
      const value = instance[constraint.variable] ?? constraint.absent;
      if (value === undefined) return false;
      const binding = constraint.binding;
      if (binding === undefined) {
        if (!constraint.test(value, context.clock)) return false;
        continue;
      }
      const bound = env[binding.slot];
      const values = binding.values(value, context.clock);
      const target = binding.adjust
        ? binding.adjust(bound as Key | undefined)
        : (bound as Key | undefined);
      if (values === undefined || bound === unbound || bound === absentValue) return false;
      let some = false;
      for (const candidate of values) {
        const result = comparePositive(binding.positive, candidate, target);
        if (result === undefined) return false;
        if (result) some = true;
      }
      if (some === binding.negated) return false;
    }
    return true;
  };

  const negationsHold = (): boolean => {
    const view = context.view;
    for (const pattern of plan.negations) {
      if (view === undefined) continue;
      const found =
        pattern.predicate.keyIndexes.length === 0
          ? (() => {
              const instance = view.instance(pattern.predicate, singleKey);
              return instance !== undefined && matchesUnder(pattern, instance);
            })()
          : view.someInstance(pattern.predicate, (instance) => matchesUnder(pattern, instance));
      if (found) return false;
    }
    return true;
  };

  const holdsFrom = (index: number): boolean => {
    const pattern = plan.patterns[index];
    if (pattern === undefined) return negationsHold();
    if (pattern.predicate.declaration.kind === 'action') {
      const action = context.action;
      return (
        action !== undefined &&
        action.predicate === pattern.predicate &&
        tryInstance(index, pattern, action.values)
      );
    }
    const view = context.view;
    if (view === undefined) return false;
    if (pattern.predicate.keyIndexes.length === 0) {
      const instance = view.instance(pattern.predicate, singleKey);
      return instance !== undefined && tryInstance(index, pattern, instance);
    }
    return view.someInstance(pattern.predicate, (instance) =>
      tryInstance(index, pattern, instance),
    );
  };

  try {
    return holdsFrom(0);
  } catch (error) {
    if (!(error instanceof JoinLimit)) throw error;
    if (failure !== undefined && failure.current !== undefined)
      failure.current = { ...failure.current, exhausted: true };
    return guard;
  }
}

/** The work limit of joins (LANGUAGE.md §7; `Limits.maxJoinWork`). */
export const joinWorkLimit = defaultLimits.maxJoinWork;
