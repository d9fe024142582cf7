import type { Operator, RelativeDate, ValueNode } from '../ast.js';
import type { NumberValue } from '../decimal.js';
import { durationSeconds } from '../duration.js';
import { printValue } from '../printer.js';
import { compileRegex, type TextRegex } from '../regex.js';
import type { VariableDeclaration, VariableType } from '../schema-model.js';
import { formatType } from '../schema-model.js';
import { parseDate, parseDateTime, parseTime } from '../temporal.js';

/**
 * A constraint value typed by the variable it constrains. Dates, times and
 * date-times are numbers (see temporal.ts); `today`/`now`… stay symbolic until a
 * session resolves them against its clock.
 */
export type Literal =
  | { readonly kind: 'text'; readonly value: string }
  /** Exact (LANGUAGE.md §5.1): a plain number when a double prints as it, else a `Decimal`. */
  | { readonly kind: 'number'; readonly value: NumberValue }
  | { readonly kind: 'boolean'; readonly value: boolean }
  | { readonly kind: 'date'; readonly value: number }
  | { readonly kind: 'time'; readonly value: number }
  | { readonly kind: 'datetime'; readonly value: number }
  | {
      readonly kind: 'relative';
      readonly value: RelativeDate;
      /** The type of the variable it is compared with. */
      readonly as: 'date' | 'time' | 'datetime';
      /**
       * `now - 24h`, `today + 1d` (v3, LANGUAGE.md §9): moved by durations, in the units of
       * `as` (days for a date, seconds otherwise); absent when not moved.
       */
      readonly offset?: number;
    }
  | { readonly kind: 'enum'; readonly value: string }
  | { readonly kind: 'list'; readonly elements: readonly Literal[] }
  | {
      readonly kind: 'regex';
      /** Compiled for the linear-time engine; it tests normalized text. */
      readonly regex: TextRegex;
      readonly pattern: string;
      readonly flags: string;
    };

export { allowedOperators } from '../operators.js';

export type TypingProblem =
  | {
      readonly code: 'type-mismatch';
      readonly data: Readonly<Record<string, string>>;
      readonly node: ValueNode;
    }
  | {
      readonly code: 'enum-value-not-member';
      readonly data: Readonly<Record<string, string>>;
      readonly node: ValueNode;
    }
  | {
      readonly code: 'bare-text-value';
      readonly data: Readonly<Record<string, string>>;
      readonly node: ValueNode;
    };

const valueKindNames: Readonly<Record<ValueNode['kind'], string>> = {
  string: 'text',
  number: 'a number',
  boolean: 'a boolean',
  date: 'a date',
  time: 'a time',
  datetime: 'a date-time',
  relative: 'a relative date',
  name: 'a bare name',
  list: 'a list',
  regex: 'a regular expression',
  binding: 'a binding',
  duration: 'a duration',
  arithmetic: 'a computed value',
  extremum: 'a computed value',
};

type ScalarType = Exclude<VariableType, { kind: 'list' }>;

interface TypingContext {
  readonly variable: VariableDeclaration;
  readonly problems: TypingProblem[];
  /** How mismatches describe the expected type, when not the scalar type itself. */
  readonly typeName?: string;
}

function mismatch(context: TypingContext, node: ValueNode, expected: string, hint = ''): undefined {
  context.problems.push({
    code: 'type-mismatch',
    node,
    data: {
      variable: context.variable.name,
      type: expected,
      value: printValue(node),
      valueType: valueKindNames[node.kind],
      hint,
    },
  });
  return undefined;
}

/**
 * `now - 24h`, `today + 1d - 12h`: a clock word moved by durations (v3), as the clock word
 * and the seconds it is moved by; undefined for any other computation.
 */
function clockShift(node: ValueNode): { word: RelativeDate; seconds: number } | undefined {
  if (node.kind === 'relative') return { word: node.value, seconds: 0 };
  if (node.kind !== 'arithmetic' || (node.operator !== '+' && node.operator !== '-'))
    return undefined;
  if (node.right.kind !== 'duration') return undefined;
  const left = clockShift(node.left as ValueNode);
  const seconds = durationSeconds(node.right.value);
  if (left === undefined || seconds === undefined) return undefined;
  const moved = left.seconds + (node.operator === '+' ? seconds : -seconds);
  return Number.isSafeInteger(moved) ? { word: left.word, seconds: moved } : undefined;
}

/** A moved clock word as a literal of `as`; a date moves by whole days only. */
function shiftedClock(
  node: ValueNode,
  as: 'date' | 'time' | 'datetime',
  context: TypingContext,
  typeName: string,
): Literal | undefined {
  const shift = clockShift(node);
  if (shift === undefined || (as === 'time' && shift.word !== 'now'))
    return mismatch(
      context,
      node,
      typeName,
      'Move a clock word by durations only: now - 24h, today + 1d.',
    );
  if (as === 'date' && shift.seconds % 86_400 !== 0)
    return mismatch(context, node, typeName, 'A date moves by whole days (today + 2d).');
  const offset = as === 'date' ? shift.seconds / 86_400 : shift.seconds;
  return { kind: 'relative', value: shift.word, as, ...(offset !== 0 ? { offset } : {}) };
}

