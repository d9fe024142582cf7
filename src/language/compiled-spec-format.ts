import { IntentguardError } from '../support/errors.js';
import { comparisonOperators, subjectFunctions } from './ast.js';
import { answerPredicate } from './checker/spec.js';
import { Decimal, readNumber } from './decimal.js';
import { operators } from './operators.js';
import type { RegexCompilation } from './regex.js';

/**
 * A compiled spec (FORMATS.md §8): a checked spec and its schema as versioned JSON data,
 * so that a page or a service can enforce a spec without the lexer, parser, checker and
 * diagnostics. `writeCompiledSpec` (compile-spec.ts) produces it; `readCompiledSpec`
 * reads it back into the `Spec` the checker would have produced.
 *
 * Both directions follow one table of shapes, so a field the table does not know is an
 * error when writing (a spec that cannot be shipped faithfully is not shipped) and when
 * reading (a document is never half understood). Reading treats the document as
 * untrusted: every value is checked against its shape before it is used, only own
 * properties are read, objects are built from the table's keys (so `__proto__` in a
 * document is an unknown key, never a prototype), and sizes and depth are bounded.
 */

export const compiledSpecFormat = 'intentguard/compiled-spec';
/** 2: without the syntax tree (version 1 carried it). */
export const compiledSpecVersion = 2;

/**
 * A field's shape: a primitive (`str`, `bool`, `int`, `num` — a language number,
 * `range` — `[start, end]` offsets into the source, `pred` — a predicate by name,
 * `var` — `[predicate, index]`, `regex` — `[pattern, flags]`), or
 * the name of an entry of `shapes`; `?` in front makes it optional, `[]` after a list;
 * `-` a field of the checked spec that is not shipped (left out when writing, refused when
 * reading).
 */
type FieldShape = string;
type ObjectShape = Readonly<Record<string, FieldShape>>;
/** An object (fields), a union by its `kind` (fields per kind), or a set of strings. */
type Shape =
  | { readonly fields: ObjectShape }
  | { readonly kinds: Readonly<Record<string, ObjectShape>> }
  | { readonly oneOf: readonly string[] };

const scalarKinds = ['text', 'number', 'boolean', 'date', 'time', 'datetime'] as const;
const noFields: ObjectShape = {};
/**
 * The checked spec and its schema, field by field (checker/spec.ts, schema-model.ts). The
 * syntax nodes are not shipped (`-`): the engine does not read them (checker/spec.ts).
 */
export const shapes: Readonly<Record<string, Shape>> = {
  // Schema
  schemaDocument: { fields: { id: 'str', predicates: 'predicate[]' } },
  predicate: {
    fields: {
      name: 'str',
      kind: 'predicateKind',
      description: 'str',
      variables: 'variable[]',
      keys: 'str[]',
      critical: 'bool',
      resultPredicate: '?str',
      resultOf: '?str',
      sourceName: '?str',
      observed: '?bool',
      source: '?predicateSource',
    },
  },
  predicateSource: { oneOf: ['user'] },
  predicateKind: { oneOf: ['state', 'action'] },
  variable: {
    fields: {
      name: 'str',
      type: 'variableType',
      description: '?str',
      required: '?bool',
      jsonText: '?bool',
      observed: '?bool',
      setting: '?bool',
      sourcePath: '?str[]',
      record: '?recordShape',
      argument: '?str',
    },
  },
  recordShape: { fields: { fields: 'variable[]', open: '?bool' } },
  variableType: {
    kinds: {
      ...Object.fromEntries(scalarKinds.map((kind) => [kind, noFields])),
      enum: { values: 'str[]' },
      list: { element: 'listElement' },
    },
  },
  listElement: { oneOf: ['text', 'number'] },
  // Checked spec
  rule: {
    fields: {
      id: 'str',
      index: 'int',
      node: '-',
      head: 'str',
      isDone: 'bool',
      confirm: '?confirm',
      repeat: '?repeat',
      alternative: '?alternative',
      states: 'pattern[]',
      negations: '?pattern[]',
      action: '?pattern',
      objectives: 'objectiveCondition[]',
      scopes: '?scope[]',
      comparisons: '?comparison[]',
    },
  },
  comparison: {
    fields: {
      left: 'computed',
      operator: 'comparisonOperator',
      right: 'computed',
      kind: '?str',
      text: 'str',
      range: 'range',
    },
  },
  // `not (A & B)`, `forall(A => B)` (LANGUAGE.md §9; checker/spec.ts `CheckedScope`).
  scope: {
    fields: {
      states: 'pattern[]',
      comparisons: '?comparison[]',
      scopes: '?scope[]',
      universal: '?bool',
      range: 'range',
    },
  },
  confirm: { fields: { category: '?confirmCategory', message: '?str' } },
  confirmCategory: { oneOf: ['safety', 'security', 'privacy', 'ethics', 'financial'] },
  repeat: { fields: { limit: '?int', per: '?var' } },
  alternative: { fields: { suffix: 'str', body: '-' } },
  pattern: {
    fields: { predicate: 'pred', constraints: 'constraint[]', absent: '?var[]', range: 'range' },
  },
  constraint: {
    fields: {
      variable: 'var',
      operator: 'operator',
      value: 'literal',
      node: '-',
      access: '?access',
      binding: '?binding',
    },
  },
  operator: { oneOf: operators },
  comparisonOperator: { oneOf: comparisonOperators },
  binding: {
    fields: {
      name: 'str',
      binds: 'bool',
      each: 'bool',
      kind: '?str',
      arithmetic: '?computed',
      text: 'str',
    },
  },
  computed: {
    kinds: {
      binding: { name: 'str' },
      number: { value: 'num' },
      duration: { seconds: 'num' },
      operation: { operator: 'arithmeticOperator', left: 'computed', right: 'computed' },
      clock: { word: 'relativeDate', as: 'temporalKind' },
      extremum: { function: 'extremumFunction', left: 'computed', right: 'computed' },
    },
  },
  extremumFunction: { oneOf: ['min', 'max'] },
  arithmeticOperator: { oneOf: ['+', '-', '*', '/'] },
  access: {
    fields: {
      steps: 'step[]',
      function: '?subjectFunction',
      matches: '?regex',
      compared: 'variableType',
      text: 'str',
      joins: '?bool',
      exists: '?bool',
      coercion: '?coercion',
    },
  },
  step: {
    kinds: {
      field: { name: 'str' },
      filter: { constraints: 'constraint[]', joins: '?bool' },
      index: { position: 'int' },
      values: {},
      keys: {},
    },
  },
  subjectFunction: { oneOf: subjectFunctions },
  literal: {
    kinds: {
      text: { value: 'str' },
      number: { value: 'num' },
      boolean: { value: 'bool' },
      date: { value: 'int' },
      time: { value: 'int' },
      datetime: { value: 'int' },
      relative: { value: 'relativeDate', as: 'temporalKind', offset: '?int' },
      enum: { value: 'str' },
      list: { elements: 'literal[]' },
      regex: { regex: 'regex', pattern: 'str', flags: 'str' },
    },
  },
  relativeDate: { oneOf: ['today', 'tomorrow', 'yesterday', 'now'] },
  temporalKind: { oneOf: ['date', 'time', 'datetime'] },
  objectiveCondition: {
    fields: {
      name: 'str',
      operator: 'comparisonOperator',
      count: 'int',
      negated: '?bool',
      range: 'range',
    },
  },
  guard: {
    fields: {
      index: 'int',
      node: '-',
      mode: 'guardMode',
      pattern: 'pattern',
      comparisons: '?comparison[]',
      reason: '?str',
    },
  },
  guardMode: { oneOf: ['reject', 'confirm'] },
  coercion: { oneOf: ['number', 'date', 'time', 'datetime', 'boolean'] },
};

