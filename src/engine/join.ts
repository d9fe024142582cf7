import { computeNumber } from '../language/arithmetic.js';
import {
  type CheckedArithmetic,
  type CheckedConstraint,
  compareNumbers,
  isDecimal,
  type NumberValue,
  normalizeText,
  operatorTable,
  type PositiveOperator,
} from '../language/index.js';
import {
  bindingData,
  compileAccessTest,
  compileAccessValue,
  compileDataStep,
  compileElementTest,
  missing,
  undecided,
} from './access-test.js';
import type { CompiledComparison } from './binding-comparisons.js';
import { clockReading, type SessionClock } from './clock.js';
import type { CompiledConstraint, CompiledPattern } from './compiled-spec.js';
import type { CompileSettings } from './constraint-test.js';
import { containsLookAlike, readAlike, textOf } from './deny-list-reading.js';
import type { EngineParts } from './engine-parts.js';
import { type Instance, type StateView, singleKey, unreadableReason } from './state.js';
import { canonicalJson, isTextValue, type TextValue, type Value } from './values.js';

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
  /**
   * `$b * 0.5 + 10`, `$a + $b`, `$t - 3h`: the bound values computed on before comparing
   * (`env` holds every binding's value by slot); undefined: it does not fit.
   */
  readonly adjust?: (
    bound: Key | undefined,
    env: readonly unknown[],
    clock: SessionClock,
  ) => Key | undefined;
  /** `each(xs) op $x`: every element must compare (true on `[]`), not some. */
  readonly every?: boolean;
  /** Set when the constraint's filters bind or use bindings: its walk under the assignment. */
  readonly filter?: FilterProgram;
}

/**
 * A constraint whose path has filters that bind or use bindings (LANGUAGE.md §7):
 * `products[name ~ "x", id = $id, price = $p]`, `count(files[owner != $me]) = 0`. The
 * join walks it under the current assignment; a filter that binds stands for each of
 * its elements in turn (the rest of the path sees that one element).
 */
export interface FilterProgram {
  readonly stages: readonly FilterStage[];
  /** The comparison with a literal after the path (absent when the binding decides). */
  readonly test?: (data: unknown, clock: SessionClock) => boolean;
  /**
   * A bare filtered list (`products[name ~ "x", id = $id]`): the comparison is "some
   * element passes", which an element the last filter stands for always meets.
   */
  readonly exists?: true;
  /**
   * Inside a rule's `not P(…)`: an element that only the deny-list reading may keep (or,
   * on a record, one that does not fit it) makes the constraint match (E2, E9).
   */
  readonly negated?: { readonly record: boolean };
  /** Where the filters' binders take their values, for feedback. */
  readonly binders: readonly {
    readonly slot: number;
    readonly name: string;
    readonly text: string;
  }[];
}

export type FilterStage =
  | { readonly kind: 'step'; readonly step: (data: unknown, clock: SessionClock) => unknown }
  | {
      readonly kind: 'filter';
      /** The constraints without bindings, on one element. */
      readonly tests: readonly ((data: unknown, clock: SessionClock) => boolean)[];
      /** Inside `not`: whether the deny-list reading may keep the element. */
      readonly possible?: readonly ((data: unknown, clock: SessionClock) => boolean)[];
      /** The constraints with bindings, in order (binders, then the uses after them). */
      readonly bindings: readonly CompiledBinding[];
      readonly binds: boolean;
      /** What the filter reads of each element of a list, kept per list (`elementTable`). */
      readonly tables: WeakMap<readonly unknown[], ElementTable>;
    };

type FilterStageOf<K> = Extract<FilterStage, { kind: K }>;

/**
 * What a filter reads of each element that does not depend on the assignment — whether
 * it passes the constraints without bindings, and the values its binding constraints
 * offer or compare — made once per list and session clock. Lists are never mutated and a
 * result list stays in the state across proposals, so a join over it reads each element
 * once rather than at every proposal.
 */
interface ElementTable {
  readonly clock: SessionClock;
  readonly passes: readonly boolean[];
  /** Per binding constraint of the filter, per element. */
  readonly values: readonly (readonly (readonly (Key | undefined)[] | undefined)[])[];
}

function elementTable(
  stage: FilterStageOf<'filter'>,
  list: readonly unknown[],
  clock: SessionClock,
): ElementTable | undefined {
  // Short lists (a binding filter's one-element lists) are read each time, as keysOf does.
  if (list.length < cachedListLength) return undefined;
  const known = stage.tables.get(list);
  if (known !== undefined && known.clock === clock) return known;
  const table: ElementTable = {
    clock,
    passes: list.map((element) => stage.tests.every((test) => test(element, clock))),
    values: stage.bindings.map((binding) =>
      list.map((element) => binding.values(element as Value, clock)),
    ),
  };
  stage.tables.set(list, table);
  return table;
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
  /**
   * Conditions on the bindings (v3), by the pattern they are judged before (the last
   * entry: after every pattern); absent when there are none (binding-comparisons.ts).
   */
  readonly comparisons?: readonly (readonly CompiledComparison[] | undefined)[];
  /** The parts it was compiled with: the evaluators that hold it, the confusables of the deny-list reading. */
  readonly parts: EngineParts;
  /**
   * `not (A & B)` and `forall(A => B)` (LANGUAGE.md §9; universal.ts): joins no assignment
   * may satisfy, each judged under the assignment once every pattern holds.
   */
  readonly scopes?: readonly JoinPlan[];
}

