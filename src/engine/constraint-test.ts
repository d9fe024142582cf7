import { durationText } from '../language/duration.js';
import {
  type CheckedConstraint,
  compareNumbers,
  type Decimal,
  formatDate,
  formatDateTime,
  formatTime,
  isDecimal,
  type Literal,
  type NumberValue,
  normalizeText,
  operatorTable,
  type PositiveOperator,
} from '../language/index.js';
import { normalizeNeedle } from '../language/text.js';
import { clockReading, type SessionClock } from './clock.js';
import type { EngineParts } from './engine-parts.js';
import { requireSimilarity, type SimilarityFunction, similarityOf } from './similarity.js';
import { isTextValue, type ScalarValue, type Value } from './values.js';

/** A compiled constraint test: called only with an observed value (unobserved is always false). */
export type ConstraintTest = (value: Value, clock: SessionClock) => boolean;

/** What a spec is compiled with: the measure of `~` and its threshold, and the engine's parts. */
export interface CompileSettings {
  readonly similarity: SimilarityFunction;
  readonly threshold: number;
  /** Read where a test needs one (the confusables of the deny-list reading), when it needs it. */
  readonly parts: EngineParts;
}

type Resolved = (clock: SessionClock) => number;

/** A literal compared by number; relative dates read the session clock. */
function numericLiteral(literal: Literal): Resolved | NumberValue | undefined {
  switch (literal.kind) {
    case 'number':
    case 'date':
    case 'time':
    case 'datetime':
      return literal.value;
    case 'relative': {
      const { value: word, as, offset = 0 } = literal;
      return (clock) => clockReading(word, as, clock) + offset;
    }
    default:
      return undefined;
  }
}

/**
 * The identity of a scalar literal as a runtime value compares (text by its normalised
 * key, an exact decimal by its text: one key per decimal, so `===` compares exactly).
 */
export function scalarKey(literal: Literal): string | number | boolean | Resolved | undefined {
  switch (literal.kind) {
    case 'number':
      return isDecimal(literal.value) ? decimalKey(literal.value) : literal.value;
    case 'text':
      return normalizeText(literal.value);
    case 'enum':
      return literal.value;
    case 'boolean':
      return literal.value;
    default: {
      // Dates and times: plain numbers, or functions of the clock for relative ones.
      const resolved = numericLiteral(literal);
      return isDecimal(resolved) ? decimalKey(resolved) : resolved;
    }
  }
}

/** Keys of exact decimals; the prefix keeps them apart from any text or enum key. */
function decimalKey(value: Decimal): string {
  return `\u0000decimal:${value.toString()}`;
}

function runtimeKey(value: ScalarValue): string | number | boolean {
  if (isTextValue(value)) return value.key;
  return isDecimal(value) ? decimalKey(value) : value;
}

function equalsTest(literal: Literal): (value: ScalarValue, clock: SessionClock) => boolean {
  const key = scalarKey(literal);
  if (typeof key === 'function') return (value, clock) => value === key(clock);
  // The common cases without the general key: a plain number is its own key, a text's
  // key is its normalised text (runtimeKey gives the same).
  if (typeof key === 'number')
    return (value) => (typeof value === 'number' ? value === key : runtimeKey(value) === key);
  if (typeof key === 'string')
    return (value) => (isTextValue(value) ? value.key === key : runtimeKey(value) === key);
  return (value) => runtimeKey(value) === key;
}

type Members = Set<string | number | boolean>;

/** The keys of an `in` list: one set, or a set per clock when a member is a relative date. */
function membershipSet(literal: Literal): Members | ((clock: SessionClock) => Members) {
  const elements = literal.kind === 'list' ? literal.elements : [literal];
  const keys = elements.map(scalarKey);
  if (keys.some((key) => typeof key === 'function')) {
    return (clock) =>
      new Set(keys.map((key) => (typeof key === 'function' ? key(clock) : (key as string))));
  }
  return new Set(keys as (string | number | boolean)[]);
}

type OrderOperator = '<' | '<=' | '>' | '>=';

const orderings: Readonly<Record<OrderOperator, (a: number, b: number) => boolean>> = {
  '<': (a, b) => a < b,
  '<=': (a, b) => a <= b,
  '>': (a, b) => a > b,
  '>=': (a, b) => a >= b,
};

function orderTest(operator: OrderOperator, literal: Literal): ConstraintTest {
  const bound = numericLiteral(literal);
  const compare = orderings[operator];
  if (typeof bound === 'function') return (value, clock) => compare(value as number, bound(clock));
  if (bound === undefined) return () => false;
  // Two plain numbers compare natively (the common case); an exact decimal on either
  // side compares exactly: `compare(compareNumbers(a, b), 0)` orders like `compare(a, b)`.
  if (typeof bound === 'number') {
    // One test per operator: through `compare`, every plain comparison was a call V8
    // cannot inline (one call site, four functions).
    const exact = (value: Value): boolean =>
      compare(compareNumbers(value as NumberValue, bound), 0);
    switch (operator) {
      case '<':
        return (value) => (typeof value === 'number' ? value < bound : exact(value));
      case '<=':
        return (value) => (typeof value === 'number' ? value <= bound : exact(value));
      case '>':
        return (value) => (typeof value === 'number' ? value > bound : exact(value));
      default:
        return (value) => (typeof value === 'number' ? value >= bound : exact(value));
    }
  }
  return (value) => compare(compareNumbers(value as NumberValue, bound), 0);
}