/** The compiled spec as JSON data. */
export interface CompiledSpecDocument {
  readonly format: typeof compiledSpecFormat;
  readonly version: typeof compiledSpecVersion;
  /** The spec text: feedback and `explain` quote it; ranges point into it. */
  readonly source: string;
  readonly schema: { readonly id: string; readonly predicates: readonly unknown[] };
  readonly rules: readonly unknown[];
  readonly guards: readonly unknown[];
  /**
   * The intent's `given` facts (LANGUAGE.md §8), each as the pattern `P(x = v, …)` it is
   * written as; absent when it states none.
   */
  readonly givens?: readonly unknown[];
  /**
   * The operator's policy composed with the spec (`intentguard compile --policy`): its
   * text, rules and guards, over the document's one schema. A reader enforces it with the
   * spec or refuses the document, never runs the spec without it.
   */
  readonly policy?: CompiledPolicyPart;
}

/** The policy part of a compiled composition: ranges point into its own `source`. */
export interface CompiledPolicyPart {
  readonly source: string;
  readonly rules: readonly unknown[];
  readonly guards: readonly unknown[];
}

/** The top level of a document, beyond `format` and `version`. */
export const documentFields: ObjectShape = {
  source: 'str',
  schema: 'schemaDocument',
  rules: 'rule[]',
  guards: 'guard[]',
};

/** Limits of what a document may hold: a spec the checker accepts stays far below them. */
export const documentLimits = {
  /** Characters of the spec text, and of any one string. */
  maxStringLength: 4_000_000,
  /** Elements of any one list. */
  maxListLength: 100_000,
  /** Values in the whole document. */
  maxValues: 5_000_000,
  /** Nesting of objects and lists. */
  maxDepth: 200,
} as const;

/** Where a document is wrong (a JSONPath such as `$.rules[0].states[1].predicate`) and how. */
export class CompiledSpecError extends IntentguardError {
  static override readonly marker = 'intentguard.error.CompiledSpecError';
  readonly path: string;
  constructor(path: string, problem: string) {
    super({ code: 'invalid-compiled-spec', message: `compiled spec: ${path}: ${problem}` });
    this.name = 'CompiledSpecError';
    this.path = path;
  }
}

/** Compiles a regex of the document: the linear-time engine, loaded by whoever reads it. */
export type RegexCompiler = (pattern: string, flags: string) => RegexCompilation;

export function isDecimalText(value: unknown): value is { readonly $decimal: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    Object.hasOwn(value, '$decimal') &&
    typeof (value as { $decimal: unknown }).$decimal === 'string'
  );
}

/** A number of the language from its document form: a JSON number, or `{ "$decimal": text }`. */
export function readNumberValue(value: unknown): number | Decimal | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (!isDecimalText(value)) return undefined;
  const reading = readNumber(value.$decimal);
  // Only a number a double cannot hold is written as a decimal: anything else is not
  // what a writer produces.
  return reading.ok && reading.value instanceof Decimal ? reading.value : undefined;
}

export { answerPredicate };