/** The action and state a join reads. */
export interface JoinContext {
  readonly view: StateView | undefined;
  readonly action: { readonly predicate: unknown; readonly values: Instance } | undefined;
  readonly clock: SessionClock;
  /**
   * For a guard over a state predicate: the instance a proposal's update makes, which
   * the guard's one pattern is matched against (LANGUAGE.md §5.3).
   */
  readonly instance?: Instance;
}

/** A failed use of a binding, the deepest the search reached: what feedback names. */
export interface JoinFailure {
  readonly pattern: CompiledPattern;
  readonly constraint: CompiledConstraint;
  readonly actual: Value | undefined;
  readonly bound: readonly unknown[];
  readonly binder: Binder | undefined;
  readonly exhausted: boolean;
  /** Arithmetic on the bindings (`$p * 0.5 + 10`): its value under the first assignment. */
  readonly computed?: unknown;
  /** The other bindings' values in that assignment (`$id = "x12"`), for feedback. */
  readonly others?: readonly { readonly name: string; readonly value: unknown }[];
}

/** The value of typed arithmetic under an assignment; undefined: it does not fit. */
type TemporalUnit = 'date' | 'time' | 'datetime';

function temporal(kind: string | undefined): kind is TemporalUnit {
  return kind === 'date' || kind === 'time' || kind === 'datetime';
}

/** The unit of the values a binding constraint reads: typed temporal values and coercions. */
function unitOf(constraint: CheckedConstraint): TemporalUnit | undefined {
  const access = constraint.access;
  if (access?.function === 'count' || access?.function === 'len') return undefined;
  const coercion = access?.coercion;
  if (coercion !== undefined) return temporal(coercion) ? coercion : undefined;
  if (constraint.variable.jsonText === true) return undefined;
  const kind = access ? access.compared.kind : constraint.variable.type.kind;
  return temporal(kind) ? kind : undefined;
}

/** The unit of an arithmetic's result: that of the bound values it computes on. */
export function unitIn(
  expression: CheckedArithmetic,
  env: readonly unknown[],
  slotOf: (name: string) => number,
): TemporalUnit | undefined {
  switch (expression.kind) {
    case 'binding': {
      const key = env[slotOf(expression.name)] as Key | undefined;
      return typeof key === 'object' && key !== null && key.kind === 'number'
        ? key.unit
        : undefined;
    }
    case 'operation':
    case 'extremum':
      return unitIn(expression.left, env, slotOf) ?? unitIn(expression.right, env, slotOf);
    case 'clock':
      return expression.as;
    default:
      return undefined;
  }
}

/** The value of typed arithmetic under an assignment (and the session clock); undefined: it does not fit. */
export function compute(
  expression: CheckedArithmetic,
  env: readonly unknown[],
  slotOf: (name: string) => number,
  clock?: SessionClock,
): NumberValue | undefined {
  switch (expression.kind) {
    case 'binding': {
      const key = env[slotOf(expression.name)] as Key | undefined;
      return typeof key === 'object' && key !== null && key.kind === 'number'
        ? key.value
        : undefined;
    }
    case 'number':
      return expression.value;
    case 'duration':
      return expression.seconds;
    case 'operation': {
      const left = compute(expression.left, env, slotOf, clock);
      if (left === undefined) return undefined;
      const right = compute(expression.right, env, slotOf, clock);
      if (right === undefined) return undefined;
      return computeNumber(left, expression.operator, right);
    }
    case 'clock':
      return clock === undefined ? undefined : clockReading(expression.word, expression.as, clock);
    case 'extremum': {
      const left = compute(expression.left, env, slotOf, clock);
      if (left === undefined) return undefined;
      const right = compute(expression.right, env, slotOf, clock);
      if (right === undefined) return undefined;
      const order = compareNumbers(left, right);
      return (expression.function === 'min') === order <= 0 ? left : right;
    }
  }
}

/**
 * A constraint with a binding, or with filters that bind or use bindings, compiled for
 * the join. `slot` is its own binding's (-1 when its value is a literal); `slotOf` gives
 * the slots of the other bindings it reads or binds.
 */
