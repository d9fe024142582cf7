import type { Operator } from '../ast.js';
import { compareNumbers, type NumberValue, numberText } from '../decimal.js';
import { negateOperator, operatorTable } from '../operators.js';
import type { VariableType } from '../schema-model.js';
import { normalizeText } from '../text.js';
import type { Literal } from './literal.js';

/**
 * Decides whether constraints on one variable can hold together for a single value:
 * interval reasoning for numbers, dates, times and date-times, equality sets for
 * text, enums and booleans. It answers `false` only when it is sure; operators it
 * does not reason about (`contains`, `matches`, `~`, list variables) never make it
 * conclude anything.
 */
export interface ConstraintLike {
  readonly operator: Operator;
  readonly value: Literal;
}

export { negateOperator } from '../operators.js';

/** Relative dates as offsets from a common origin, so `today < tomorrow` is decidable. */
function relativeOffset(literal: Literal): number | undefined {
  if (literal.kind !== 'relative') return undefined;
  const days = { yesterday: -1, today: 0, tomorrow: 1, now: 0 }[literal.value];
  // `today + 1d`, `now - 24h` (v3): moved in the literal's own units.
  const offset = literal.offset ?? 0;
  if (literal.as === 'date') return days + offset;
  if (literal.as === 'datetime' && literal.value !== 'now') return days * 86_400 + offset;
  return undefined;
}

function orderedValue(literal: Literal): NumberValue | undefined {
  switch (literal.kind) {
    case 'number':
    case 'date':
    case 'time':
    case 'datetime':
      return literal.value;
    default:
      return undefined;
  }
}

function equalityKey(literal: Literal): string | undefined {
  switch (literal.kind) {
    case 'text':
      return normalizeText(literal.value);
    case 'enum':
      return literal.value;
    case 'boolean':
      return String(literal.value);
    default:
      return undefined;
  }
}

/** A bound of an interval; `undefined` value means unbounded. */
interface Bound {
  value: NumberValue | undefined;
  inclusive: boolean;
}

/**
 * Interval reasoning, exact: numbers that no double prints as (a 19-digit id) are
 * compared as decimals, so two distinct literals are never taken for one value and no
 * contradiction is reported that is not one.
 */
function orderedSatisfiable(
  constraints: readonly ConstraintLike[],
  value: (literal: Literal) => NumberValue | undefined,
  discrete: boolean,
): boolean {
  const low: Bound = { value: undefined, inclusive: false };
  const high: Bound = { value: undefined, inclusive: false };
  // Keyed by exact decimal text: one key per value, whatever its representation.
  let allowed: Map<string, NumberValue> | undefined;
  const excluded = new Set<string>();
  const restrict = (values: readonly NumberValue[]) => {
    const next = new Map(values.map((member) => [numberText(member), member] as const));
    allowed = allowed === undefined ? next : new Map([...allowed].filter(([key]) => next.has(key)));
  };
  for (const { operator, value: literal } of constraints) {
    const members = literal.kind === 'list' ? literal.elements.map(value) : [value(literal)];
    if (members.some((member) => member === undefined)) continue;
    const numbers = members as NumberValue[];
    const single = numbers[0] ?? 0;
    const effect = operatorTable[operator].effect;
    if (effect.kind === 'restrict') restrict(effect.all ? numbers : [single]);
    else if (effect.kind === 'exclude') {
      for (const member of effect.all ? numbers : [single]) excluded.add(numberText(member));
    } else if (effect.kind === 'bound') {
      const bound = effect.side === 'upper' ? high : low;
      // Tighten only: a lower upper bound, or an equal one that becomes exclusive.
      const order =
        bound.value === undefined
          ? effect.side === 'upper'
            ? -1
            : 1
          : compareNumbers(single, bound.value);
      const tighter = effect.side === 'upper' ? order < 0 : order > 0;
      if (tighter || (order === 0 && !effect.inclusive)) {
        bound.value = single;
        bound.inclusive = effect.inclusive;
      }
    }
  }
  const inside = (candidate: NumberValue) => {
    const above = low.value === undefined ? 1 : compareNumbers(candidate, low.value);
    const below = high.value === undefined ? -1 : compareNumbers(candidate, high.value);
    return (
      (above > 0 || (above === 0 && low.inclusive)) &&
      (below < 0 || (below === 0 && high.inclusive))
    );
  };
  if (allowed !== undefined) {
    return [...allowed].some(([key, candidate]) => inside(candidate) && !excluded.has(key));
  }
  if (discrete) {
    // Dates, times and date-times are whole units (plain numbers): an open bound moves by one.
    const lowValue = low.value === undefined ? Number.NEGATIVE_INFINITY : (low.value as number);
    const highValue = high.value === undefined ? Number.POSITIVE_INFINITY : (high.value as number);
    const first = low.inclusive ? lowValue : lowValue + 1;
    const last = high.inclusive ? highValue : highValue - 1;
    if (first > last) return false;
    if (!Number.isFinite(last - first) || last - first + 1 > excluded.size) return true;
    for (let candidate = first; candidate <= last; candidate++)
      if (!excluded.has(numberText(candidate))) return true;
    return false;
  }
  if (low.value === undefined || high.value === undefined) return true;
  const order = compareNumbers(low.value, high.value);
  if (order < 0) return true;
  return order === 0 && low.inclusive && high.inclusive && !excluded.has(numberText(low.value));
}