function typeScalar(
  node: ValueNode,
  type: ScalarType,
  context: TypingContext,
): Literal | undefined {
  if (
    node.kind === 'arithmetic' &&
    (type.kind === 'date' || type.kind === 'time' || type.kind === 'datetime')
  )
    return shiftedClock(node, type.kind, context, context.typeName ?? formatType(type));
  // Only mismatches read the type's name; enums would join their members for nothing.
  const typeName = () => context.typeName ?? formatType(type);
  switch (type.kind) {
    case 'text':
      if (node.kind === 'string') return { kind: 'text', value: node.value };
      if (node.kind === 'name') {
        context.problems.push({
          code: 'bare-text-value',
          node,
          data: { variable: context.variable.name, value: node.value },
        });
        return { kind: 'text', value: node.value };
      }
      return mismatch(context, node, typeName(), `Quote text values: "${printValue(node)}".`);
    case 'number':
      if (node.kind === 'number') return { kind: 'number', value: node.value };
      return mismatch(context, node, typeName());
    case 'boolean':
      if (node.kind === 'boolean') return { kind: 'boolean', value: node.value };
      return mismatch(context, node, typeName(), 'Write true or false.');
    case 'date':
      if (node.kind === 'date') return { kind: 'date', value: parseDate(node.value) ?? 0 };
      if (node.kind === 'relative') return { kind: 'relative', value: node.value, as: 'date' };
      return mismatch(
        context,
        node,
        typeName(),
        'Write a date as YYYY-MM-DD, or today, tomorrow, yesterday.',
      );
    case 'time':
      if (node.kind === 'time') return { kind: 'time', value: parseTime(node.value) ?? 0 };
      if (node.kind === 'relative' && node.value === 'now')
        return { kind: 'relative', value: 'now', as: 'time' };
      return mismatch(context, node, typeName(), 'Write a time as HH:MM (24-hour), or now.');
    case 'datetime':
      if (node.kind === 'datetime')
        return { kind: 'datetime', value: parseDateTime(node.value) ?? 0 };
      // A date compared with a date-time means midnight at the start of that day.
      if (node.kind === 'date')
        return { kind: 'datetime', value: (parseDate(node.value) ?? 0) * 86_400 };
      if (node.kind === 'relative') return { kind: 'relative', value: node.value, as: 'datetime' };
      return mismatch(context, node, typeName(), 'Write a date-time as YYYY-MM-DDTHH:MM, or now.');
    case 'enum': {
      // Members are text, but many read as numbers or booleans (`party = 2` for "2").
      const text =
        node.kind === 'name' || node.kind === 'string'
          ? node.value
          : node.kind === 'number' || node.kind === 'boolean'
            ? String(node.value)
            : undefined;
      if (text === undefined) {
        return mismatch(context, node, typeName(), `Its values are: ${type.values.join(', ')}.`);
      }
      const exact = type.values.find((member) => member === text);
      const member =
        exact ?? type.values.find((candidate) => candidate.toLowerCase() === text.toLowerCase());
      if (member === undefined) {
        context.problems.push({
          code: 'enum-value-not-member',
          node,
          data: {
            variable: context.variable.name,
            value: printValue(node),
            values: type.values.join(', '),
          },
        });
        return undefined;
      }
      return { kind: 'enum', value: member };
    }
  }
}

function typeList(
  node: ValueNode,
  element: ScalarType,
  context: TypingContext,
  typeName: string,
): Literal | undefined {
  if (node.kind !== 'list')
    return mismatch(context, node, typeName, `Write a list: [${printValue(node)}].`);
  const elements: Literal[] = [];
  let failed = false;
  for (const child of node.elements) {
    const typed = typeScalar(child, element, context);
    if (typed === undefined) failed = true;
    else elements.push(typed);
  }
  return failed ? undefined : { kind: 'list', elements };
}

/**
 * Types the value of `variable operator value`, reporting mismatches and enum members
 * into `problems`. Returns undefined when the value cannot be typed.
 */
export function typeConstraintValue(
  variable: VariableDeclaration,
  operator: Operator,
  node: ValueNode,
  problems: TypingProblem[],
): Literal | undefined {
  const context: TypingContext = { variable, problems };
  const type = variable.type;
  if (operator === 'matches' || operator === 'not matches') {
    if (node.kind === 'regex') {
      // The lexer already reported a pattern that does not compile; leave it untyped.
      const compiled = compileRegex(node.pattern, node.flags);
      if (!compiled.ok) return undefined;
      return {
        kind: 'regex',
        regex: compiled.regex,
        pattern: node.pattern,
        flags: node.flags,
      };
    }
    return mismatch(
      context,
      node,
      'a regular expression',
      `Write a regular expression: /${node.kind === 'string' ? node.value : '…'}/.`,
    );
  }
  if (type.kind === 'list') {
    const element: ScalarType = { kind: type.element };
    if (operator === 'contains' || operator === 'not contains') {
      return typeScalar(node, element, {
        ...context,
        typeName: `${formatType(type)} (its elements are ${type.element})`,
      });
    }
    if (operator === '~' || operator === '!~') return typeScalar(node, { kind: 'text' }, context);
    return typeList(node, element, context, formatType(type));
  }
  if (operator === 'in' || operator === 'not in') {
    return typeList(node, type, context, `a list of ${formatType(type)}`);
  }
  if (
    operator === 'contains' ||
    operator === 'not contains' ||
    operator === '~' ||
    operator === '!~'
  ) {
    return typeScalar(node, { kind: 'text' }, context);
  }
  return typeScalar(node, type, context);
}