export function compileBinding(
  constraint: CheckedConstraint,
  slot: number,
  settings: CompileSettings,
  proposed: boolean,
  slotOf: (name: string) => number = () => slot,
  guard = false,
  negated = false,
): CompiledBinding {
  const access = constraint.access;
  if (access?.joins === true) {
    const filter = compileFilterProgram(constraint, settings, proposed, slotOf, guard, negated);
    const { joins: _joins, ...rest } = access;
    const tail: CheckedConstraint = { ...constraint, access: { ...rest, steps: [] } };
    const info = operatorTable[constraint.operator];
    return constraint.binding === undefined
      ? {
          slot: -1,
          name: '',
          binds: false,
          positive: info.positive,
          negated: info.negated,
          values: () => undefined,
          filter,
        }
      : { ...compileBinding(tail, slot, settings, proposed, slotOf), filter };
  }
  const binding = constraint.binding;
  if (binding === undefined) throw new Error('internal: not a binding constraint');
  const read = constraint.access
    ? compileAccessValue(constraint, settings, proposed, negated)
    : (value: Value) => bindingData(value);
  // `any(xs) = $x` / `each(xs) <= $x`: the elements are compared one by one.
  const quantified = access?.function === 'any' || access?.function === 'each';
  const each = binding.each || quantified;
  const info = operatorTable[constraint.operator];
  const arithmetic = binding.arithmetic;
  const unit = unitOf(constraint);
  return {
    ...(arithmetic
      ? {
          adjust: (
            _bound: Key | undefined,
            env: readonly unknown[],
            clock: SessionClock,
          ): Key | undefined => {
            const value = compute(arithmetic, env, slotOf, clock);
            if (value === undefined) return undefined;
            const unit = unitIn(arithmetic, env, slotOf);
            return unit === undefined ? { kind: 'number', value } : { kind: 'number', value, unit };
          },
        }
      : {}),
    ...(access?.function === 'each' ? { every: true } : {}),
    slot,
    name: binding.name,
    binds: binding.binds,
    positive: info.positive,
    negated: info.negated,
    values: (value, clock) => {
      const data = read(value, clock);
      if (data === undefined) return undefined;
      if (data === undecided) return undecidedValues;
      if (each) return Array.isArray(data) ? keysOf(data) : undefined;
      // `list contains $x` (and `not contains`): an element equal to the bound value, as
      // `contains` means on a list (LANGUAGE.md §5.1) — not a substring of some element.
      if (info.positive === 'contains' && Array.isArray(data)) return elementKeysOf(data);
      // A text read whole is compared as its value, which keeps its normalized text and
      // what the deny-list reading computes of it: not computed again at every check.
      const key = isTextValue(value) && data === value.raw ? keyOf(value) : keyOf(data);
      if (key === undefined) return undefined;
      // A date is no number: typed temporal values carry their unit (LANGUAGE.md §7).
      return unit !== undefined && key.kind === 'number' ? [{ ...key, unit }] : [key];
    },
  };
}

function compileFilterProgram(
  constraint: CheckedConstraint,
  settings: CompileSettings,
  proposed: boolean,
  slotOf: (name: string) => number,
  guard: boolean,
  negatedPattern: boolean,
): FilterProgram {
  const access = constraint.access;
  if (access === undefined) throw new Error('internal: not a path');
  const negated = negatedPattern ? { record: constraint.variable.record !== undefined } : undefined;
  const stages: FilterStage[] = [];
  const binders: { slot: number; name: string; text: string }[] = [];
  let path = constraint.variable.name;
  for (const step of access.steps) {
    if (step.kind === 'field') path += `.${step.name}`;
    else path += '[…]';
    if (step.kind !== 'filter' || step.joins !== true) {
      stages.push({ kind: 'step', step: compileDataStep(step, settings, proposed, negated) });
      continue;
    }
    const tests: ((data: unknown, clock: SessionClock) => boolean)[] = [];
    const possible: ((data: unknown, clock: SessionClock) => boolean)[] = [];
    const bindings: CompiledBinding[] = [];
    for (const inner of step.constraints) {
      const binding = inner.binding;
      if (binding === undefined) {
        tests.push(compileElementTest(inner, settings, proposed));
        if (negated) possible.push(compileElementTest(inner, settings, proposed, negated));
        continue;
      }
      const innerSlot = slotOf(binding.name);
      if (binding.binds) {
        const field = inner.access?.text ?? inner.variable.name;
        binders.push({
          slot: innerSlot,
          name: binding.name,
          text: field === 'it' ? path : `${path}.${field}`,
        });
      }
      bindings.push(compileBinding(inner, innerSlot, settings, proposed, slotOf));
    }
    stages.push({
      kind: 'filter',
      tests,
      ...(negated ? { possible } : {}),
      bindings,
      binds: bindings.some((binding) => binding.binds),
      tables: new WeakMap(),
    });
  }
  if (constraint.binding !== undefined) return { stages, binders, ...(negated ? { negated } : {}) };
  const { joins: _joins, ...rest } = access;
  const tail: CheckedConstraint = { ...constraint, access: { ...rest, steps: [] } };
  const test = compileAccessTest(tail, settings, guard, proposed, negatedPattern);
  return {
    stages,
    binders,
    ...(negated ? { negated } : {}),
    test: (data, clock) => test(data as Value, clock),
    ...(access.exists === true ? { exists: true as const } : {}),
  };
}

/**
 * The keys of a list's elements, made once per list (lists are never mutated). Short
 * lists are keyed each time: a walk through a binding filter makes a one-element list per
 * element it tries, and a weak map's entries for such short-lived lists cost the garbage
 * collector more than keying them again.
 */
const listKeys = new WeakMap<readonly unknown[], readonly (Key | undefined)[]>();
const cachedListLength = 8;

function keysOf(list: readonly unknown[]): readonly (Key | undefined)[] {
  if (list.length < cachedListLength) return list.map(keyOf);
  let keys = listKeys.get(list);
  if (keys === undefined) {
    keys = list.map(keyOf);
    listKeys.set(list, keys);
  }
  return keys;
}