type PositiveCompiler = (
  literal: Literal,
  isList: boolean,
  settings: CompileSettings,
) => ConstraintTest;

/** The run-time test of every positive operator (the operator table's engine side). */
const positiveCompilers: Readonly<Record<PositiveOperator, PositiveCompiler>> = {
  '=': (literal, isList) => {
    if (isList) {
      const elements = literal.kind === 'list' ? literal.elements.map(equalsTest) : [];
      return (value, clock) =>
        Array.isArray(value) &&
        value.length === elements.length &&
        value.every((item, index) => elements[index]?.(item, clock) === true);
    }
    // A scalar variable holds a scalar value: the test takes it as it comes.
    return equalsTest(literal) as ConstraintTest;
  },
  '<': (literal) => orderTest('<', literal),
  '<=': (literal) => orderTest('<=', literal),
  '>': (literal) => orderTest('>', literal),
  '>=': (literal) => orderTest('>=', literal),
  in: (literal, isList) => {
    const members = membershipSet(literal);
    if (isList) {
      return (value, clock) => {
        const set = typeof members === 'function' ? members(clock) : members;
        return Array.isArray(value) && value.every((item) => set.has(runtimeKey(item)));
      };
    }
    // A fixed set (no relative date) is tested directly: one call less on the allowed path.
    if (typeof members !== 'function')
      return (value) => members.has(runtimeKey(value as ScalarValue));
    return (value, clock) => members(clock).has(runtimeKey(value as ScalarValue));
  },
  contains: (literal, isList) => {
    if (isList) {
      const test = equalsTest(literal);
      return (value, clock) => Array.isArray(value) && value.some((item) => test(item, clock));
    }
    // Both sides normalized (LANGUAGE.md §5.1): `x@EVIL.com` contains "@evil.com".
    const needle = literal.kind === 'text' ? normalizeNeedle(literal.value) : '';
    return (value) => isTextValue(value) && value.key.includes(needle);
  },
  matches: (literal, isList) => {
    // On the normalized text, by the linear-time engine the checker compiled it for.
    const regex = literal.kind === 'regex' ? literal.regex : undefined;
    const test = (item: ScalarValue) =>
      regex !== undefined && isTextValue(item) && regex.test(item.key);
    if (isList) return (value) => Array.isArray(value) && value.some(test);
    return (value) => test(value as ScalarValue);
  },
  '~': (literal, isList, settings) => {
    requireSimilarity(settings.similarity);
    const target = literal.kind === 'text' ? literal.value : '';
    const test = (item: ScalarValue) =>
      isTextValue(item) &&
      similarityOf(settings.similarity, item.raw, target) >= settings.threshold;
    if (isList) return (value) => Array.isArray(value) && value.some(test);
    return (value) => test(value as ScalarValue);
  },
};

function positiveTest(constraint: CheckedConstraint, settings: CompileSettings): ConstraintTest {
  const { value: literal, variable } = constraint;
  const operator = operatorTable[constraint.operator].positive;
  return positiveCompilers[operator](literal, variable.type.kind === 'list', settings);
}

/**
 * Compiles a checked constraint into a test. Negated operators are real negations of
 * their positive form (LANGUAGE.md §5.1); the caller makes every test false on an
 * unobserved variable.
 */
export function compileConstraintTest(
  constraint: CheckedConstraint,
  settings: CompileSettings,
): ConstraintTest {
  const positive = positiveTest(constraint, settings);
  return operatorTable[constraint.operator].negated
    ? (value, clock) => !positive(value, clock)
    : positive;
}

/** ` - 24h`, ` + 1d`: how far a clock word is moved, in the largest exact unit. */
function shiftText(offset: number, as: 'date' | 'time' | 'datetime'): string {
  const seconds = Math.abs(as === 'date' ? offset * 86_400 : offset);
  return ` ${offset < 0 ? '-' : '+'} ${durationText(seconds)}`;
}

/** The literal as feedback shows it, with relative dates resolved: `2025-03-14 (today)`. */
export function describeLiteral(literal: Literal, clock: SessionClock): string {
  switch (literal.kind) {
    case 'text':
      return JSON.stringify(literal.value);
    case 'date':
      return formatDate(literal.value);
    case 'time':
      return formatTime(literal.value);
    case 'datetime':
      return formatDateTime(literal.value);
    case 'relative': {
      const resolved = numericLiteral(literal);
      const value = typeof resolved === 'function' ? resolved(clock) : 0;
      const text =
        literal.as === 'date'
          ? formatDate(value)
          : literal.as === 'time'
            ? formatTime(value)
            : formatDateTime(value);
      return `${text} (${literal.value}${literal.offset ? shiftText(literal.offset, literal.as) : ''})`;
    }
    case 'list':
      return `[${literal.elements.map((element) => describeLiteral(element, clock)).join(', ')}]`;
    case 'regex':
      return `/${literal.pattern}/${literal.flags}`;
    default:
      return String(literal.value);
  }
}

/** `< 19:00`: the expected side of a constraint, as verdict reasons carry it. */
export function describeExpectation(constraint: CheckedConstraint, clock: SessionClock): string {
  if (constraint.binding) return `${constraint.operator} $${constraint.binding.name}`;
  return `${constraint.operator} ${describeLiteral(constraint.value, clock)}`;
}