function equalitySatisfiable(
  constraints: readonly ConstraintLike[],
  universe: readonly string[] | undefined,
): boolean {
  let allowed: Set<string> | undefined = universe === undefined ? undefined : new Set(universe);
  const excluded = new Set<string>();
  for (const { operator, value: literal } of constraints) {
    const members =
      literal.kind === 'list' ? literal.elements.map(equalityKey) : [equalityKey(literal)];
    if (members.some((member) => member === undefined)) continue;
    const keys = members as string[];
    const effect = operatorTable[operator].effect;
    if (effect.kind === 'restrict') {
      const next = new Set(effect.all ? keys : keys.slice(0, 1));
      allowed =
        allowed === undefined ? next : new Set([...allowed].filter((member) => next.has(member)));
    } else if (effect.kind === 'exclude') {
      for (const key of effect.all ? keys : keys.slice(0, 1)) excluded.add(key);
    }
  }
  if (allowed === undefined) return true;
  return [...allowed].some((member) => !excluded.has(member));
}

/** Whether some single value of `type` satisfies every constraint (true when unsure). */
export function satisfiable(constraints: readonly ConstraintLike[], type: VariableType): boolean {
  switch (type.kind) {
    case 'number':
      return orderedSatisfiable(constraints, orderedValue, false);
    case 'date':
    case 'time':
    case 'datetime': {
      const absolute = constraints.filter((constraint) => !containsRelative(constraint.value));
      const relative = constraints.filter((constraint) => containsRelative(constraint.value));
      // Absolute and relative bounds cannot be compared before the clock is known;
      // each group on its own can still be contradictory.
      return (
        orderedSatisfiable(absolute, orderedValue, true) &&
        orderedSatisfiable(relative, relativeOffset, true)
      );
    }
    case 'text':
      return equalitySatisfiable(constraints, undefined);
    case 'enum':
      return equalitySatisfiable(constraints, type.values);
    case 'boolean':
      return equalitySatisfiable(constraints, ['true', 'false']);
    case 'list':
      // Whole-list and element tests do not reduce to one value; never conclude.
      return true;
  }
}

function containsRelative(literal: Literal): boolean {
  return (
    literal.kind === 'relative' ||
    (literal.kind === 'list' && literal.elements.some(containsRelative))
  );
}

/**
 * Whether `constraints` imply `candidate` for every value that satisfies them:
 * they do when adding the candidate's negation leaves nothing.
 */
export function implies(
  constraints: readonly ConstraintLike[],
  candidate: ConstraintLike,
  type: VariableType,
): boolean {
  if (constraints.length === 0) return false;
  const key = literalKey(candidate.value);
  if (
    constraints.some(
      (constraint) =>
        constraint.operator === candidate.operator && literalKey(constraint.value) === key,
    )
  ) {
    return true;
  }
  if (!satisfiable(constraints, type)) return true;
  return !satisfiable(
    [...constraints, { operator: negateOperator(candidate.operator), value: candidate.value }],
    type,
  );
}

/** A comparable identity for a literal (regexes by their source). */
export function literalKey(literal: Literal): string {
  switch (literal.kind) {
    case 'list':
      return `[${literal.elements.map(literalKey).join(',')}]`;
    case 'regex':
      return `/${literal.pattern}/${literal.flags}`;
    case 'relative':
      return `${literal.value}:${literal.as}${literal.offset ? `:${literal.offset}` : ''}`;
    case 'text':
      return `text:${normalizeText(literal.value)}`;
    default:
      return `${literal.kind}:${String(literal.value)}`;
  }
}