export type Key =
  /** `value`: the text value it was read from, which keeps what the deny-list reading computes. */
  | {
      readonly kind: 'text';
      readonly key: string;
      readonly raw: string;
      readonly value?: TextValue;
    }
  /**
   * `unit`: a date, time or date-time (a count of days or seconds) of a typed value or an
   * `as` coercion; absent for numbers, and for json numbers, which hold numbers only.
   */
  | { readonly kind: 'number'; readonly value: NumberValue; readonly unit?: TemporalUnit }
  | { readonly kind: 'boolean'; readonly value: boolean }
  /** An element of a list that `contains` compares: equal to the bound value, or not. */
  | { readonly kind: 'element'; readonly of: Key };

const listElementKeys = new WeakMap<readonly unknown[], readonly (Key | undefined)[]>();

function elementKeysOf(list: readonly unknown[]): readonly (Key | undefined)[] {
  if (list.length < cachedListLength)
    return keysOf(list).map((key) =>
      key === undefined ? undefined : { kind: 'element', of: key },
    );
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
  if (isTextValue(data)) return { kind: 'text', key: data.key, raw: data.raw, value: data };
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

/**
 * The positive comparison of a value with a bound value; undefined: they do not fit.
 * `broad`: the deny-list reading (deny-list-reading.ts; inside `not`, E2): texts are
 * equal when they may be read as one — a part, a look-alike, one phone number — and
 * `contains` also finds the bound value in the text's confusable skeletons.
 */
export function comparePositive(
  operator: PositiveOperator,
  a: Key | undefined,
  b: Key | undefined,
  parts: EngineParts,
  broad = false,
): boolean | undefined {
  if (a === undefined || b === undefined) return undefined;
  if (a.kind === 'element')
    return operator === 'contains' ? comparePositive('=', a.of, b, parts, broad) : undefined;
  if (b.kind === 'element') return undefined;
  if (operator === 'contains') {
    if (a.kind !== 'text' || b.kind !== 'text') return undefined;
    // A bound value is a value, normalized whole (LANGUAGE.md §5.1): unlike a literal
    // needle it keeps no space at its ends, so `x contains $x` holds for "alice ".
    if (a.key.includes(b.key)) return true;
    if (!broad || b.key === '') return false;
    return containsLookAlike(textOf(a.key, a.raw, a.value), textOf(b.key, b.raw, b.value), parts);
  }
  if (a.kind !== b.kind) return undefined;
  // A json number holds a number, never a date or a time: they do not fit together.
  if (a.kind === 'number' && a.unit !== (b as typeof a).unit) return undefined;
  if (operator === '=') {
    if (a.kind === 'text') {
      const other = b as typeof a;
      if (a.key === other.key) return true;
      return (
        broad &&
        readAlike(textOf(a.key, a.raw, a.value), textOf(other.key, other.raw, other.value), parts)
      );
    }
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

/**
 * Inside `not`: the values of a path whose filter cannot tell whether it keeps an element
 * (`undecided` in access-test.ts): the constraint matches, whatever it compares.
 */
const undecidedValues: readonly (Key | undefined)[] = Object.freeze([]);

class JoinLimit extends Error {}

const unbound = Symbol('unbound');
/** A guard's binder on an argument that is not given: its uses hold (err toward firing). */
const absentValue = Symbol('absent');

/** Whether a binding has a value in the assignment. */
function bound(value: unknown): boolean {
  return value !== unbound && value !== absentValue;
}

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
  const search = new JoinSearch(plan, context, guard, failure);
  try {
    return search.holdsFrom(0);
  } catch (error) {
    if (!(error instanceof JoinLimit)) throw error;
    if (failure !== undefined && failure.current !== undefined)
      failure.current = { ...failure.current, exhausted: true };
    return guard;
  }
}

/**
 * Why a rule's scopes do not hold (LANGUAGE.md §9), for feedback: the first scope some
 * assignment satisfies, with up to `max` of those assignments' own bindings — for
 * `forall(A => B)`, the instances of A still without B. Undefined when the rule's join
 * fails for another reason (or holds). `exhausted`: the search hit `maxJoinWork` (then
 * the rule does not hold, with what was found so far, maybe nothing).
 */
export function scopeWitnesses(
  plan: JoinPlan,
  context: JoinContext,
  max: number,
): ScopeWitnesses | undefined {
  const witnesses: { found?: ScopeWitnesses; max: number } = { max };
  const search = new JoinSearch(plan, context, false, undefined, undefined, witnesses);
  try {
    search.holdsFrom(0);
  } catch (error) {
    if (!(error instanceof JoinLimit)) throw error;
    // Beyond the bound the rule does not hold, found or not: say so rather than blame an atom.
    return { scope: 0, assignments: [], ...witnesses.found, exhausted: true };
  }
  return witnesses.found;
}

export interface ScopeWitnesses {
  /** The scope that does not hold: its position among the rule's scopes. */
  readonly scope: number;
  /** Per assignment found, the scope's own bindings with their values (keys). */
  readonly assignments: readonly (readonly { readonly name: string; readonly value: unknown }[])[];
  readonly exhausted: boolean;
}

/**
 * One search for an assignment: the patterns of the plan in order (`holdsFrom`), each
 * instance's constraints in order (`bindFrom`), a binding constraint met with the values
 * it offers (`settle`), through the filters of a path (`walkProgram`), then the negated
 * patterns under the assignment (`negationsHold`). The work is counted (`maxJoinWork`).
 */
class JoinSearch {
  /** Every binding's value by slot: `unbound`, `absentValue` or a key. */
  readonly #env: unknown[];
  /** The work done, shared with the searches of the scopes inside (`maxJoinWork` bounds it all). */
  readonly #counter: { work: number };
  /**
   * Inside an odd number of scopes (LANGUAGE.md §9): what is found here makes a `not` fail,
   * so a result that could not be read, or does not report a field, counts as matching.
   */
  readonly #negative: boolean;
  /** The depth of the deepest failed use recorded (`index * 1000 + position`). */
  #depth = -1;

  constructor(
    readonly plan: JoinPlan,
    readonly context: JoinContext,
    readonly guard: boolean,
    readonly failure: { current?: JoinFailure } | undefined,
    outer?: { readonly env: unknown[]; readonly counter: { work: number } },
    // For feedback (`scopeWitnesses`): the top search collects, a scope's search reports.
    witnesses?: { found?: ScopeWitnesses; max: number } | (() => boolean),
  ) {
    this.#env = outer?.env ?? plan.binders.map(() => unbound);
    this.#counter = outer?.counter ?? { work: 0 };
    this.#negative = outer !== undefined && guard;
    this.#witnesses = witnesses;
  }

  readonly #witnesses: { found?: ScopeWitnesses; max: number } | (() => boolean) | undefined;

  #step(amount = 1): void {
    this.#counter.work += amount;
    if (this.#counter.work > this.plan.limit) throw new JoinLimit();
  }

  /**
   * The scopes (LANGUAGE.md §9): each holds when no assignment of its own bindings, under
   * this one, satisfies it. Its search reads the other way (a rule's scope with the guards'
   * reading, its scope inside with the rules'), so that whatever is unsure makes `not` fail.
   */
  #scopesHold(): boolean {
    const scopes = this.plan.scopes;
    if (scopes === undefined) return true;
    const outer = { env: this.#env, counter: this.#counter };
    const collect = typeof this.#witnesses === 'object' ? this.#witnesses : undefined;
    for (const [position, scope] of scopes.entries()) {
      if (collect === undefined) {
        if (new JoinSearch(scope, this.context, !this.guard, undefined, outer).holdsFrom(0))
          return false;
        continue;
      }
      // Every assignment the scope finds (up to `max`), with the bindings it made itself.
      const env = this.#env;
      const entry = env.slice();
      const assignments: { name: string; value: unknown }[][] = [];
      const report = (): boolean => {
        const own: { name: string; value: unknown }[] = [];
        env.forEach((value, slot) => {
          if (entry[slot] === unbound && bound(value))
            own.push({ name: this.plan.binders[slot]?.name ?? '', value });
        });
        assignments.push(own);
        return assignments.length >= collect.max;
      };
      new JoinSearch(scope, this.context, !this.guard, undefined, outer, report).holdsFrom(0);
      if (assignments.length > 0) {
        collect.found ??= { scope: position, assignments, exhausted: false };
        return false;
      }
    }
    return true;
  }

  /**
   * Inside a negative scope, a tool's result is read broadly: one that could not be read,
   * or that does not report a field, may hold whatever the scope asks of it.
   */
  #readsBroadly(pattern: CompiledPattern): boolean {
    return this.#negative && pattern.predicate.declaration.resultOf !== undefined;
  }

  /** Inside a negative scope: a result that came and could not be read matches whatever it is asked. */
  #unreadableMatches(pattern: CompiledPattern, instance: Instance): boolean {
    return this.#readsBroadly(pattern) && unreadableReason(instance) !== undefined;
  }

  /** A failed use, kept when it is the deepest so far (with up to three bound values). */
  #record(
    at: number,
    pattern: CompiledPattern,
    constraint: CompiledConstraint,
    actual: Value | undefined,
    bound: unknown,
    // A filter's use of a binding (`legs[code = $c]`): the binding it compared with.
    binding: CompiledBinding = constraint.binding as CompiledBinding,
  ): void {
    const { failure, plan } = this;
    const env = this.#env;
    if (failure === undefined || at < this.#depth) return;
    const previous = failure.current;
    if (at > this.#depth || previous === undefined || previous.constraint !== constraint) {
      this.#depth = at;
      const others: { name: string; value: unknown }[] = [];
      env.forEach((value, slot) => {
        const name = plan.binders[slot]?.name;
        if (slot === binding.slot || name === undefined || others.length >= 3) return;
        if (value !== unbound && value !== absentValue) others.push({ name, value });
      });
      failure.current = {
        pattern,
        constraint,
        actual,
        bound: [bound],
        binder: plan.binders[binding.slot],
        exhausted: false,
        ...(binding.adjust
          ? { computed: binding.adjust(bound as Key | undefined, env, this.context.clock) }
          : {}),
        ...(others.length > 0 ? { others } : {}),
      };
    } else if (previous.bound.length < 3 && !previous.bound.includes(bound)) {
      failure.current = { ...previous, bound: [...previous.bound, bound] };
    }
  }

  /**
   * A binding constraint met with the values its left side offers: a binder tries each,
   * a use compares; then `next`. `lenient`: the guards' reading (a value that does not
   * fit holds); filters select with the rules' reading, in guards too.
   */
  #settle(
    binding: CompiledBinding,
    values: readonly (Key | undefined)[] | undefined,
    lenient: boolean,
    failed: ((bound: unknown) => void) | undefined,
    next: () => boolean,
    broad = false,
  ): boolean {
    const env = this.#env;
    // A use whose binder is in another alternative of a disjunction (`(A(x = $a) | B(y =
    // $a)) & C(z = $a)`): its positive equality binds, as the first one would.
    const binds =
      binding.binds ||
      (env[binding.slot] === unbound && binding.positive === '=' && !binding.negated);
    if (binds) return this.#bind(binding, values, lenient, next);
    const bound = env[binding.slot];
    if (bound === absentValue) return next();
    if (bound === unbound) return lenient && next();
    if (values === undefined) {
      if (lenient) return next();
      failed?.(bound);
      return false;
    }
    this.#step(values.length);
    let some = false;
    let all = true;
    let fits = true;
    const target = binding.adjust
      ? binding.adjust(bound as Key | undefined, env, this.context.clock)
      : (bound as Key | undefined);
    for (const value of values) {
      const result = comparePositive(
        binding.positive,
        value,
        target,
        this.plan.parts,
        broad && !binding.negated,
      );
      if (result === undefined) fits = false;
      else if (result) some = true;
      else all = false;
    }
    const holds = fits
      ? binding.every
        ? binding.negated
          ? !some
          : all
        : some !== binding.negated
      : lenient;
    if (!holds) {
      failed?.(bound);
      return false;
    }
    return next();
  }

  /** A binder: each value in turn (none given: absent, which holds in a guard), then `next`. */
  #bind(
    binding: CompiledBinding,
    values: readonly (Key | undefined)[] | undefined,
    lenient: boolean,
    next: () => boolean,
  ): boolean {
    const env = this.#env;
    if (values === undefined) {
      if (!lenient) return false;
      env[binding.slot] = absentValue;
      const holds = next();
      env[binding.slot] = unbound;
      return holds;
    }
    for (const value of values) {
      this.#step();
      env[binding.slot] = value;
      if (next()) {
        env[binding.slot] = unbound;
        return true;
      }
    }
    env[binding.slot] = unbound;
    return false;
  }

  /**
   * A filter's binding constraints on one element, in order, then `next`; with the
   * list's element table, the values are read from it (element `index`). Inside `not`
   * (`negated`), with the deny-list reading, and on a record a value that does not fit
   * compares (fail closed).
   */
  #bindElement(
    bindings: readonly CompiledBinding[],
    position: number,
    element: unknown,
    next: () => boolean,
    table?: ElementTable,
    index = 0,
    negated?: FilterProgram['negated'],
  ): boolean {
    const binding = bindings[position];
    if (binding === undefined) return next();
    const values = table
      ? table.values[position]?.[index]
      : binding.values(element as Value, this.context.clock);
    return this.#settle(
      binding,
      values,
      negated?.record === true,
      undefined,
      () => this.#bindElement(bindings, position + 1, element, next, table, index, negated),
      negated !== undefined,
    );
  }

  /**
   * The walk of a path whose filters bind or use bindings, from stage `at` on `data`:
   * a filter that binds tries each element (the rest of the path sees that one element);
   * one that only uses bindings selects under the assignment. Then the comparison.
   */
  #walkProgram(
    binding: CompiledBinding,
    program: FilterProgram,
    at: number,
    data: unknown,
    lenient: boolean,
    failed: ((bound: unknown) => void) | undefined,
    next: () => boolean,
  ): boolean {
    const { clock } = this.context;
    const stage = program.stages[at];
    if (stage === undefined) {
      if (program.test !== undefined) {
        this.#step();
        return program.test(data, clock) && next();
      }
      return this.#settle(binding, binding.values(data as Value, clock), lenient, failed, next);
    }
    if (stage.kind === 'step') {
      const after = stage.step(data, clock);
      if (after === undecided) return next();
      if (after === missing) return lenient && next();
      return this.#walkProgram(binding, program, at + 1, after, lenient, failed, next);
    }
    if (!Array.isArray(data)) return lenient && next();
    const table = elementTable(stage, data, clock);
    if (!stage.binds) {
      const selected = this.#select(stage, program, data, table, lenient);
      if (selected === undefined) return next();
      return this.#walkProgram(binding, program, at + 1, selected, lenient, failed, next);
    }
    // The last filter of a bare filtered list: the element it stands for is the "some
    // element" the comparison asks for.
    const last = program.exists === true && at === program.stages.length - 1;
    for (let index = 0; index < data.length; index++) {
      const element: unknown = data[index];
      if (!this.#passes(stage, table, element, index)) continue;
      if (
        this.#bindElement(
          stage.bindings,
          0,
          element,
          last
            ? next
            : () => this.#walkProgram(binding, program, at + 1, [element], lenient, failed, next),
          table,
          index,
        )
      )
        return true;
    }
    return false;
  }

  /** Whether an element passes a filter's constraints without bindings. */
  #passes(
    stage: FilterStageOf<'filter'>,
    table: ElementTable | undefined,
    element: unknown,
    index: number,
  ): boolean {
    this.#step();
    if (table) return table.passes[index] === true;
    for (const test of stage.tests) if (!test(element, this.context.clock)) return false;
    return true;
  }

  /**
   * The elements a filter that only uses bindings keeps under the assignment; undefined
   * when the selection is open and the constraint holds: in a guard, a use whose binding
   * has no value; inside `not`, an element only the deny-list reading may keep.
   */
  #select(
    stage: FilterStageOf<'filter'>,
    program: FilterProgram,
    data: readonly unknown[],
    table: ElementTable | undefined,
    lenient: boolean,
  ): unknown[] | undefined {
    const env = this.#env;
    const { clock } = this.context;
    // In a guard, a filter that compares with a binding that has no value (its binder's
    // argument was not given, or did not fit) cannot select: the comparison cannot be
    // made, so the constraint holds and the guard fires — never "every element kept",
    // which under `count(…) = 0` or `not` would let the guard pass.
    if (
      lenient &&
      stage.bindings.some((use) => env[use.slot] === absentValue || env[use.slot] === unbound)
    )
      return undefined;
    // Inside `not` (no filter there binds): an element that only the deny-list reading may
    // keep — or, on a record, one that does not fit — leaves the selection open, and the
    // constraint matches (`undecided` in access-test.ts, E2, E9).
    const negated = program.negated;
    const possible = stage.possible;
    const open = (element: unknown, index: number): boolean =>
      negated !== undefined &&
      possible?.every((test) => test(element, clock)) === true &&
      this.#bindElement(stage.bindings, 0, element, () => true, table, index, negated);
    let unsettled = false;
    const selected = data.filter((element, index) => {
      if (
        this.#passes(stage, table, element, index) &&
        this.#bindElement(stage.bindings, 0, element, () => true, table, index)
      )
        return true;
      if (open(element, index)) unsettled = true;
      return false;
    });
    return unsettled ? undefined : selected;
  }

  /** The binding constraints of pattern `index` on an instance from `position` on, then the next pattern. */
  #bindFrom(
    index: number,
    pattern: CompiledPattern,
    instance: Instance,
    constraints: readonly CompiledConstraint[],
    position: number,
  ): boolean {
    const constraint = constraints[position];
    if (constraint === undefined) return this.holdsFrom(index + 1);
    const binding = constraint.binding as CompiledBinding;
    const raw = instance[constraint.variable] ?? constraint.absent;
    const next = () => this.#bindFrom(index, pattern, instance, constraints, position + 1);
    // §5.1: in a guard over a state, an unobserved variable is no omitted argument: false.
    // Inside a negative scope, a field a result does not report may be anything: it holds.
    const unobserved =
      raw === undefined &&
      pattern.predicate.declaration.kind === 'state' &&
      !this.#readsBroadly(pattern);
    if (binding.filter !== undefined)
      return this.#bindThroughFilters(index, position, pattern, constraint, raw, unobserved, next);
    const failed = (bound: unknown) =>
      this.#record(index * 1_000 + position, pattern, constraint, raw, bound);
    // §5.1 (O2): a use of a binding on an argument that is not given holds in a guard only
    // when it is negative (`note = $p` does not fire without a note); a binder without a
    // value makes the guard's uses of it hold (docs/language.md).
    const absentUse = raw === undefined && !binding.binds;
    const values = raw === undefined ? undefined : binding.values(raw, this.context.clock);
    const lenient = absentUse ? constraint.holdsWhenAbsent : this.guard && !unobserved;
    // A guard compares with the deny-list reading (`from = $a, to = $a` fires for a `to`
    // that lists `$a`); a rule with the rules'.
    return this.#settle(binding, values, lenient, failed, next, this.guard);
  }

  /** A binding constraint whose path has filters that bind or use bindings. */
  #bindThroughFilters(
    index: number,
    position: number,
    pattern: CompiledPattern,
    constraint: CompiledConstraint,
    raw: Value | undefined,
    unobserved: boolean,
    next: () => boolean,
  ): boolean {
    const binding = constraint.binding as CompiledBinding;
    const program = binding.filter as FilterProgram;
    const at = index * 1_000 + position;
    if (raw === undefined)
      return (
        (program.stages.some((stage) => stage.kind === 'filter' && stage.binds)
          ? this.guard && !unobserved
          : constraint.holdsWhenAbsent) && next()
      );
    const failed = (bound: unknown) => this.#record(at, pattern, constraint, raw, bound);
    const data = bindingData(raw);
    if (this.failure === undefined)
      return this.#walkProgram(binding, program, 0, data, this.guard, failed, next);
    // For feedback: a filter that compares with a bound value and keeps no element under
    // it is the failed use (LANGUAGE.md §6 step 4), not a binder that holds (T2).
    let reached = false;
    const holds = this.#walkProgram(binding, program, 0, data, this.guard, failed, () => {
      reached = true;
      return next();
    });
    if (!holds && !reached) {
      const env = this.#env;
      const use = program.stages
        .flatMap((stage) => (stage.kind === 'filter' ? stage.bindings : []))
        .find((candidate) => candidate.slot >= 0 && bound(env[candidate.slot]));
      if (use !== undefined) this.#record(at, pattern, constraint, raw, env[use.slot], use);
    }
    return holds;
  }

  #tryInstance(index: number, pattern: CompiledPattern, instance: Instance): boolean {
    this.#step();
    if (this.#unreadableMatches(pattern, instance)) return this.holdsFrom(index + 1);
    // Inside a negative scope, a field a result does not report may be anything.
    const unreported = this.#readsBroadly(pattern);
    // The plain constraints first: they need no assignment.
    for (const constraint of pattern.constraints) {
      if (constraint.binding !== undefined) continue;
      const value = instance[constraint.variable] ?? constraint.absent;
      if (
        value === undefined
          ? !(constraint.holdsWhenAbsent || unreported)
          : !constraint.test(value, this.context.clock)
      )
        return false;
    }
    return this.#bindFrom(index, pattern, instance, this.plan.bindingConstraints[index] ?? [], 0);
  }

  /** Whether an instance matches a negated pattern under the current assignment. */
  #matchesUnder(pattern: CompiledPattern, instance: Instance): boolean {
    this.#step();
    // An unobserved field of a tool's result (not reported, or unreadable: E1, E3) counts
    // as matching too (negationMatches in evaluation.ts).
    const unobservedMatches = pattern.predicate.declaration.resultOf !== undefined;
    for (const constraint of pattern.constraints) {
      // LANGUAGE.md §7: inside `not`, a path into a record the instance does not carry, or
      // whose value does not fit, counts as matching (fail closed) — with bindings as
      // without. `holdsWhenAbsent` marks such paths in a negated pattern (compiled-spec.ts).
      const unfitMatches = constraint.holdsWhenAbsent;
      const value = instance[constraint.variable] ?? constraint.absent;
      if (value === undefined) {
        if (unfitMatches || unobservedMatches) continue;
        return false;
      }
      const binding = constraint.binding;
      if (binding === undefined) {
        if (!constraint.test(value, this.context.clock)) return false;
        continue;
      }
      if (!this.#useMatches(binding, value, unfitMatches)) return false;
    }
    return true;
  }

  /** Inside `not`: whether a value matches a constraint with a binding under the assignment. */
  #useMatches(binding: CompiledBinding, value: Value, unfitMatches: boolean): boolean {
    if (binding.filter !== undefined) {
      const data = bindingData(value);
      return this.#walkProgram(
        binding,
        binding.filter,
        0,
        data,
        unfitMatches,
        undefined,
        () => true,
      );
    }
    const env = this.#env;
    const bound = env[binding.slot];
    if (bound === unbound || bound === absentValue) return false;
    const values = binding.values(value, this.context.clock);
    if (values === undecidedValues) return true;
    if (values === undefined) return unfitMatches;
    const target = binding.adjust
      ? binding.adjust(bound as Key | undefined, env, this.context.clock)
      : (bound as Key | undefined);
    let some = false;
    for (const candidate of values) {
      // The deny-list reading (E2): `not Blocked(senders contains $to)` matches when `$to`
      // is "news@x, blocked@y" or "Name <blocked@y>"; a negated operator stays the
      // negation of the rules' reading, which holds more often.
      const result = comparePositive(
        binding.positive,
        candidate,
        target,
        this.plan.parts,
        !binding.negated,
      );
      if (result === undefined) {
        if (unfitMatches) {
          some = !binding.negated;
          break;
        }
        return false;
      }
      if (result) some = true;
    }
    return some !== binding.negated;
  }

  /** Conditions on the bindings under the assignment; one that does not fit holds only in a guard. */
  #comparisonsHold(comparisons: readonly CompiledComparison[]): boolean {
    for (const comparison of comparisons) {
      this.#step();
      const holds = comparison.holds(this.#env, this.context.clock);
      if (holds === undefined ? !this.guard : !holds) return false;
    }
    return true;
  }

  #negationsHold(): boolean {
    const view = this.context.view;
    for (const pattern of this.plan.negations) {
      if (view === undefined) continue;
      const found =
        pattern.predicate.keyIndexes.length === 0
          ? this.#singleMatchesUnder(pattern, view)
          : view.someInstance(pattern.predicate, (instance) =>
              this.#matchesUnder(pattern, instance),
            );
      if (found) return false;
    }
    return true;
  }

  #singleMatchesUnder(pattern: CompiledPattern, view: StateView): boolean {
    const instance = view.instance(pattern.predicate, singleKey);
    return instance !== undefined && this.#matchesUnder(pattern, instance);
  }

  /** Whether the patterns from `index` on (then the negations) hold under the assignment. */
  holdsFrom(index: number): boolean {
    const due = this.plan.comparisons?.[index];
    if (due !== undefined && !this.#comparisonsHold(due)) return false;
    const pattern = this.plan.patterns[index];
    if (pattern === undefined) {
      const holds = this.#negationsHold() && this.#scopesHold();
      // A scope's search for feedback goes on after each assignment it reports.
      return holds && typeof this.#witnesses === 'function' ? this.#witnesses() : holds;
    }
    const { context } = this;
    if (pattern.predicate.declaration.kind === 'action') {
      const action = context.action;
      return (
        action !== undefined &&
        action.predicate === pattern.predicate &&
        this.#tryInstance(index, pattern, action.values)
      );
    }
    if (context.instance !== undefined) return this.#tryInstance(index, pattern, context.instance);
    const view = context.view;
    if (view === undefined) return false;
    if (pattern.predicate.keyIndexes.length === 0) {
      const instance = view.instance(pattern.predicate, singleKey);
      return instance !== undefined && this.#tryInstance(index, pattern, instance);
    }
    return view.someInstance(pattern.predicate, (instance) =>
      this.#tryInstance(index, pattern, instance),
    );
  }
}
