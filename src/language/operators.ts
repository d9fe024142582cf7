import type { VariableType } from './schema-model.js';
import { temporalKinds } from './value-shapes.js';

/**
 * The operator table (LANGUAGE.md §2, §5.1): one record per constraint operator with
 * its spellings, its positive form and negation, the variable types it is defined on,
 * how interval/equality reasoning reads it, and its feedback phrase. The lexer, parser,
 * checker, satisfiability, engine and describer all read this table, so adding an
 * operator is one entry here plus its run-time test in `engine/constraint-test.ts`.
 */

export const operators = [
  '=',
  '!=',
  '~',
  '!~',
  '<',
  '<=',
  '>',
  '>=',
  'in',
  'not in',
  'contains',
  'not contains',
  'matches',
  'not matches',
] as const;
export type Operator = (typeof operators)[number];

/** The operators that are not negations: each negated operator's `positive`. */
export type PositiveOperator = '=' | '~' | '<' | '<=' | '>' | '>=' | 'in' | 'contains' | 'matches';

/**
 * The classes of variable types operators are defined on: `ordered` is number, date,
 * time and date-time; lists of text accept the text-element tests of §5.1.
 */
export type TypeClass = 'text' | 'ordered' | 'boolean' | 'enum' | 'list<text>' | 'list';

/**
 * How the checker's reasoning about one value reads a constraint: `=` restricts to one
 * value, `in` to a set, `!=`/`not in` exclude, the orderings bound an interval; other
 * operators (`contains`, `matches`, `~`) tell it nothing.
 */
export type ValueEffect =
  | { readonly kind: 'restrict'; readonly all: boolean }
  | { readonly kind: 'exclude'; readonly all: boolean }
  | { readonly kind: 'bound'; readonly side: 'upper' | 'lower'; readonly inclusive: boolean }
  | { readonly kind: 'none' };

export interface OperatorInfo {
  readonly operator: Operator;
  readonly positive: PositiveOperator;
  readonly negated: boolean;
  /** The operator that holds exactly when this one does not. */
  readonly negation: Operator;
  /** Symbol spellings the lexer reads as this operator (ASCII first, then Unicode). */
  readonly symbols: readonly string[];
  /** The word spelling the parser reads (`contains`, `not in`), if any. */
  readonly word?: string;
  readonly types: ReadonlySet<TypeClass>;
  readonly effect: ValueEffect;
  /** Feedback: `time earlier than 19:00`, `tags with an element matching /x/`. */
  readonly phrase: {
    readonly plain: string;
    readonly temporal?: string;
    readonly list?: string;
  };
}

const textLike: readonly TypeClass[] = ['text', 'list<text>'];
const everyType: readonly TypeClass[] = [
  'text',
  'ordered',
  'boolean',
  'enum',
  'list<text>',
  'list',
];
const memberTypes: readonly TypeClass[] = ['text', 'ordered', 'enum', 'list<text>', 'list'];

function entry(
  operator: Operator,
  positive: PositiveOperator,
  negation: Operator,
  rest: Omit<OperatorInfo, 'operator' | 'positive' | 'negated' | 'negation' | 'types'> & {
    readonly types: readonly TypeClass[];
  },
): OperatorInfo {
  return {
    operator,
    positive,
    negated: operator !== positive,
    negation,
    ...rest,
    types: new Set(rest.types),
  };
}

export const operatorTable: Readonly<Record<Operator, OperatorInfo>> = {
  '=': entry('=', '=', '!=', {
    symbols: ['=', '=='],
    types: everyType,
    effect: { kind: 'restrict', all: false },
    phrase: { plain: 'equal to' },
  }),
  '!=': entry('!=', '=', '=', {
    symbols: ['!=', '≠', '<>'],
    types: everyType,
    effect: { kind: 'exclude', all: false },
    phrase: { plain: 'not equal to' },
  }),
  '~': entry('~', '~', '!~', {
    symbols: ['~', '≃', '≈'],
    types: textLike,
    effect: { kind: 'none' },
    phrase: { plain: 'similar to', list: 'with an element similar to' },
  }),
  '!~': entry('!~', '~', '~', {
    symbols: ['!~'],
    types: textLike,
    effect: { kind: 'none' },
    phrase: { plain: 'not similar to', list: 'with no element similar to' },
  }),
  '<': entry('<', '<', '>=', {
    symbols: ['<'],
    types: ['ordered'],
    effect: { kind: 'bound', side: 'upper', inclusive: false },
    phrase: { plain: 'less than', temporal: 'earlier than' },
  }),
  '<=': entry('<=', '<=', '>', {
    symbols: ['<=', '≤'],
    types: ['ordered'],
    effect: { kind: 'bound', side: 'upper', inclusive: true },
    phrase: { plain: 'at most', temporal: 'no later than' },
  }),
  '>': entry('>', '>', '<=', {
    symbols: ['>'],
    types: ['ordered'],
    effect: { kind: 'bound', side: 'lower', inclusive: false },
    phrase: { plain: 'greater than', temporal: 'later than' },
  }),
  '>=': entry('>=', '>=', '<', {
    symbols: ['>=', '≥'],
    types: ['ordered'],
    effect: { kind: 'bound', side: 'lower', inclusive: true },
    phrase: { plain: 'at least', temporal: 'no earlier than' },
  }),
  in: entry('in', 'in', 'not in', {
    symbols: ['∈', '⊆'],
    word: 'in',
    types: memberTypes,
    effect: { kind: 'restrict', all: true },
    phrase: { plain: 'one of', list: 'within' },
  }),
  'not in': entry('not in', 'in', 'in', {
    symbols: ['∉', '⊄', '⊈'],
    word: 'not in',
    types: memberTypes,
    effect: { kind: 'exclude', all: true },
    phrase: { plain: 'none of', list: 'not within' },
  }),
  contains: entry('contains', 'contains', 'not contains', {
    symbols: [],
    word: 'contains',
    types: ['text', 'list<text>', 'list'],
    effect: { kind: 'none' },
    phrase: { plain: 'containing' },
  }),
  'not contains': entry('not contains', 'contains', 'contains', {
    symbols: [],
    word: 'not contains',
    types: ['text', 'list<text>', 'list'],
    effect: { kind: 'none' },
    phrase: { plain: 'not containing' },
  }),
  matches: entry('matches', 'matches', 'not matches', {
    symbols: [],
    word: 'matches',
    types: textLike,
    effect: { kind: 'none' },
    phrase: { plain: 'matching', list: 'with an element matching' },
  }),
  'not matches': entry('not matches', 'matches', 'matches', {
    symbols: [],
    word: 'not matches',
    types: textLike,
    effect: { kind: 'none' },
    phrase: { plain: 'not matching', list: 'with no element matching' },
  }),
};

/** The positive form of every operator and whether it is negated. */
export const operatorPolarity: Readonly<
  Record<Operator, { readonly positive: PositiveOperator; readonly negated: boolean }>
> = operatorTable;

export function negateOperator(operator: Operator): Operator {
  return operatorTable[operator].negation;
}

export function typeClass(type: VariableType): TypeClass {
  switch (type.kind) {
    case 'number':
    case 'date':
    case 'time':
    case 'datetime':
      return 'ordered';
    case 'list':
      return type.element === 'text' ? 'list<text>' : 'list';
    default:
      return type.kind;
  }
}

/** Operators defined for each kind of variable type (LANGUAGE.md §5.1), in table order. */
export function allowedOperators(type: VariableType): readonly Operator[] {
  const kind = typeClass(type);
  return operators.filter((operator) => operatorTable[operator].types.has(kind));
}

/** `earlier than`, `with an element matching`: how feedback says an operator. */
export function operatorPhrase(operator: Operator, type: VariableType): string {
  const phrase = operatorTable[operator].phrase;
  if (type.kind === 'list') return phrase.list ?? phrase.plain;
  if (temporalKinds.has(type.kind)) return phrase.temporal ?? phrase.plain;
  return phrase.plain;
}

/** Symbol spellings → operator, for the lexer (`≤` → `<=`). */
export const operatorSymbols: ReadonlyMap<string, Operator> = new Map(
  operators.flatMap((operator) =>
    operatorTable[operator].symbols.map((symbol) => [symbol, operator] as const),
  ),
);

/** Word spellings → operator, for the parser (`contains`, `not in`). */
export const operatorWords: ReadonlyMap<string, Operator> = new Map(
  operators.flatMap((operator) => {
    const word = operatorTable[operator].word;
    return word === undefined ? [] : [[word, operator] as const];
  }),
);

export function isOperator(text: string): text is Operator {
  return Object.hasOwn(operatorTable, text);
}
