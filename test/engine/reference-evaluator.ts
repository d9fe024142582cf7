import { RE2JS } from 're2js';
import { caseFold } from 'unicode-case-folding';
import type {
  CheckedComparison,
  CheckedConstraint,
  CheckedPattern,
  CheckedRule,
  CheckedScope,
  CheckedStep,
  Literal,
  PredicateDeclaration,
  Spec,
  VariableDeclaration,
  VariableType,
} from '../../src/language/index.js';
import { confusablePrototypes } from '../../src/language/unicode/confusables.js';
import { confusablesFrom } from '../../src/language/unicode/skeleton.js';
import { Fraction } from './reference-decimal.js';

const confusables = confusablesFrom(confusablePrototypes);
const confusableSkeletons = (text: string, keepEdges?: boolean) =>
  confusables.skeletons(text, keepEdges);

/**
 * A deliberately naive evaluator of LANGUAGE.md §5–6, written from the document for the
 * differential test. It reads the checked `Spec` as the checker produced it (rules,
 * guards, typed literals) and nothing from the engine: plain objects for state, full
 * rescans of every rule on every question, a deep copy of the state for each tentative
 * check, no indexes and no compiled closures. It is slow on purpose and only as clever
 * as the document.
 *
 * Proposal reading covers the canonical JSON forms of FORMATS.md §2 that the
 * differential generator produces (numbers as JSON numbers or plain decimal strings,
 * ISO dates and times, `today`/`tomorrow`/`yesterday`/`now`, enum members in any case).
 */

/** Numbers are exact fractions; dates count days, times and date-times seconds. */
type Scalar = string | number | boolean | Fraction;
/**
 * A `json` or `list<json>` variable's value (LANGUAGE.md §7): the JSON data as the tool
 * returned it (a `list<json>` holds the array), walked by paths at evaluation time.
 */
interface JsonBox {
  readonly json: unknown;
}
type RefValue = Scalar | readonly Scalar[] | JsonBox;

function isJsonBox(value: unknown): value is JsonBox {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'json' in value;
}

/** JSON text with object keys in order: how a json value is compared whole (§7). */
function canonical(data: unknown): string {
  if (Array.isArray(data)) return `[${data.map(canonical).join(',')}]`;
  if (typeof data === 'object' && data !== null)
    return `{${Object.keys(data)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical((data as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(data);
}
/** variable name → value; a missing name is unobserved. */
type Instance = Record<string, RefValue>;
/** predicate name → instance key → instance. */
type State = Record<string, Record<string, Instance>>;

export interface ReferenceOptions {
  /** Wall-clock `YYYY-MM-DDTHH:MM` of the session. */
  readonly now: string;
  readonly similarity: (left: string, right: string) => number;
  readonly threshold: number;
  readonly escalateAfter: number;
  readonly unplannedCritical: 'revise' | 'confirm';
  /**
   * The operator's policy (LANGUAGE.md §8). Its objectives and rule labels must differ from
   * the intent's: both sides' counts are kept in one record here, by name.
   */
  readonly policy?: Spec;
}

/** LANGUAGE.md §8: reject > revise (hard) > revise (soft) > confirm > allow. */
function strictness(verdict: { readonly decision: string; readonly severity?: string }): number {
  if (verdict.decision === 'reject') return 4;
  if (verdict.decision === 'revise') return verdict.severity === 'soft' ? 2 : 3;
  return verdict.decision === 'confirm' ? 1 : 0;
}

/** What the differential test compares for a proposal. */
export interface ReferenceVerdict {
  readonly decision: 'allow' | 'confirm' | 'revise' | 'reject';
  readonly severity?: 'soft' | 'hard';
  /** The code of the deciding (first) reason. */
  readonly code?: string;
  readonly performs: readonly string[];
  readonly achieved: Readonly<Record<string, number>>;
  readonly done: boolean;
}

export interface ReferenceStatus {
  readonly done: boolean;
  readonly finished: boolean;
  readonly achieved: Readonly<Record<string, number>>;
  readonly pending: boolean;
}

interface Update {
  readonly predicate: PredicateDeclaration;
  readonly remove: boolean;
  readonly key: string;
  /** Given variables; `null` clears one. */
  readonly values: Readonly<Record<string, RefValue | null>>;
}

interface Action {
  readonly predicate: PredicateDeclaration;
  readonly args: Instance;
  /** §7 absent(arg): the optional list arguments not given (or null), read as []. */
  readonly omitted: ReadonlySet<string>;
}

interface Proposal {
  readonly action?: Action;
  readonly updates: readonly Update[];
  readonly objective?: string;
  readonly finish: boolean;
  /** §7: the final answer a finish carries. */
  readonly answer?: string;
  /** §7: a question to the user, which ends the session. */
  readonly ask?: string;
}

interface Plan {
  readonly updates: readonly Update[];
  readonly rules: readonly CheckedRule[];
  readonly finish: boolean;
  /** The action, for `@repeat(per: arg)` budgets (LANGUAGE.md §7). */
  readonly action?: Action | undefined;
  readonly escalated?: string;
  /** The proposal and the number of observations when approval was asked (§6: re-check at resolve). */
  readonly proposal?: Proposal;
  readonly observations?: number;
}

class Invalid extends Error {}

/**
 * One value a binding's subject has (LANGUAGE.md §7): `typed` when it comes from a
 * declared scalar or list variable (or is a count or length), else raw JSON data that
 * is read by what it holds when compared.
 */
interface Subject {
  readonly typed: boolean;
  readonly data: unknown;
  /** A json datum of a record's field: read by the field's declared type (§7 records). */
  readonly field?: Exclude<VariableType, { kind: 'list' }>;
}

/** The scalar type a path's values are read as: a list's element type. */
function scalarType(type: VariableType): Exclude<VariableType, { kind: 'list' }> {
  return type.kind === 'list' ? { kind: type.element } : type;
}

/** binding name → the value assigned to it. */
type Assignment = Readonly<Record<string, Subject>>;

const noBindings: Assignment = {};

/**
 * How often rules and guards with bindings were judged, so the differential test can
 * show that random traces made them both hold and fail.
 */
export const referenceCoverage = {
  /** A rule with bindings fired / did not, with some value to bind. */
  boundFired: 0,
  boundFailed: 0,
  /** A guard with bindings was judged on offered values / fired on a binder with none. */
  guardBound: 0,
  guardUnbound: 0,
};

const missing: unique symbol = Symbol('missing');
/**
 * Inside `not` (E2, E9): a filter met an element only the deny-list reading keeps (or, on
 * a record, one that does not fit): the constraint counts as matching.
 */
const undecided: unique symbol = Symbol('undecided');
/** A bound value that could not be read (§9, a scope at odd depth): it fits no type. */
const unknownValue: Subject = { typed: false, data: undefined };
const negatedOperators = new Set(['!=', '!~', 'not in', 'not contains', 'not matches']);

// ---- values ---------------------------------------------------------------------------

/** NFKC_Casefold of §5.1, step by step, without trimming: invisible characters out, then folding until stable. */
function fold(text: string): string {
  const visible = (input: string) =>
    input
      .replace(/[\t\n\v\f\r\x85]/g, ' ')
      .replace(/[\p{Default_Ignorable_Code_Point}\p{Cc}]/gu, '');
  let folded = visible(text).normalize('NFKC');
  for (let round = 0; round < 10; round++) {
    const next = visible(caseFold(folded).normalize('NFKC'));
    if (next === folded) break;
    folded = next;
  }
  return folded.replace(/\s+/g, ' ');
}

/** §5.1: what every text operator sees. */
function normalize(text: string): string {
  return fold(text).trim();
}

/**
 * The deny-list reading (docs/language.md "Guards err toward firing"): the items of a
 * text a tool might read as separate values — never its words.
 */
function partsOf(key: string): string[] {
  const stripDots = (part: string) => part.replace(/\.+$/, '');
  const items = key.split(/[,;<>"'`()[\]{}]/).map((item) => stripDots(item.trim()));
  return [...new Set(items)].filter((part) => part !== '' && part !== key);
}

/** A phone-like text (`tel:`, `+`, digits and `-` `.` `/` `(` `)` spaces; 7–15 digits): its digits. */
function phoneOf(key: string): string | undefined {
  if (!/^(tel:)?\+?[0-9 ()./-]+$/.test(key)) return undefined;
  const digits = key.replace(/[^0-9]/g, '');
  return digits.length >= 7 && digits.length <= 15 ? digits : undefined;
}

/** Whether a regex has `^`, `$`, `\A` or `\z` outside a character class. */
function anchored(pattern: string): boolean {
  const bare = pattern.replace(/\\[^Az]/g, '').replace(/\[\^?\]?(?:\\.|[^\]])*\]/g, '');
  return /[\^$]|\\[Az]/.test(bare);
}

/**
 * Every reading of a text under the deny-list reading, tagged: normalized whole and
 * parts, phone digits of those, and the confusable skeletons with their parts.
 */
function readingsOf(text: string): Set<string> {
  const key = normalize(text);
  const keys = [key, ...partsOf(key)];
  const readings = new Set(keys.map((item) => `k${item}`));
  for (const item of keys) {
    const phone = phoneOf(item);
    if (phone !== undefined) readings.add(`p${phone}`);
  }
  const { cased, folded } = confusableSkeletons(text);
  for (const item of [cased, ...partsOf(cased)]) readings.add(`c${item}`);
  for (const item of [folded, ...partsOf(folded)]) readings.add(`f${item}`);
  return readings;
}

function regexMatches(literal: Literal, text: string): boolean {
  return literal.kind === 'regex' && regexTest(literal, text);
}

function regexTest(regex: { readonly pattern: string; readonly flags: string }, text: string) {
  let flags = RE2JS.CASE_INSENSITIVE;
  if (regex.flags.includes('m')) flags |= RE2JS.MULTILINE;
  if (regex.flags.includes('s')) flags |= RE2JS.DOTALL;
  return RE2JS.compile(regex.pattern, flags).test(normalize(text));
}

/**
 * `count(list)`, or `count(list matches /re/)`: the elements the regex matches — a json
 * element that is not text as its canonical JSON text, the way a json value compared
 * whole is read (§7).
 */
function countOf(constraint: CheckedConstraint, list: readonly unknown[]): Fraction {
  const regex = constraint.node?.subject?.matches;
  const counted =
    regex === undefined
      ? list
      : list.filter((element) =>
          regexTest(regex, typeof element === 'string' ? element : canonical(element)),
        );
  return Fraction.of(BigInt(counted.length));
}

/**
 * `len(text)`: the characters (code points) of the text as given, before normalization —
 * what a tool receiving it counts. The documents do not say; this is the engine's reading.
 */
/**
 * §9: `sum` adds the numbers of a list (0 for none); `min`/`max` pick the least/greatest.
 * A list with an element that is not a number, and `min`/`max` of no elements, have no
 * value (undefined: the constraint does not fit).
 */
function aggregateOf(fn: 'sum' | 'min' | 'max', list: readonly unknown[]): Fraction | undefined {
  const numbers: Fraction[] = [];
  for (const element of list) {
    // A typed list holds exact numbers already; json holds JSON numbers.
    if (element instanceof Fraction) numbers.push(element);
    else if (typeof element === 'number' && Number.isFinite(element))
      numbers.push(Fraction.fromNumber(element));
    else return undefined;
  }
  if (fn === 'sum') return numbers.reduce((total, next) => total.plus(next), Fraction.of(0n));
  const sign = fn === 'max' ? 1 : -1;
  let best: Fraction | undefined;
  for (const next of numbers) if (best === undefined || next.compare(best) * sign > 0) best = next;
  return best;
}

function lengthOf(text: string): Fraction {
  return Fraction.of(BigInt([...text].length));
}

function dayNumber(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (
    date.getUTCFullYear() !== year ||
    date.getUTCMonth() !== month - 1 ||
    date.getUTCDate() !== day
  )
    return undefined;
  return date.getTime() / 86_400_000;
}

function secondsOfDay(text: string): number | undefined {
  const match = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text);
  if (!match) return undefined;
  const [hours, minutes, seconds] = [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)];
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return hours * 3600 + minutes * 60 + seconds;
}

interface Clock {
  readonly today: number;
  readonly time: number;
}

function readScalar(
  input: unknown,
  type: Exclude<VariableType, { kind: 'list' }>,
  clock: Clock,
): Scalar {
  const relative: Record<string, number> = { yesterday: -1, today: 0, tomorrow: 1 };
  switch (type.kind) {
    case 'text':
      if (typeof input === 'string') return input;
      if (typeof input === 'number' || typeof input === 'boolean') return String(input);
      if (typeof input === 'object' && input !== null) return JSON.stringify(input);
      throw new Invalid('not text');
    case 'number':
      if (typeof input === 'number' && Number.isFinite(input)) return Fraction.fromNumber(input);
      if (typeof input === 'string' && /^-?\d+(\.\d+)?$/.test(input.trim()))
        return Fraction.read(input.trim()) as Fraction;
      throw new Invalid('not a number');
    case 'boolean':
      if (typeof input === 'boolean') return input;
      if (typeof input === 'string' && ['true', 'false'].includes(input.trim().toLowerCase())) {
        return input.trim().toLowerCase() === 'true';
      }
      throw new Invalid('not a boolean');
    case 'enum': {
      if (typeof input !== 'string') throw new Invalid('not a member');
      const member =
        type.values.find((candidate) => candidate === input) ??
        type.values.find((candidate) => normalize(candidate) === normalize(input));
      if (member === undefined) throw new Invalid('not a member');
      return member;
    }
    case 'date': {
      if (typeof input !== 'string') throw new Invalid('not a date');
      const offset = relative[input.trim().toLowerCase()];
      if (offset !== undefined) return clock.today + offset;
      const day = dayNumber(input.trim());
      if (day === undefined) throw new Invalid('not a date');
      return day;
    }
    case 'time': {
      if (typeof input !== 'string') throw new Invalid('not a time');
      if (input.trim().toLowerCase() === 'now') return clock.time;
      const seconds = secondsOfDay(input.trim());
      if (seconds === undefined) throw new Invalid('not a time');
      return seconds;
    }
    case 'datetime': {
      if (typeof input !== 'string') throw new Invalid('not a date-time');
      const text = input.trim();
      if (text.toLowerCase() === 'now') return clock.today * 86_400 + clock.time;
      const offset = relative[text.toLowerCase()];
      if (offset !== undefined) return (clock.today + offset) * 86_400;
      const [datePart = '', timePart] = text.split('T');
      const day = dayNumber(datePart);
      const seconds = timePart === undefined ? 0 : secondsOfDay(timePart);
      if (day === undefined || seconds === undefined) throw new Invalid('not a date-time');
      return day * 86_400 + seconds;
    }
  }
}

function readValue(input: unknown, type: VariableType, clock: Clock, json: boolean): RefValue {
  // FORMATS.md §2: a list takes an array; a single value is not taken as a list of one.
  if (type.kind === 'list' && !Array.isArray(input)) throw new Invalid('not a list');
  if (json) {
    if (type.kind !== 'list') return { json: input };
    const elements = input as unknown[];
    if (elements.some((element) => element === null)) throw new Invalid('a null element');
    return { json: elements };
  }
  if (type.kind !== 'list') return readScalar(input, type, clock);
  return (input as unknown[]).map((element) => readScalar(element, { kind: type.element }, clock));
}

/**
 * Why a value does not fit a record (`record{...}`, `list<record{...}>`; docs/language.md
 * "Records"): not an object, an undeclared field (of an open object: only one whose name
 * reads like a declared field's), a required field missing, or a field that does not read
 * as its type (objects and arrays are never text).
 */
function recordProblem(
  value: unknown,
  variable: VariableDeclaration,
  clock: Clock,
): string | undefined {
  const fields = variable.record?.fields ?? [];
  const one = (item: unknown): string | undefined => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return 'not an object';
    const fold = (name: string) =>
      name
        .normalize('NFKC')
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]/gu, '');
    for (const key of Object.keys(item)) {
      if (fields.some((field) => field.name === key)) continue;
      if (variable.record?.open !== true) return `no field ${key}`;
      if (fields.some((field) => fold(field.name) === fold(key)))
        return `${key} reads like a field`;
    }
    for (const field of fields) {
      const given = Object.hasOwn(item, field.name)
        ? (item as Record<string, unknown>)[field.name]
        : undefined;
      if (given === undefined || given === null) {
        if (field.required === true) return `${field.name} is required`;
        continue;
      }
      if (field.type.kind === 'list') throw new Error('list fields are not modelled');
      if (typeof given === 'object') return `${field.name} is not a ${field.type.kind}`;
      try {
        readScalar(given, field.type, clock);
      } catch {
        return `${field.name} is not a ${field.type.kind}`;
      }
    }
    return undefined;
  };
  if (variable.type.kind !== 'list') return one(value);
  if (!Array.isArray(value)) return 'not a list of objects';
  for (const item of value) {
    const problem = one(item);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The same value, as `=` sees it. */
/**
 * E3: a tool result is keyed by its call's arguments exactly as given — text by its
 * characters, not its normalized form: keys identify calls.
 */
function callIdentity(value: RefValue | null | undefined): string {
  if (typeof value === 'string') return `r:${value}`;
  if (Array.isArray(value)) return `[${value.map((element) => callIdentity(element)).join(',')}]`;
  return identity(value);
}

/**
 * `k=json, …` as a shown `Name(…)` call writes its arguments (§7), or undefined when the
 * text does not read as that: each value is the shortest JSON text that parses and is
 * followed by the end or by `, k=`.
 */
function keywordArguments(text: string): Record<string, unknown> | undefined {
  const args: Record<string, unknown> = {};
  let rest = text.trim();
  while (rest !== '') {
    const key = /^(\w+)=/.exec(rest);
    if (!key) return undefined;
    rest = rest.slice(key[0].length);
    let read = false;
    for (let end = 1; end <= rest.length && !read; end++) {
      const after = rest.slice(end);
      if (after !== '' && !/^, \w+=/.test(after)) continue;
      try {
        args[key[1]!] = JSON.parse(rest.slice(0, end));
      } catch {
        continue;
      }
      rest = after.replace(/^, /, '');
      read = true;
    }
    if (!read) return undefined;
  }
  return args;
}

/**
 * Whether a pattern anywhere in the spec (a rule's states, its `not P(…)`, its scopes at
 * any depth, a guard) constrains `predicate.variable`: such a setting is the spec's to
 * judge, not a frame condition (LANGUAGE.md §9).
 */
function constrainsSetting(spec: Spec, predicate: string, variable: string): boolean {
  const inPattern = (pattern: CheckedPattern) =>
    pattern.predicate.name === predicate &&
    pattern.constraints.some((constraint) => constraint.variable.name === variable);
  const inScope = (scope: CheckedScope): boolean =>
    scope.states.some(inPattern) || (scope.scopes ?? []).some(inScope);
  return (
    spec.rules.some(
      (rule) =>
        rule.states.some(inPattern) ||
        (rule.negations ?? []).some(inPattern) ||
        (rule.scopes ?? []).some(inScope),
    ) || spec.guards.some((guard) => inPattern(guard.pattern))
  );
}

function identity(value: RefValue | null | undefined): string {
  if (value === undefined || value === null) return 'unset';
  if (isJsonBox(value)) return `j:${canonical(value.json)}`;
  if (Array.isArray(value)) return `[${value.map((element) => identity(element)).join(',')}]`;
  if (value instanceof Fraction) return `n:${value.toString()}`;
  return typeof value === 'string' ? `s:${normalize(value)}` : `${typeof value}:${String(value)}`;
}

// ---- constraints ----------------------------------------------------------------------

function literalScalar(literal: Literal, clock: Clock): Scalar {
  switch (literal.kind) {
    case 'number': {
      // A plain number or an exact decimal, read from the decimal text it denotes.
      const exact = Fraction.read(String(literal.value));
      if (exact === undefined) throw new Error(`not a decimal: ${String(literal.value)}`);
      return exact;
    }
    case 'text':
    case 'enum':
    case 'boolean':
    case 'date':
    case 'time':
    case 'datetime':
      return literal.value;
    case 'relative': {
      const days = { yesterday: -1, today: 0, tomorrow: 1, now: 0 }[literal.value];
      if (literal.as === 'date') return clock.today + days;
      if (literal.as === 'time') return clock.time;
      if (literal.value === 'now') return clock.today * 86_400 + clock.time;
      return (clock.today + days) * 86_400;
    }
    default:
      throw new Error(`a ${literal.kind} literal is not a scalar`);
  }
}

/** §7: the rule as written — an alternative's id without its letter — whose @repeat budget it spends. */
function sourceRule(rule: CheckedRule): string {
  const suffix = rule.alternative?.suffix ?? '';
  return suffix !== '' && rule.id.endsWith(suffix) ? rule.id.slice(0, -suffix.length) : rule.id;
}

/** §5.1: an action's absent list argument is the empty list; anything else absent is unobserved. */
function argumentValue(
  pattern: CheckedPattern,
  constraint: CheckedConstraint,
  instance: Instance,
): RefValue | undefined {
  const value = instance[constraint.variable.name];
  if (value !== undefined) return value;
  return pattern.predicate.kind === 'action' && constraint.variable.type.kind === 'list'
    ? []
    : undefined;
}

function sameScalar(value: Scalar, other: Scalar): boolean {
  if (typeof value === 'string' && typeof other === 'string')
    return normalize(value) === normalize(other);
  if (value instanceof Fraction && other instanceof Fraction) return value.compare(other) === 0;
  return value === other;
}

/** The order of two numbers, dates or times; `undefined` when they are not of one kind. */
function order(value: Scalar, other: Scalar): number | undefined {
  if (value instanceof Fraction && other instanceof Fraction) return value.compare(other);
  if (typeof value === 'number' && typeof other === 'number')
    return value < other ? -1 : value > other ? 1 : 0;
  return undefined;
}

function ordered(operator: string, comparison: number | undefined): boolean {
  if (comparison === undefined) return false;
  switch (operator) {
    case '<':
      return comparison < 0;
    case '<=':
      return comparison <= 0;
    case '>':
      return comparison > 0;
    default:
      return comparison >= 0;
  }
}

export class ReferenceSession {
  readonly #spec: Spec;
  readonly #options: ReferenceOptions;
  readonly #clock: Clock;
  #state: State = {};
  readonly #achieved: Record<string, number> = {};
  /** rule id → how often it was performed. */
  readonly #performed: Record<string, number> = {};
  readonly #performedPer: Record<string, number> = {};
  readonly #softRefused: string[] = [];
  readonly #refusals: Record<string, number> = {};
  #pending: Plan | undefined;
  #finished = false;
  #observations = 0;
  /** The actions committed, in order: what an answer may show (§7 fabricated-action). */
  readonly #calls: Action[] = [];
  /** While an approved proposal is re-checked at resolve: memos are read, never written. */
  #approving = false;
  /** §8: while the intent decides a composed proposal, what it would commit is held here. */
  #holding = false;
  #held: Plan | undefined;

  constructor(spec: Spec, options: ReferenceOptions) {
    this.#spec = spec;
    this.#options = options;
    const [date = '', time = ''] = options.now.split('T');
    this.#clock = { today: dayNumber(date) ?? Number.NaN, time: secondsOfDay(time) ?? Number.NaN };
  }

  // ---- §5.1: constraints and patterns --------------------------------------------------

  #positive(constraint: CheckedConstraint, value: RefValue, operator: string): boolean {
    const literal = constraint.value;
    const isList = constraint.variable.type.kind === 'list';
    const similar = (text: Scalar) =>
      typeof text === 'string' &&
      literal.kind === 'text' &&
      this.#options.similarity(text, literal.value) >= this.#options.threshold;
    const matches = (text: Scalar) => typeof text === 'string' && regexMatches(literal, text);
    switch (operator) {
      case '=': {
        if (isList) {
          if (literal.kind !== 'list' || !Array.isArray(value)) return false;
          const elements = literal.elements.map((element) => literalScalar(element, this.#clock));
          return (
            value.length === elements.length &&
            value.every((element, index) => sameScalar(element, elements[index] as Scalar))
          );
        }
        return sameScalar(value as Scalar, literalScalar(literal, this.#clock));
      }
      case '<':
      case '<=':
      case '>':
      case '>=':
        return ordered(operator, order(value as Scalar, literalScalar(literal, this.#clock)));
      case 'in': {
        const members =
          literal.kind === 'list'
            ? literal.elements.map((element) => literalScalar(element, this.#clock))
            : [];
        const member = (element: Scalar) =>
          members.some((candidate) => sameScalar(element, candidate));
        // A scalar is a member; a list is a subset.
        return isList ? (value as readonly Scalar[]).every(member) : member(value as Scalar);
      }
      case 'contains':
        if (isList)
          return (value as readonly Scalar[]).some((element) =>
            sameScalar(element, literalScalar(literal, this.#clock)),
          );
        return (
          typeof value === 'string' &&
          literal.kind === 'text' &&
          normalize(value).includes(fold(literal.value))
        );
      case 'matches':
        return isList ? (value as readonly Scalar[]).some(matches) : matches(value as Scalar);
      case '~':
        return isList ? (value as readonly Scalar[]).some(similar) : similar(value as Scalar);
      default:
        throw new Error(`unknown operator ${operator}`);
    }
  }

  // ---- §7: paths, filters, projections, count/any/each over JSON data ------------------

  /**
   * A constraint whose left side is more than its variable, on the variable's value:
   * true or false, or `undefined` when the value does not fit (a missing field, not a
   * list where one is needed, a value the literal's type cannot read). Rules read
   * `undefined` as false, guards as true (§7).
   */
  #access(
    constraint: CheckedConstraint,
    value: RefValue,
    assignment?: Assignment,
    deny = false,
  ): boolean | undefined {
    const data: unknown = isJsonBox(value) ? value.json : value;
    return this.#accessOn(constraint, data, assignment, !isJsonBox(value), deny);
  }

  /**
   * `deny`: inside `not P(…)` — the deny-list reading (E2), a filter that cannot tell
   * whether it keeps an element matches (E9), and on a record (`record`, the variable's)
   * a text field holds strings only.
   */
  #accessOn(
    constraint: CheckedConstraint,
    data: unknown,
    assignment?: Assignment,
    typed = false,
    deny = false,
    record = constraint.variable.record !== undefined,
  ): boolean | undefined {
    const access = constraint.access;
    let current: unknown = data;
    for (const step of access?.steps ?? []) {
      current = this.#step(current, step, assignment, typed, record, deny);
      if (current === undecided) return true;
      if (current === missing) return undefined;
    }
    const strictRecord = deny && record;
    switch (access?.function) {
      case undefined:
        return this.#compare(constraint, current, deny, strictRecord);
      case 'count':
        if (!Array.isArray(current)) return undefined;
        return this.#compare(constraint, countOf(constraint, current), deny, strictRecord);
      case 'len':
        if (typeof current !== 'string') return undefined;
        return this.#compare(constraint, lengthOf(current), deny, strictRecord);
      case 'sum':
      case 'min':
      case 'max': {
        if (!Array.isArray(current)) return undefined;
        const total = aggregateOf(access.function, current);
        if (total === undefined) return undefined;
        return this.#compare(constraint, total, deny, strictRecord);
      }
      case 'any':
      case 'each': {
        if (!Array.isArray(current)) return undefined;
        const results = current.map((element) =>
          this.#compare(constraint, element, deny, strictRecord),
        );
        if (access.function === 'any') {
          if (results.includes(true)) return true;
          return results.includes(undefined) ? undefined : false;
        }
        if (results.includes(false)) return false;
        return results.includes(undefined) ? undefined : true;
      }
      default:
        throw new Error(`${String(access?.function)} is not modelled`);
    }
  }

  /**
   * One step of a path. A filter's constraint with a binding (§7, bindings inside filters)
   * compares the element with the assigned value — a binder as an equality, so that a
   * filter standing for one element keeps the elements the assignment picked. Without an
   * assignment (while candidates are gathered) such a constraint keeps every element.
   */
  #step(
    data: unknown,
    step: CheckedStep,
    assignment?: Assignment,
    typed = false,
    record = false,
    deny = false,
  ): unknown {
    const isRecord = (item: unknown): item is Record<string, unknown> =>
      typeof item === 'object' && item !== null && !Array.isArray(item);
    if (step.kind === 'field') {
      const field = (item: unknown) =>
        isRecord(item) && Object.hasOwn(item, step.name) ? item[step.name] : missing;
      if (!Array.isArray(data)) return field(data);
      // A projection: the field of every element; one without it does not fit.
      const projected = data.map(field);
      return projected.includes(missing) ? missing : projected;
    }
    // §9 maps: `m.*` the values, `keys(m)` the keys, in key order (by code unit, never
    // the order the tool wrote them in); a non-object is missing. Only own keys are
    // entries: `__proto__` and `constructor` are keys like any other.
    if (step.kind === 'values' || step.kind === 'keys') {
      if (!isRecord(data)) return missing;
      const keys = Object.keys(data).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return step.kind === 'keys' ? keys : keys.map((key) => data[key]);
    }
    if (!Array.isArray(data)) return missing;
    // §9: a position counts from 0, a negative one from the end; out of range is missing.
    if (step.kind === 'index') {
      const at = step.position >= 0 ? step.position : data.length + step.position;
      return at >= 0 && at < data.length ? data[at] : missing;
    }
    // A filter selects with the rules' reading: an element that does not fit is not kept.
    // Inside `not` (`deny`), an element that the deny-list reading keeps — where on a
    // record a value that does not fit passes — and the rules' does not leaves the
    // selection open: `undecided`.
    const keeps = (element: unknown, wide: boolean) =>
      step.constraints.every((inner) => {
        const name = inner.variable.name;
        const subject =
          name === 'it'
            ? element
            : isRecord(element) && Object.hasOwn(element, name)
              ? element[name]
              : missing;
        const unfit = wide && record;
        if (subject === missing) return unfit;
        if (inner.binding !== undefined) {
          if (assignment?.[inner.binding.name] === undefined) return true;
          const walked = this.#walk(inner, subject, typed, assignment, record);
          if (walked === undefined) return unfit;
          return this.#bindingOn(inner, walked, assignment, wide) ?? unfit;
        }
        if (!wide) return this.#accessOn(inner, subject, assignment, typed) === true;
        return this.#accessOn(inner, subject, assignment, typed, true, record) ?? unfit;
      });
    if (deny && data.some((element) => !keeps(element, false) && keeps(element, true)))
      return undecided;
    return data.filter((element) => keeps(element, false));
  }

  /** The data read as the type of the literal it meets (§7), then compared as §5.1 says. */
  #compare(
    constraint: CheckedConstraint,
    data: unknown,
    deny = false,
    strictRecord = false,
  ): boolean | undefined {
    const literal = constraint.value;
    const coercion = constraint.node?.subject?.as;
    const kindOf = (item: Literal): Exclude<VariableType, { kind: 'list' | 'enum' }>['kind'] => {
      if (coercion !== undefined) return coercion;
      switch (item.kind) {
        case 'number':
        case 'text':
        case 'boolean':
        case 'date':
        case 'time':
        case 'datetime':
          return item.kind;
        case 'relative':
          return item.as;
        case 'regex':
          return 'text';
        case 'list':
          return item.elements[0] ? kindOf(item.elements[0]) : 'text';
        default:
          throw new Error(`a ${item.kind} literal is not modelled`);
      }
    };
    const kind = kindOf(literal);
    const read = (item: unknown): Scalar | undefined => {
      // Read the way an observation reads a text variable: a JSON number or boolean as
      // its text (5 is "5"); an object or a list is no text.
      if (kind === 'text') {
        // Inside `not` on a record, a text field holds a string, or does not fit.
        if (strictRecord) return typeof item === 'string' ? item : undefined;
        return typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean'
          ? String(item)
          : undefined;
      }
      // A count or a length is a number already.
      if (item instanceof Fraction) return kind === 'number' ? item : undefined;
      if (typeof item === 'object' || item === null) return undefined;
      if (kind === 'number' && typeof item === 'boolean') return undefined;
      if (kind === 'boolean' && typeof item === 'number') return undefined;
      try {
        return readScalar(item, { kind }, this.#clock);
      } catch (error) {
        if (error instanceof Invalid) return undefined;
        throw error;
      }
    };
    let value: RefValue;
    let type: VariableType;
    if (Array.isArray(data)) {
      if (kind !== 'text' && kind !== 'number') return undefined;
      // Inside `not` on a record, a list where one value is compared does not fit.
      if (strictRecord && constraint.access?.compared.kind !== 'list') return undefined;
      const elements = data.map(read);
      if (elements.includes(undefined)) return undefined;
      value = elements as Scalar[];
      type = { kind: 'list', element: kind };
    } else {
      const scalar = read(data);
      if (scalar === undefined) return undefined;
      value = scalar;
      type = { kind };
    }
    const typed: CheckedConstraint = {
      variable: { ...constraint.variable, type },
      operator: constraint.operator,
      value: literal,
      node: constraint.node,
    };
    return deny ? this.#denyReading(typed, value) : this.#satisfies(typed, value);
  }

  /** §5.1: false on an unobserved variable; a negated operator is the negation of its positive form. */
  #satisfies(
    constraint: CheckedConstraint,
    value: RefValue | undefined,
    assignment?: Assignment,
  ): boolean {
    if (value === undefined) return false;
    if (constraint.binding !== undefined) throw new Error('a binding outside the join');
    if (constraint.access !== undefined)
      return this.#access(constraint, value, assignment) === true;
    if (isJsonBox(value)) throw new Error('a json value compared whole is not modelled');
    const negated: Record<string, string> = {
      '!=': '=',
      '!~': '~',
      'not in': 'in',
      'not contains': 'contains',
      'not matches': 'matches',
    };
    const positive = negated[constraint.operator];
    if (positive !== undefined) return !this.#positive(constraint, value, positive);
    return this.#positive(constraint, value, constraint.operator);
  }

  #instanceSatisfies(
    pattern: CheckedPattern,
    instance: Instance,
    assignment: Assignment = noBindings,
    negated = false,
  ): boolean {
    return pattern.constraints.every((constraint) => {
      const value = argumentValue(pattern, constraint, instance);
      // §7 records: inside `not P(…)`, a path into a record whose value does not fit its
      // shape — or that the instance does not carry — counts as matching (fail closed),
      // with a binding as without.
      const unfitMatches =
        negated && constraint.variable.record !== undefined && constraint.access !== undefined;
      if (unfitMatches && value === undefined) return true;
      // E1, E3: inside `not`, a field a tool's result did not report (or that came and
      // could not be read) counts as matching: the result may hold what `not` forbids.
      if (
        negated &&
        pattern.predicate.resultOf !== undefined &&
        instance[constraint.variable.name] === undefined
      )
        return true;
      if (constraint.binding !== undefined) {
        const holds = this.#bindingHolds(
          pattern,
          constraint,
          instance,
          assignment,
          negated,
          negated,
        );
        // §9: in a scope at odd depth, a binder whose path cannot be read here matches
        // (its value, unknown, is then the one that fits nothing: unknownValue).
        if (holds === undefined && negated && constraint.binding.binds === true) return true;
        return holds === undefined ? unfitMatches : holds;
      }
      if (unfitMatches)
        return this.#access(constraint, value as RefValue, assignment, true) ?? true;
      // E2: inside `not`, a value matches whenever a guard would count it as matching.
      if (negated && value !== undefined)
        return constraint.access !== undefined
          ? this.#access(constraint, value, assignment, true) === true
          : this.#denyReading(constraint, value);
      return this.#satisfies(constraint, value, assignment);
    });
  }

  // ---- §7: bindings, by enumerating every assignment -----------------------------------

  /**
   * What the left side of a constraint with a binding denotes on one instance: its
   * values (several for a list), or `undefined` when the variable is unobserved or not
   * given, or a path does not fit.
   */
  #subjectOf(
    pattern: CheckedPattern,
    constraint: CheckedConstraint,
    instance: Instance,
    assignment?: Assignment,
    deny = false,
  ):
    | { readonly list: boolean; readonly values: readonly Subject[] }
    | undefined
    | typeof undecided {
    const raw = argumentValue(pattern, constraint, instance);
    if (raw === undefined) return undefined;
    const json = isJsonBox(raw);
    // Inside `not` (E2, E9): a filter on the path that cannot tell makes the use match.
    if (deny) {
      let current: unknown = json ? raw.json : raw;
      for (const step of constraint.access?.steps ?? []) {
        const record = constraint.variable.record !== undefined;
        current = this.#step(current, step, assignment, !json, record, true);
        if (current === undecided) return undecided;
        if (current === missing) break;
      }
    }
    return this.#walk(
      constraint,
      json ? raw.json : raw,
      !json,
      assignment,
      constraint.variable.record !== undefined,
    );
  }

  /** The subject of a constraint with a binding on data (a variable's, or a filtered element's). */
  #walk(
    constraint: CheckedConstraint,
    data: unknown,
    typed: boolean,
    assignment: Assignment | undefined,
    record = false,
  ): { readonly list: boolean; readonly values: readonly Subject[] } | undefined {
    const json = !typed;
    let current: unknown = data;
    const access = constraint.access;
    for (const step of access?.steps ?? []) {
      current = this.#step(current, step, assignment, typed, record);
      if (current === missing) return undefined;
    }
    // Inside a record, what the path reaches is a declared field: read by its type.
    const field =
      record && json ? scalarType(access?.compared ?? constraint.variable.type) : undefined;
    const subject = (item: unknown): Subject =>
      field !== undefined ? { typed: false, data: item, field } : { typed: !json, data: item };
    switch (access?.function) {
      case undefined:
        break;
      case 'count':
        if (!Array.isArray(current)) return undefined;
        return { list: false, values: [{ typed: true, data: countOf(constraint, current) }] };
      case 'len':
        if (typeof current !== 'string') return undefined;
        return { list: false, values: [{ typed: true, data: lengthOf(current) }] };
      case 'sum':
      case 'min':
      case 'max': {
        if (!Array.isArray(current)) return undefined;
        const total = aggregateOf(access.function, current);
        return total === undefined
          ? undefined
          : { list: false, values: [{ typed: true, data: total }] };
      }
      default:
        throw new Error(`a binding on ${String(access?.function)}(…) is not modelled`);
    }
    if (Array.isArray(current)) return { list: true, values: current.map(subject) };
    return { list: false, values: [subject(current)] };
  }

  /**
   * A value read as a binding's kind. Typed values are what they are; json values are
   * compared by what they hold (docs/language.md, Bindings): a JSON string is text, a
   * JSON number a number — never a date or time, and "2" is no number.
   */
  #readAs(subject: Subject, kind: string): Scalar | undefined {
    const data = subject.data;
    if (subject.typed) return data as Scalar;
    // docs/language.md "Records": values are read by the field's type ("2025-03-14" in a
    // date field is a date); one that does not read does not fit.
    if (subject.field !== undefined) {
      if (subject.field.kind !== kind || (typeof data === 'object' && data !== null))
        return undefined;
      try {
        return readScalar(data, subject.field, this.#clock);
      } catch {
        return undefined;
      }
    }
    if (kind === 'text') return typeof data === 'string' ? data : undefined;
    if (kind === 'number')
      return typeof data === 'number' && Number.isFinite(data)
        ? Fraction.fromNumber(data)
        : undefined;
    if (kind === 'boolean') return typeof data === 'boolean' ? data : undefined;
    return undefined;
  }

  /**
   * One comparison of a subject value with a bound value, with the use's arithmetic
   * applied to the bound value: `undefined` when either does not fit.
   */
  /**
   * §7 arithmetic on bound values, in the comparison's kind: exact fractions for numbers;
   * day or second counts for dates and times, to which durations (already in those units)
   * are added — never wrapped at midnight. `undefined` when a value does not fit or a
   * divisor is zero.
   */
  #compute(
    tree: NonNullable<NonNullable<CheckedConstraint['binding']>['arithmetic']>,
    assignment: Assignment,
    kind: string,
  ): Scalar | undefined {
    switch (tree.kind) {
      case 'binding': {
        const value = assignment[tree.name];
        if (value === undefined) throw new Error(`$${tree.name} has no value`);
        return this.#readAs(value, kind);
      }
      case 'number':
        return Fraction.read(String(tree.value));
      case 'duration':
        return tree.seconds;
      case 'operation': {
        const left = this.#compute(tree.left, assignment, kind);
        const right = this.#compute(tree.right, assignment, kind);
        if (left === undefined || right === undefined) return undefined;
        if (left instanceof Fraction && right instanceof Fraction) {
          switch (tree.operator) {
            case '+':
              return left.plus(right);
            case '-':
              return left.minus(right);
            case '*':
              return left.times(right);
            default:
              return left.dividedBy(right);
          }
        }
        if (typeof left === 'number' && typeof right === 'number') {
          if (tree.operator === '+') return left + right;
          if (tree.operator === '-') return left - right;
        }
        return undefined;
      }
      // §9: a clock word is the session's clock read as the comparison's kind.
      case 'clock': {
        const days = { yesterday: -1, today: 0, tomorrow: 1, now: 0 }[tree.word];
        if (tree.as === 'date') return this.#clock.today + days;
        if (tree.as === 'time') return this.#clock.time;
        return tree.word === 'now'
          ? this.#clock.today * 86_400 + this.#clock.time
          : (this.#clock.today + days) * 86_400;
      }
      // §9: the lesser / greater of two values of one kind.
      case 'extremum': {
        const left = this.#compute(tree.left, assignment, kind);
        const right = this.#compute(tree.right, assignment, kind);
        if (left === undefined || right === undefined) return undefined;
        const comparison = order(left, right);
        if (comparison === undefined) return undefined;
        return (tree.function === 'min') === comparison <= 0 ? left : right;
      }
      default:
        throw new Error('unknown arithmetic');
    }
  }

  /**
   * §9 a condition on bindings under an assignment: both sides computed in the
   * comparison's kind; `undefined` when a side does not fit (false in rules, true in guards).
   */
  #comparison(comparison: CheckedComparison, assignment: Assignment): boolean | undefined {
    const plain = comparison.left.kind === 'binding' && comparison.right.kind === 'binding';
    const first = comparison.left.kind === 'binding' ? assignment[comparison.left.name] : undefined;
    // Two json bindings compare by what they hold (§7), as a use compares with its binder.
    const data = first?.data;
    const kind =
      comparison.kind ??
      (plain
        ? typeof data === 'string'
          ? 'text'
          : typeof data === 'boolean'
            ? 'boolean'
            : 'number'
        : 'number');
    const left = this.#compute(comparison.left, assignment, kind);
    const right = this.#compute(comparison.right, assignment, kind);
    if (left === undefined || right === undefined) return undefined;
    if (comparison.operator === '=') return sameScalar(left, right);
    if (comparison.operator === '!=') return !sameScalar(left, right);
    const ordering = order(left, right);
    return ordering === undefined ? undefined : ordered(comparison.operator, ordering);
  }

  /**
   * One comparison of a subject value with a bound value, or with the use's arithmetic
   * on the assignment: `undefined` when either does not fit.
   */
  #compareBound(
    operator: string,
    subject: Subject,
    bound: Subject,
    binding: NonNullable<CheckedConstraint['binding']>,
    assignment: Assignment,
    broad = false,
  ): boolean | undefined {
    // Two json values are compared by what they hold (§7): numbers, texts, booleans.
    const inferred = (data: unknown) =>
      typeof data === 'number'
        ? 'number'
        : typeof data === 'string'
          ? 'text'
          : typeof data === 'boolean'
            ? 'boolean'
            : undefined;
    const kind =
      binding.kind ??
      (binding.arithmetic !== undefined ? 'number' : (inferred(bound.data) ?? undefined));
    if (kind === undefined) return undefined;
    const value = this.#readAs(subject, kind);
    const other =
      binding.arithmetic !== undefined
        ? this.#compute(binding.arithmetic, assignment, kind)
        : this.#readAs(bound, kind);
    if (value === undefined || other === undefined) return undefined;
    switch (operator) {
      case '=':
        if (sameScalar(value, other)) return true;
        // The deny-list reading (inside `not`, E2): two texts read alike are one value.
        if (!broad || typeof value !== 'string' || typeof other !== 'string') return false;
        return [...readingsOf(value)].some((reading) => readingsOf(other).has(reading));
      case '!=':
        return !sameScalar(value, other);
      case 'contains':
      case 'not contains': {
        if (typeof value !== 'string' || typeof other !== 'string') return undefined;
        let holds = normalize(value).includes(normalize(other));
        if (!holds && broad && operator === 'contains' && normalize(other) !== '') {
          const text = confusableSkeletons(value);
          const needle = confusableSkeletons(other);
          holds = text.cased.includes(needle.cased) || text.folded.includes(needle.folded);
        }
        return operator === 'contains' ? holds : !holds;
      }
      default: {
        const comparison = order(value, other);
        return comparison === undefined ? undefined : ordered(operator, comparison);
      }
    }
  }

  /**
   * A constraint with a binding on one instance under an assignment: a binder is an
   * equality with its assigned value; on a list (`each`) some element compares.
   */
  #bindingHolds(
    pattern: CheckedPattern,
    constraint: CheckedConstraint,
    instance: Instance,
    assignment: Assignment,
    broad = false,
    inNot = false,
  ): boolean | undefined {
    const binding = constraint.binding;
    if (binding === undefined) throw new Error('no binding');
    const subject = this.#subjectOf(pattern, constraint, instance, assignment, inNot);
    if (subject === undecided) return true;
    if (subject === undefined) return undefined;
    return this.#bindingOn(constraint, subject, assignment, broad);
  }

  /** `broad`: the deny-list reading for a positive operator (inside `not`, E2). */
  #bindingOn(
    constraint: CheckedConstraint,
    subject: { readonly list: boolean; readonly values: readonly Subject[] },
    assignment: Assignment,
    broad = false,
  ): boolean | undefined {
    const binding = constraint.binding;
    if (binding === undefined) throw new Error('no binding');
    const bound = assignment[binding.name];
    if (bound === undefined) throw new Error(`$${binding.name} has no value`);
    const operator = binding.binds ? '=' : constraint.operator;
    const wide = broad && !negatedOperators.has(operator);
    // A binder on a list: some element is the assigned value (the one it came from).
    if (binding.binds && binding.each)
      return (
        subject.list &&
        subject.values.some(
          (value) => this.#compareBound('=', value, bound, binding, assignment) === true,
        )
      );
    // A use on a list: some element compares; a negated operator is the negation of its
    // positive form (§5.1: `items.n != $x` means no element equals it). An element that
    // does not fit makes the whole use not fit.
    const some = (positive: string) => {
      const results = subject.values.map((value) =>
        this.#compareBound(positive, value, bound, binding, assignment, wide),
      );
      return results.includes(undefined) ? undefined : results.includes(true);
    };
    const negate = (holds: boolean | undefined) => (holds === undefined ? undefined : !holds);
    if (binding.each) {
      if (!subject.list) return undefined;
      return operator === '!=' ? negate(some('=')) : some(operator);
    }
    if (subject.list) {
      // A whole list with a bound value: only element membership is meant.
      if (operator === 'contains') return some('=');
      if (operator === 'not contains') return negate(some('='));
      return undefined;
    }
    const [value] = subject.values;
    return value === undefined
      ? undefined
      : this.#compareBound(operator, value, bound, binding, assignment, wide);
  }

  /** The values a binder offers on one instance (each element of a list in turn). */
  #offers(pattern: CheckedPattern, binder: CheckedConstraint, instance: Instance): Subject[] {
    const subject = this.#subjectOf(pattern, binder, instance);
    if (subject === undefined || subject === undecided) return [];
    if (binder.binding?.each) return subject.list ? [...subject.values] : [];
    return subject.list ? [] : [...subject.values];
  }

  /** What a binder inside the filter at step `at` offers: that field of every element. */
  #filterOffers(
    pattern: CheckedPattern,
    constraint: CheckedConstraint,
    at: number,
    inner: CheckedConstraint,
    instance: Instance,
  ): Subject[] {
    const raw = argumentValue(pattern, constraint, instance);
    if (raw === undefined) return [];
    const typed = !isJsonBox(raw);
    let list: unknown = isJsonBox(raw) ? raw.json : raw;
    for (const before of (constraint.access?.steps ?? []).slice(0, at)) {
      list = this.#step(list, before, undefined, typed);
      if (list === missing) return [];
    }
    if (!Array.isArray(list)) return [];
    const offers: Subject[] = [];
    for (const element of list) {
      const name = inner.variable.name;
      const root =
        name === 'it'
          ? element
          : typeof element === 'object' && element !== null && Object.hasOwn(element, name)
            ? (element as Record<string, unknown>)[name]
            : missing;
      if (root === missing) continue;
      const subject = this.#walk(
        inner,
        root,
        typed,
        undefined,
        constraint.variable.record !== undefined,
      );
      if (subject !== undefined && !subject.list) offers.push(...subject.values);
    }
    return offers;
  }

  /**
   * Every assignment of the rule's bindings to values their binders offer in this state
   * and action: a full cartesian product, checked atom by atom afterwards.
   */
  #assignments(rule: CheckedRule, state: State, action: Action | undefined): Assignment[] {
    return this.#extensions([...rule.states, ...(rule.action ? [rule.action] : [])], state, action);
  }

  /**
   * The assignments of the bindings `patterns` make that `outer` does not hold yet, each
   * laid over `outer` (a scope's own bindings under the rule's, LANGUAGE.md §9).
   */
  #extensions(
    patterns: readonly CheckedPattern[],
    state: State,
    action: Action | undefined,
    outer: Assignment = noBindings,
    broad = false,
  ): Assignment[] {
    const candidates = new Map<string, Map<string, Subject>>();
    for (const pattern of patterns) {
      for (const binder of pattern.constraints) {
        if (binder.binding?.binds !== true) continue;
        const instances =
          pattern.predicate.kind === 'action'
            ? action
              ? [action.args]
              : []
            : Object.values(state[pattern.predicate.name] ?? {});
        const found = candidates.get(binder.binding.name) ?? new Map<string, Subject>();
        candidates.set(binder.binding.name, found);
        for (const instance of instances) {
          // §9: in a scope at odd depth, a result that does not report what a binder reads
          // may hold anything there; one value that fits nothing stands for it.
          if (
            broad &&
            pattern.predicate.resultOf !== undefined &&
            [undefined, undecided].includes(this.#subjectOf(pattern, binder, instance) as never)
          )
            found.set('unknown', unknownValue);
          for (const offer of this.#offers(pattern, binder, instance)) {
            const key = offer.typed ? identity(offer.data as Scalar) : `j:${canonical(offer.data)}`;
            found.set(`${offer.typed}|${key}`, offer);
          }
        }
      }
    }
    // Binders inside filters: the field of every element of the filtered list, whatever
    // the filter's other constraints (a superset; the check under the assignment decides).
    for (const pattern of patterns) {
      const instances =
        pattern.predicate.kind === 'action'
          ? action
            ? [action.args]
            : []
          : Object.values(state[pattern.predicate.name] ?? {});
      for (const constraint of pattern.constraints) {
        const steps = constraint.access?.steps ?? [];
        steps.forEach((step, at) => {
          if (step.kind !== 'filter') return;
          for (const inner of step.constraints) {
            if (inner.binding?.binds !== true) continue;
            const found = candidates.get(inner.binding.name) ?? new Map<string, Subject>();
            candidates.set(inner.binding.name, found);
            for (const instance of instances) {
              for (const offer of this.#filterOffers(pattern, constraint, at, inner, instance)) {
                const key = offer.typed
                  ? identity(offer.data as Scalar)
                  : `j:${canonical(offer.data)}`;
                found.set(`${offer.typed}|${key}`, offer);
              }
            }
          }
        });
      }
    }
    let assignments: Assignment[] = [outer];
    for (const [name, values] of candidates) {
      if (name in outer) continue;
      assignments = assignments.flatMap((assignment) =>
        [...values.values()].map((value) => ({ ...assignment, [name]: value })),
      );
    }
    return assignments;
  }

  // ---- §5.1, §5.3: guards err toward firing ----------------------------------------------

  /** Whether a text looks like the literal: equal normalized, or equal skeletons, whole or a part. */
  #looksEqual(text: string, literal: string): boolean {
    const key = normalize(text);
    const target = normalize(literal);
    if (key === target || partsOf(key).includes(target)) return true;
    // One phone number in another spelling.
    const phone = phoneOf(target);
    if (phone !== undefined && [key, ...partsOf(key)].some((item) => phoneOf(item) === phone))
      return true;
    const mine = confusableSkeletons(text);
    const theirs = confusableSkeletons(literal);
    return (
      [mine.cased, ...partsOf(mine.cased)].includes(theirs.cased) ||
      [mine.folded, ...partsOf(mine.folded)].includes(theirs.folded)
    );
  }

  /** A positive text test on the whole normalized text or on any of its parts. */
  #wholeOrPart(text: string, test: (part: string, raw: string) => boolean): boolean {
    const key = normalize(text);
    return test(key, text) || partsOf(key).some((part) => test(part, part));
  }

  #similar(text: string, literal: Literal): boolean {
    return (
      literal.kind === 'text' &&
      this.#options.similarity(text, literal.value) >= this.#options.threshold
    );
  }

  /** The guard's reading of a positive text operator on one text. */
  #broadText(operator: string, text: string, literal: Literal): boolean {
    const texts = (item: Literal) => (item.kind === 'text' ? [item.value] : []);
    switch (operator) {
      case '=':
        return texts(literal).some((target) => this.#looksEqual(text, target));
      case 'in':
        return (literal.kind === 'list' ? literal.elements.flatMap(texts) : []).some((target) =>
          this.#looksEqual(text, target),
        );
      case 'contains': {
        if (literal.kind !== 'text') return false;
        if (normalize(text).includes(fold(literal.value))) return true;
        const mine = confusableSkeletons(text);
        const needle = confusableSkeletons(literal.value, true);
        return mine.cased.includes(needle.cased) || mine.folded.includes(needle.folded);
      }
      case 'matches':
        // An anchored regex describes one whole value: a text is read part by part. An
        // unanchored one searches the whole text.
        return literal.kind === 'regex' && anchored(literal.pattern)
          ? this.#wholeOrPart(text, (part) => regexMatches(literal, part))
          : regexMatches(literal, text);
      case '~':
        return this.#wholeOrPart(text, (_, raw) => this.#similar(raw, literal));
      default:
        throw new Error(`unknown operator ${operator}`);
    }
  }

  /** The rules' reading of a positive text operator on one normalized part. */
  #strictText(operator: string, key: string, raw: string, literal: Literal): boolean {
    const texts = (item: Literal) => (item.kind === 'text' ? [normalize(item.value)] : []);
    switch (operator) {
      case '=':
        return texts(literal).includes(key);
      case 'in':
        return (literal.kind === 'list' ? literal.elements.flatMap(texts) : []).includes(key);
      case 'matches':
        return regexMatches(literal, key);
      case '~':
        return this.#similar(raw, literal);
      default:
        throw new Error(`unknown operator ${operator}`);
    }
  }

  #guardSatisfies(
    pattern: CheckedPattern,
    constraint: CheckedConstraint,
    instance: Instance,
    assignment?: Assignment,
  ): boolean {
    const value = argumentValue(pattern, constraint, instance);
    const negations: Record<string, string> = {
      '!=': '=',
      '!~': '~',
      'not in': 'in',
      'not contains': 'contains',
      'not matches': 'matches',
    };
    const positive = negations[constraint.operator];
    // §5.1: only a negative constraint holds on an action's absent argument — with a path,
    // len or as too; §7's missing field is a field missing from a value that is given.
    if (value === undefined) return positive !== undefined && pattern.predicate.kind === 'action';
    // §7: a value that does not fit a path, filter or function makes a guard fire.
    if (constraint.access !== undefined) return this.#access(constraint, value, assignment) ?? true;
    return this.#denyReading(constraint, value);
  }

  /**
   * A constraint on a given value with the deny-list reading (guards; inside `not`, E2):
   * look-alikes and parts for positive text operators; a negated one holds when the
   * whole fails or the parts mix — except `not matches` with an unanchored regex, the
   * negation of `matches` (O1), and `not contains`, the negation of the rules' reading.
   */
  #denyReading(constraint: CheckedConstraint, value: RefValue): boolean {
    const positive = (
      {
        '!=': '=',
        '!~': '~',
        'not in': 'in',
        'not contains': 'contains',
        'not matches': 'matches',
      } as Record<string, string>
    )[constraint.operator];
    const type = constraint.variable.type;
    const literal = constraint.value;
    if (type.kind === 'text' && typeof value === 'string') {
      if (positive === undefined) return this.#broadText(constraint.operator, value, literal);
      if (positive === 'contains') return this.#satisfies(constraint, value);
      if (positive === 'matches' && literal.kind === 'regex' && !anchored(literal.pattern))
        return !regexMatches(literal, value);
      const key = normalize(value);
      if (!this.#strictText(positive, key, value, literal)) return true;
      // The parts mix values that pass with values that fail.
      const results = partsOf(key).map((part) => this.#strictText(positive, part, part, literal));
      return results.includes(true) && results.includes(false);
    }
    if (type.kind === 'list' && type.element === 'text' && positive === undefined) {
      const elements = value as readonly string[];
      switch (constraint.operator) {
        case '=':
          return (
            literal.kind === 'list' &&
            elements.length === literal.elements.length &&
            elements.every((element, index) => {
              const target = literal.elements[index];
              return target?.kind === 'text' && this.#looksEqual(element, target.value);
            })
          );
        case 'in':
          return elements.every((element) => this.#broadText('in', element, literal));
        case 'contains':
          return elements.some((element) => this.#broadText('=', element, literal));
        default:
          return elements.some((element) => this.#broadText(constraint.operator, element, literal));
      }
    }
    return this.#satisfies(constraint, value);
  }

  #guardMatches(
    pattern: CheckedPattern,
    instance: Instance,
    omitted: ReadonlySet<string> = new Set(),
    comparisons: readonly CheckedComparison[] = [],
  ): boolean {
    if (
      (pattern.absent ?? []).some(
        (variable) => instance[variable.name] !== undefined && !omitted.has(variable.name),
      )
    )
      return false;
    const binders = pattern.constraints.filter((constraint) => constraint.binding?.binds);
    // Binders inside filters (docs/language.md: a filtered list standing for one element).
    const filterBinders = pattern.constraints.flatMap((constraint) =>
      (constraint.access?.steps ?? []).flatMap((step, at) =>
        step.kind === 'filter'
          ? step.constraints
              .filter((inner) => inner.binding?.binds)
              .map((inner) => ({ constraint, at, inner }))
          : [],
      ),
    );
    if (binders.length === 0 && filterBinders.length === 0)
      return pattern.constraints.every((constraint) =>
        this.#guardSatisfies(pattern, constraint, instance),
      );
    // A binder on an argument that is not given makes the guard fire; on an unobserved
    // state variable it is false, as in rules (§5.1) — inside a filter as outside.
    if (
      filterBinders.some(
        ({ constraint }) => argumentValue(pattern, constraint, instance) === undefined,
      )
    )
      return pattern.predicate.kind === 'action';
    // §7 (docs/language.md): a binder on an argument that is not given, or on a value that
    // does not fit, makes the guard fire. §5.1: an unobserved state variable is no omitted
    // argument: there the binder is false, as in rules.
    if (
      binders.some(
        (binder) =>
          pattern.predicate.kind === 'state' &&
          argumentValue(pattern, binder, instance) === undefined,
      )
    )
      return false;
    if (
      binders.some((binder) => {
        const subject = this.#subjectOf(pattern, binder, instance);
        if (subject === undecided) throw new Error('undecided outside not');
        return subject === undefined || (binder.binding?.each === true && !subject.list);
      })
    ) {
      referenceCoverage.guardUnbound++;
      return true;
    }
    referenceCoverage.guardBound++;
    let assignments: Assignment[] = [noBindings];
    for (const binder of binders) {
      const name = binder.binding?.name ?? '';
      const offers = this.#offers(pattern, binder, instance);
      assignments = assignments.flatMap((assignment) =>
        offers.map((offer) => ({ ...assignment, [name]: offer })),
      );
    }
    // A filter binder offers that field of every element; the filter under the
    // assignment decides which element stands for the list.
    for (const { constraint, at, inner } of filterBinders) {
      const name = inner.binding?.name ?? '';
      const offers = this.#filterOffers(pattern, constraint, at, inner, instance);
      assignments = assignments.flatMap((assignment) =>
        offers.map((offer) => ({ ...assignment, [name]: offer })),
      );
    }
    return assignments.some(
      (assignment) =>
        // §9: a comparison that does not fit holds in a guard.
        comparisons.every((comparison) => this.#comparison(comparison, assignment) !== false) &&
        pattern.constraints.every((constraint) => {
          if (constraint.binding === undefined)
            return this.#guardSatisfies(pattern, constraint, instance, assignment);
          // A use that does not fit holds; one on an action's argument that is not given
          // holds when it is negative (§5.1: guards err toward firing, and only a negative
          // constraint holds on an absent argument); on an unobserved state variable it is
          // false, as in rules.
          // The deny-list reading, as for literals.
          const holds = this.#bindingHolds(pattern, constraint, instance, assignment, true);
          if (holds !== undefined) return holds;
          if (argumentValue(pattern, constraint, instance) !== undefined) return true;
          return (
            pattern.predicate.kind === 'action' &&
            ['!=', '!~', 'not in', 'not contains', 'not matches'].includes(constraint.operator)
          );
        }),
    );
  }

  /** Some instance satisfies all constraints together; `P()` holds once P was observed. */
  #patternHolds(
    pattern: CheckedPattern,
    state: State,
    assignment: Assignment,
    negated = false,
  ): boolean {
    const instances = Object.values(state[pattern.predicate.name] ?? {});
    return instances.some((instance) =>
      this.#instanceSatisfies(pattern, instance, assignment, negated),
    );
  }

  /**
   * §9 `not (A & B)`: no assignment of the scope's own bindings, over the rule's, satisfies
   * every pattern of it with every scope inside it holding. `forall(A => B)` is `not (A &
   * not (B))` (the checker gives B as the last nested scope). Inside an odd number of
   * scopes a match makes the rule's `not` fail, so patterns there are read as `not P(…)`
   * reads them (§7); inside an even number, as the body reads them.
   */
  #scopeHolds(scope: CheckedScope, state: State, outer: Assignment, depth: number): boolean {
    const negated = depth % 2 === 1;
    return !this.#extensions(scope.states, state, undefined, outer, negated).some(
      (assignment) =>
        scope.states.every((pattern) => this.#patternHolds(pattern, state, assignment, negated)) &&
        // Where what is found makes a `not` fail, a side that does not fit counts as holding.
        (scope.comparisons ?? []).every((comparison) => {
          const holds = this.#comparison(comparison, assignment);
          return negated ? holds !== false : holds === true;
        }) &&
        (scope.scopes ?? []).every((inner) =>
          this.#scopeHolds(inner, state, assignment, depth + 1),
        ),
    );
  }

  #countHolds(count: number, operator: string, bound: number): boolean {
    switch (operator) {
      case '=':
        return count === bound;
      case '!=':
        return count !== bound;
      case '<':
        return count < bound;
      case '<=':
        return count <= bound;
      case '>':
        return count > bound;
      default:
        return count >= bound;
    }
  }

  /** §5.2: every body atom holds. */
  #fires(rule: CheckedRule, state: State, action: Action | undefined): boolean {
    for (const condition of rule.objectives) {
      if (
        !this.#countHolds(this.#achieved[condition.name] ?? 0, condition.operator, condition.count)
      )
        return false;
    }
    if (rule.action) {
      if (!action || action.predicate.name !== rule.action.predicate.name) return false;
      // §7 absent(arg): the argument is not given.
      if (
        (rule.action.absent ?? []).some(
          (variable) =>
            action.args[variable.name] !== undefined && !action.omitted.has(variable.name),
        )
      )
        return false;
    }
    // §7: the body holds if some assignment of its bindings satisfies every atom (without
    // bindings there is exactly one, empty, assignment).
    const assignments = this.#assignments(rule, state, action);
    const fires = assignments.some(
      (assignment) =>
        (rule.action === undefined ||
          (action !== undefined &&
            this.#instanceSatisfies(rule.action, action.args, assignment))) &&
        // §7 not P(...): no instance satisfies it under the assignment; it never binds.
        !(rule.negations ?? []).some((pattern) =>
          this.#patternHolds(pattern, state, assignment, true),
        ) &&
        rule.states.every((pattern) => this.#patternHolds(pattern, state, assignment)) &&
        (rule.comparisons ?? []).every(
          (comparison) => this.#comparison(comparison, assignment) === true,
        ) &&
        (rule.scopes ?? []).every((scope) => this.#scopeHolds(scope, state, assignment, 1)),
    );
    if (assignments.some((assignment) => Object.keys(assignment).length > 0)) {
      if (fires) referenceCoverage.boundFired++;
      else referenceCoverage.boundFailed++;
    }
    return fires;
  }

  /**
   * E4: what `@repeat(per:)` counts a value under — each of its readings under the
   * deny-list reading for a text, so that a value with a served reading is not new.
   */
  #perKeys(rule: CheckedRule, action: Action): string[] {
    const value = action.args[rule.repeat?.per?.name ?? ''];
    const readings = typeof value === 'string' ? [...readingsOf(value)] : [identity(value)];
    return readings.map((reading) => `${sourceRule(rule)}\u0000${reading}`);
  }

  #doneHolds(state: State = this.#state): boolean {
    return this.#spec.rules.some((rule) => rule.isDone && this.#fires(rule, state, undefined));
  }

  /**
   * Not yet achieved, or @repeat allowance left for this rule. §7: `@repeat(n, per: arg)`
   * allows n performances (default 1) for each value of the action's argument; without
   * an action to read the value from, some value may still be new.
   */
  #hasBudget(rule: CheckedRule, action?: Action): boolean {
    if (rule.repeat?.per) {
      if (!action) return true;
      const limit = rule.repeat.limit ?? 1;
      return this.#perKeys(rule, action).every((key) => (this.#performedPer[key] ?? 0) < limit);
    }
    if ((this.#achieved[rule.head] ?? 0) === 0) return true;
    // Without @repeat an achieved head is never performed again; @repeat(n) allows n performances of the rule.
    if (!rule.repeat) return false;
    return (
      (this.#performed[sourceRule(rule)] ?? 0) < (rule.repeat.limit ?? Number.POSITIVE_INFINITY)
    );
  }

  // ---- reading proposals (FORMATS.md §2) -----------------------------------------------

  #predicate(name: unknown): PredicateDeclaration | undefined {
    return typeof name === 'string' ? this.#spec.schema.predicates.get(name) : undefined;
  }

  #readValues(
    predicate: PredicateDeclaration,
    input: unknown,
    lenient: boolean,
    clearing: boolean,
  ): Record<string, RefValue | null> {
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new Invalid('values must be an object');
    const values: Record<string, RefValue | null> = {};
    for (const [name, raw] of Object.entries(input)) {
      const variable = predicate.variables.find((candidate) => candidate.name === name);
      if (!variable) {
        if (lenient) continue;
        throw new Invalid(`unknown variable ${name}`);
      }
      if (raw === null) {
        if (clearing) values[name] = null;
        continue;
      }
      // §7: a record argument must fit its declared fields.
      if (!lenient && variable.record !== undefined) {
        const problem = recordProblem(raw, variable, this.#clock);
        if (problem !== undefined) throw new Invalid(`${name}: ${problem}`);
        if (variable.type.kind === 'list' && !Array.isArray(raw))
          throw new Invalid(`${name}: not a list`);
      }
      values[name] = readValue(raw, variable.type, this.#clock, variable.jsonText === true);
    }
    return values;
  }

  /**
   * `unread` (observations): every tool result the observation carries, as its call's
   * arguments only — what an observation that cannot be read whole still leaves (E1).
   */
  #readUpdates(input: unknown, lenient: boolean, unread?: Update[]): Update[] {
    if (input === undefined || input === null) return [];
    const entries: [unknown, unknown, unknown][] = [];
    if (Array.isArray(input)) {
      for (const entry of input) {
        if (typeof entry !== 'object' || entry === null) throw new Invalid('bad update');
        const record = entry as Record<string, unknown>;
        if (typeof record['predicate'] !== 'string') throw new Invalid('bad update');
        entries.push([record['predicate'], record['op'], record['values']]);
      }
    } else if (typeof input === 'object') {
      for (const [name, body] of Object.entries(input)) {
        for (const item of Array.isArray(body) ? body : [body])
          entries.push([name, undefined, item]);
      }
    } else throw new Invalid('bad updates');
    const updates: Update[] = [];
    /** Instances that exist at this point of the proposal: committed, then as it adds and deletes. */
    const exists = (predicate: string, key: string) => {
      for (let index = updates.length - 1; index >= 0; index--) {
        const update = updates[index];
        if (update?.predicate.name === predicate && update.key === key) return !update.remove;
      }
      return this.#state[predicate]?.[key] !== undefined;
    };
    let unreadable = false;
    for (const [name, op, body] of entries) {
      try {
        const predicate = this.#predicate(name);
        if (!predicate) {
          if (lenient) continue;
          throw new Invalid('unknown predicate');
        }
        if (predicate.kind !== 'state') throw new Invalid('an action is not a state');
        if (!lenient && predicate.resultOf !== undefined) {
          throw new Invalid('a tool result is observed, never proposed');
        }
        // Observed facts (FORMATS.md §1): a proposal may not set, clear or delete them.
        if (!lenient && predicate.observed === true) throw new Invalid('an observed predicate');
        const observedNames = predicate.variables
          .filter((variable) => variable.observed === true)
          .map((variable) => variable.name);
        if (!lenient && observedNames.length > 0) {
          if (op === 'delete') throw new Invalid('deletes observed facts');
          if (
            typeof body === 'object' &&
            body !== null &&
            observedNames.some((name) => Object.hasOwn(body, name))
          )
            throw new Invalid('an observed variable');
        }
        if (op !== undefined && op !== 'add' && op !== 'update' && op !== 'delete')
          throw new Invalid('bad op');
        const result = lenient && predicate.resultOf !== undefined;
        /** E1: a key of its own for a result whose call is unknown; it replaces no other. */
        const unreadKey = () => {
          for (let n = 0; ; n++) {
            const key = `\u0000unread ${n}`;
            const pending = updates.some(
              (update) => update.predicate.name === predicate.name && update.key === key,
            );
            if (!pending && this.#state[predicate.name]?.[key] === undefined) return key;
          }
        };
        const record = body === undefined && op === 'delete' ? {} : body;
        if (result && (typeof record !== 'object' || record === null || Array.isArray(record))) {
          // E1: a result in a shape nothing reads still came: kept with nothing read.
          if (op !== 'delete') {
            const nothing: Update = { predicate, remove: false, key: unreadKey(), values: {} };
            unread?.push(nothing);
            updates.push(nothing);
          }
          throw new Invalid('values must be an object');
        }
        const failed: string[] = [];
        const values = result
          ? this.#readResultValues(predicate, record as object, failed)
          : this.#readValues(predicate, record, lenient, true);
        let key = '';
        if (predicate.keys.length > 0) {
          const parts = predicate.keys.map((keyName) => values[keyName]);
          // A tool result is keyed by the call's arguments (FORMATS.md §1) exactly as given
          // (E3); an observation that leaves one out is keyed as "not given" (one such
          // result, replaced by the next); one whose arguments cannot be read, by its own.
          const notGiven = (part: unknown) => part === undefined || part === null;
          if (predicate.resultOf === undefined && parts.some(notGiven))
            throw new Invalid('missing key');
          key = predicate.keys.some((keyName) => failed.includes(keyName))
            ? unreadKey()
            : parts
                .map((part) =>
                  notGiven(part)
                    ? '\u0000not given'
                    : predicate.resultOf !== undefined
                      ? callIdentity(part)
                      : identity(part),
                )
                .join('|');
          if ((op === 'update' || op === 'delete') && !exists(predicate.name, key))
            throw new Invalid('no such instance');
        }
        // E1: a result that cannot be read whole is its call's arguments, nothing else.
        const keysOnly = (): Update => ({
          predicate,
          remove: false,
          key,
          values: Object.fromEntries(
            predicate.keys.flatMap((keyName) =>
              failed.includes(keyName) || values[keyName] === undefined
                ? []
                : [[keyName, values[keyName] ?? null]],
            ),
          ),
        });
        if (failed.length > 0) {
          unread?.push(keysOnly());
          updates.push(keysOnly());
          throw new Invalid('a value of the result cannot be read');
        }
        if (result && op !== 'delete') unread?.push(keysOnly());
        updates.push({ predicate, remove: op === 'delete', key, values });
      } catch (error) {
        // An observation reads every update, and is refused after (E1: its results are kept).
        if (!lenient || !(error instanceof Invalid)) throw error;
        unreadable = true;
      }
    }
    if (unreadable) throw new Invalid('the observation cannot be read');
    return updates;
  }

  /** A tool result's values in an observation; the names of those that cannot be read go to `failed`. */
  #readResultValues(
    predicate: PredicateDeclaration,
    input: object,
    failed: string[],
  ): Record<string, RefValue | null> {
    const values: Record<string, RefValue | null> = {};
    for (const [name, raw] of Object.entries(input)) {
      const variable = predicate.variables.find((candidate) => candidate.name === name);
      if (!variable) continue;
      if (raw === null) {
        values[name] = null;
        continue;
      }
      try {
        values[name] = readValue(raw, variable.type, this.#clock, variable.jsonText === true);
      } catch (error) {
        if (!(error instanceof Invalid)) throw error;
        failed.push(name);
      }
    }
    return values;
  }

  #read(input: unknown): Proposal {
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new Invalid('not an object');
    const record = input as Record<string, unknown>;
    let action: Action | undefined;
    if (record['action'] !== undefined && record['action'] !== null) {
      const raw = record['action'] as Record<string, unknown>;
      if (typeof raw !== 'object' || typeof raw['name'] !== 'string')
        throw new Invalid('bad action');
      const predicate = this.#predicate(raw['name']);
      if (predicate?.kind !== 'action') throw new Invalid('unknown action');
      const values = this.#readValues(predicate, raw['args'] ?? {}, false, false);
      // §5.1: an absent optional list argument is the empty list; absent(arg) still
      // sees that it was not given.
      const omitted = new Set<string>();
      for (const variable of predicate.variables) {
        if (variable.type.kind === 'list' && values[variable.name] === undefined) {
          // Read as a given [] is, so that the proposal is identical to one giving []
          // (docs/engine.md: identical after values are normalised by type).
          values[variable.name] = readValue(
            [],
            variable.type,
            this.#clock,
            variable.jsonText === true,
          );
          omitted.add(variable.name);
        }
      }
      action = { predicate, args: values as Instance, omitted };
    }
    const updates = this.#readUpdates(record['updates'], false);
    let objective: string | undefined;
    const rawObjective = record['objective'];
    if (rawObjective !== undefined && rawObjective !== null) {
      if (typeof rawObjective !== 'string' || rawObjective.toLowerCase() === 'done')
        throw new Invalid('bad objective');
      if (!this.#spec.rules.some((rule) => !rule.isDone && rule.head === rawObjective))
        throw new Invalid('unknown objective');
      objective = rawObjective;
    }
    if (record['finish'] !== undefined && typeof record['finish'] !== 'boolean')
      throw new Invalid('bad finish');
    const finish = record['finish'] === true;
    if (finish && (action || updates.length > 0 || objective !== undefined))
      throw new Invalid('finish carries nothing else');
    // FORMATS.md §2 (v2): `answer` goes with a finish; `ask` with nothing else.
    const text = (field: string) => {
      const value = record[field];
      if (value === undefined || value === null) return undefined;
      if (typeof value !== 'string') throw new Invalid(`${field} is not text`);
      return value;
    };
    const answer = text('answer');
    if (answer !== undefined && !finish) throw new Invalid('an answer without finish');
    const ask = text('ask');
    if (ask !== undefined && (finish || action || updates.length > 0 || objective !== undefined))
      throw new Invalid('ask carries nothing else');
    return {
      ...(action ? { action } : {}),
      updates,
      ...(objective !== undefined ? { objective } : {}),
      finish,
      ...(answer !== undefined ? { answer } : {}),
      ...(ask !== undefined ? { ask } : {}),
    };
  }

  /** §6: identical proposals are equal after normalising values by type; labels are ignored. */
  #fingerprint(proposal: Proposal): string {
    const normalized = (
      values: Readonly<Record<string, RefValue | null>>,
      predicate: PredicateDeclaration,
      full: boolean,
    ) =>
      predicate.variables
        .filter((variable) => full || Object.hasOwn(values, variable.name))
        .map((variable) => `${variable.name}=${identity(values[variable.name])}`);
    return JSON.stringify({
      finish: proposal.finish,
      answer: proposal.answer ?? null,
      ask: proposal.ask ?? null,
      objective: proposal.objective ?? null,
      action: proposal.action
        ? [
            proposal.action.predicate.name,
            normalized(proposal.action.args, proposal.action.predicate, true),
          ]
        : null,
      updates: proposal.updates.map((update) => [
        update.predicate.name,
        update.remove,
        update.key,
        update.remove
          ? []
          : normalized(update.values, update.predicate, update.predicate.resultOf !== undefined),
      ]),
    });
  }

  // ---- state ----------------------------------------------------------------------------

  #applied(state: State, updates: readonly Update[]): State {
    // A copy down to the instances (values are never changed in place).
    const next: State = Object.fromEntries(
      Object.entries(state).map(([name, instances]) => [
        name,
        Object.fromEntries(
          Object.entries(instances).map(([key, instance]) => [key, { ...instance }]),
        ),
      ]),
    );
    for (const update of updates) {
      const instances = next[update.predicate.name] ?? {};
      next[update.predicate.name] = instances;
      if (update.remove) {
        delete instances[update.key];
        continue;
      }
      // A tool's result replaces the previous one as a whole (FORMATS.md §1).
      const base: Instance =
        update.predicate.resultOf !== undefined ? {} : { ...(instances[update.key] ?? {}) };
      for (const [name, value] of Object.entries(update.values)) {
        if (value === null) delete base[name];
        else base[name] = value;
      }
      instances[update.key] = base;
    }
    return next;
  }

  #commit(plan: Plan): void {
    if (this.#holding) {
      this.#held = plan;
      return;
    }
    this.#state = this.#applied(this.#state, plan.updates);
    if (plan.action) this.#calls.push(plan.action);
    // §7: alternatives are sugar: those of one rule performed together are one performance.
    const sources = new Set<string>();
    for (const rule of plan.rules) {
      if (sources.has(sourceRule(rule))) continue;
      sources.add(sourceRule(rule));
      if (rule.repeat?.per && plan.action) {
        for (const key of this.#perKeys(rule, plan.action))
          this.#performedPer[key] = (this.#performedPer[key] ?? 0) + 1;
      }
      this.#performed[sourceRule(rule)] = (this.#performed[sourceRule(rule)] ?? 0) + 1;
      this.#achieved[rule.head] = (this.#achieved[rule.head] ?? 0) + 1;
    }
    if (plan.finish) this.#finished = true;
  }

  // ---- §6: the decision -----------------------------------------------------------------

  #verdict(
    decision: ReferenceVerdict['decision'],
    code: string | undefined,
    performed: readonly CheckedRule[],
    severity?: 'soft' | 'hard',
  ): ReferenceVerdict {
    const heads = [...new Set(performed.map((rule) => rule.head))];
    return {
      decision,
      ...(severity ? { severity } : {}),
      ...(code ? { code } : {}),
      performs: heads,
      achieved: Object.fromEntries(heads.map((head) => [head, this.#achieved[head] ?? 0])),
      done: this.#doneHolds(),
    };
  }

  /** Step 9: a hard refusal, or after N identical ones a question to a person. */

  /**
   * §9: whether the updates change a setting (`"setting": true`) that no pattern of the
   * spec constrains: a value other than the committed one, a cleared one, or the instance
   * holding it deleted. A new instance of a keyed state changes no setting the user had; a single-instance state's
   * setting the app never reported counts as changed.
   */
  #changesFreeSetting(updates: readonly Update[]): boolean {
    return updates.some((update) => {
      if (update.predicate.kind !== 'state') return false;
      const before = this.#state[update.predicate.name]?.[update.key];
      const keyed = update.predicate.keys.length > 0;
      if (keyed && before === undefined) return false;
      return update.predicate.variables.some((variable) => {
        if (variable.setting !== true) return false;
        if (constrainsSetting(this.#spec, update.predicate.name, variable.name)) return false;
        const had = before?.[variable.name];
        const has = update.remove ? undefined : update.values[variable.name];
        // Not given: the update leaves it as it is.
        if (!update.remove && !(variable.name in update.values)) return false;
        const hadValue = had !== undefined && had !== null;
        const hasValue = has !== undefined && has !== null;
        if (!hadValue && !hasValue) return false;
        return !hadValue || !hasValue || identity(had) !== identity(has);
      });
    });
  }
  #hardRefusal(
    proposal: Proposal,
    key: string,
    code: string,
    performed: readonly CheckedRule[],
    plan: Plan,
  ): ReferenceVerdict {
    if (this.#approving) return this.#verdict('revise', code, performed, 'hard');
    const count = this.#refusals[key] ?? 0;
    if (this.#options.escalateAfter > 0 && count >= this.#options.escalateAfter) {
      this.#pending = { ...plan, escalated: key, proposal, observations: this.#observations };
      return this.#verdict('confirm', 'repeated-violation', performed);
    }
    this.#refusals[key] = count + 1;
    return this.#verdict('revise', code, performed, 'hard');
  }

  /**
   * §7: whether the answer shows a call never committed. This reads the forms the
   * differential generator writes — an `Action: Name` line (the name maybe in words:
   * `A 0`) followed by an `Action Input:` line, the same in HTML paragraphs,
   * LangChain's ``Invoking: `Name` with `input` `` and a line `Name(k=json, …)` — and
   * asks that each shown call of a schema action be accounted for by a committed call
   * of its own (each committed call accounts for one), whose arguments equal every
   * shown one. The input is a JSON object; nothing, `None`, `null`, `{}` and `Name()`
   * show no arguments (the name alone is matched); for an action of one argument, plain
   * text is that argument; anything else (a cut-off object) shows arguments that cannot
   * be read, and no committed call accounts for it. `Name(…)` whose text does not read
   * as arguments is no call.
   */
  #fabricated(answer: string): boolean {
    const lines = answer.split(/\n|<\/?p>/).filter((line) => line.trim() !== '');
    const unreadable = Symbol('unreadable');
    type Shown = Record<string, unknown> | undefined | typeof unreadable;
    const readInput = (predicate: PredicateDeclaration, text: string): Shown => {
      const input = text.trim();
      if (input === '' || /^(?:None|null|\{\s*\})$/.test(input)) return undefined;
      if (input.startsWith('{')) {
        try {
          const parsed: unknown = JSON.parse(input);
          return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
            ? (parsed as Record<string, unknown>)
            : unreadable;
        } catch {
          return unreadable;
        }
      }
      return predicate.variables.length === 1
        ? { [predicate.variables[0]!.name]: input }
        : unreadable;
    };
    const shownCalls: { predicate: PredicateDeclaration; shown: Shown }[] = [];
    for (const [index, line] of lines.entries()) {
      const react = /^Action:\s*(.+?)\s*$/.exec(line);
      const invoking = /^Invoking: `([^`]+)` with `(.*)`$/.exec(line);
      const call = /^(\w+)\((.*)\)$/.exec(line);
      const named = react?.[1]?.replace(/ /g, '') ?? invoking?.[1] ?? call?.[1];
      const predicate = this.#predicate(named);
      if (predicate?.kind !== 'action') continue;
      if (react) {
        const input = /^Action Input:(.*)$/.exec(lines[index + 1] ?? '')?.[1] ?? '';
        shownCalls.push({ predicate, shown: readInput(predicate, input) });
      } else if (invoking)
        shownCalls.push({ predicate, shown: readInput(predicate, invoking[2]!) });
      else {
        const shown = keywordArguments(call![2]!);
        if (shown !== undefined)
          shownCalls.push({
            predicate,
            shown: Object.keys(shown).length === 0 ? undefined : shown,
          });
      }
    }
    const accounts = (call: Action, { predicate, shown }: (typeof shownCalls)[number]) =>
      shown !== unreadable &&
      call.predicate.name === predicate.name &&
      (shown === undefined ||
        Object.entries(shown).every(([argument, value]) => {
          const variable = predicate.variables.find((candidate) => candidate.name === argument);
          if (variable === undefined) return false;
          try {
            const read = readValue(value, variable.type, this.#clock, variable.jsonText === true);
            return identity(read) === identity(call.args[argument]);
          } catch (error) {
            if (error instanceof Invalid) return false;
            throw error;
          }
        }));
    // A committed call for every shown one, each used once: augmenting paths.
    const calls = this.#calls;
    const holder = new Map<number, number>();
    const place = (shown: number, visited: Set<number>): boolean =>
      calls.some((call, position) => {
        if (visited.has(position) || !accounts(call, shownCalls[shown]!)) return false;
        visited.add(position);
        const other = holder.get(position);
        if (other !== undefined && !place(other, visited)) return false;
        holder.set(position, shown);
        return true;
      });
    return !shownCalls.every((_, shown) => place(shown, new Set()));
  }

  /** Step 2: 'reject' if a reject guard matches, else 'confirm' if a confirm guard does. */
  #guards(
    proposal: Proposal,
    tentative: State,
    guards: Spec['guards'] = this.#spec.guards,
  ): 'reject' | 'confirm' | undefined {
    const action = proposal.action;
    let confirmGuard = false;
    for (const guard of guards) {
      const pattern = guard.pattern;
      let matches = false;
      if (pattern.predicate.kind === 'action') {
        matches =
          action?.predicate.name === pattern.predicate.name &&
          this.#guardMatches(pattern, action.args, action.omitted, guard.comparisons);
      } else {
        matches = proposal.updates.some((update) => {
          if (update.remove || update.predicate.name !== pattern.predicate.name) return false;
          const instance = tentative[update.predicate.name]?.[update.key];
          return (
            instance !== undefined &&
            this.#guardMatches(pattern, instance, new Set(), guard.comparisons)
          );
        });
      }
      if (!matches) continue;
      if (guard.mode === 'reject') return 'reject';
      confirmGuard = true;
    }
    return confirmGuard ? 'confirm' : undefined;
  }

  propose(input: unknown): ReferenceVerdict {
    this.#pending = undefined;
    // §6 session life: after an allowed finish every proposal is rejected.
    if (this.#finished) return this.#verdict('reject', 'session-finished', []);
    let proposal: Proposal;
    try {
      proposal = this.#read(input);
    } catch (error) {
      if (error instanceof Invalid) return this.#verdict('revise', 'invalid-proposal', [], 'hard');
      throw error;
    }
    return this.#composed(proposal);
  }

  /**
   * §8, one state and two judges: the policy judges by its guards and permissions, the
   * intent by §6 with its commit held back; the stricter decision wins and the proposal
   * commits once, for both. Finish and ask are the intent's alone.
   */
  #composed(proposal: Proposal): ReferenceVerdict {
    const policy = this.#options.policy;
    if (policy === undefined || proposal.finish || proposal.ask !== undefined)
      return this.#decide(proposal);
    const judged = this.#judge(policy, proposal, this.#applied(this.#state, proposal.updates));
    this.#holding = true;
    this.#held = undefined;
    let intent: ReferenceVerdict;
    try {
      intent = this.#decide(proposal);
    } finally {
      this.#holding = false;
    }
    const held = this.#held as Plan | undefined;
    const policyRank = strictness(judged);
    const intentRank = strictness(intent);
    const heads = [...new Set(judged.rules.map((rule) => rule.head))];
    const performs = [...intent.performs, ...heads];
    const counts = () =>
      Object.fromEntries(performs.map((head) => [head, this.#achieved[head] ?? 0]));
    if (Math.max(policyRank, intentRank) >= 2) {
      this.#pending = undefined;
      const winner = policyRank >= intentRank ? judged : intent;
      return {
        decision: winner.decision,
        ...(winner.decision === 'revise' ? { severity: winner.severity ?? 'hard' } : {}),
        ...(winner.code ? { code: winner.code } : {}),
        performs: intent.performs,
        achieved: Object.fromEntries(
          intent.performs.map((head) => [head, this.#achieved[head] ?? 0]),
        ),
        done: this.#doneHolds(),
      };
    }
    const plan: Plan = held ?? {
      updates: proposal.updates,
      rules: [],
      finish: false,
      action: proposal.action,
    };
    if ((policyRank === 0 && intentRank === 0) || this.#approving) {
      this.#commit({ ...plan, rules: [...plan.rules, ...judged.rules] });
      return { decision: 'allow', performs, achieved: counts(), done: this.#doneHolds() };
    }
    if (intent.decision === 'confirm' && held === undefined && this.#pending)
      this.#pending = { ...this.#pending, rules: [...this.#pending.rules, ...judged.rules] };
    else
      this.#pending = {
        ...plan,
        rules: [...plan.rules, ...judged.rules],
        proposal,
        observations: this.#observations,
      };
    const code = intent.decision === 'confirm' ? intent.code : judged.code;
    return {
      decision: 'confirm',
      ...(code ? { code } : {}),
      performs,
      achieved: counts(),
      done: this.#doneHolds(),
    };
  }

  /**
   * §8: the policy's decision — a reject guard; else for an action some policy rule names
   * (governed), a permission that fires with budget, or `policy-violation`; then `@confirm`
   * of a deciding permission, then a confirm guard.
   */
  #judge(
    policy: Spec,
    proposal: Proposal,
    tentative: State,
  ): {
    readonly decision: ReferenceVerdict['decision'];
    readonly severity?: 'hard';
    readonly code?: string;
    readonly rules: readonly CheckedRule[];
  } {
    const guard = this.#guards(proposal, tentative, policy.guards);
    if (guard === 'reject') return { decision: 'reject', code: 'guard-reject', rules: [] };
    const action = proposal.action;
    let deciding: CheckedRule[] = [];
    if (action !== undefined) {
      const governing = policy.rules.filter(
        (rule) => rule.action?.predicate.name === action.predicate.name,
      );
      if (governing.length > 0) {
        deciding = governing.filter(
          (rule) => this.#fires(rule, tentative, action) && this.#hasBudget(rule, action),
        );
        if (deciding.length === 0)
          return { decision: 'revise', severity: 'hard', code: 'policy-violation', rules: [] };
      }
    }
    if (deciding.some((rule) => rule.confirm !== undefined))
      return { decision: 'confirm', code: 'rule-confirm', rules: deciding };
    if (guard === 'confirm') return { decision: 'confirm', code: 'guard-confirm', rules: deciding };
    return { decision: 'allow', rules: deciding };
  }

  #decide(proposal: Proposal): ReferenceVerdict {
    const key = this.#fingerprint(proposal);

    // §7: asking the user is always allowed and ends the session.
    if (proposal.ask !== undefined) {
      this.#finished = true;
      return this.#verdict('allow', undefined, []);
    }

    // 1. finish
    if (proposal.finish) {
      if (proposal.answer !== undefined && this.#fabricated(proposal.answer)) {
        return this.#hardRefusal(proposal, key, 'fabricated-action', [], {
          updates: [],
          rules: [],
          finish: true,
        });
      }
      // §7: while the finish is checked, the built-in Answer(text) holds the answer.
      const answered =
        proposal.answer === undefined
          ? this.#state
          : { ...this.#state, Answer: { '': { text: proposal.answer } } };
      if (this.#doneHolds(answered)) {
        this.#finished = true;
        return this.#verdict('allow', undefined, []);
      }
      return this.#hardRefusal(proposal, key, 'premature-finish', [], {
        updates: [],
        rules: [],
        finish: true,
      });
    }

    // 3. the tentative state (built first: state guards look at it)
    const tentative = this.#applied(this.#state, proposal.updates);
    const action = proposal.action;

    // 2. guards, in spec order: a matching reject decides at once; a confirm is remembered
    const guarded = this.#guards(proposal, tentative);
    if (guarded === 'reject') return this.#verdict('reject', 'guard-reject', []);
    const confirmGuard = guarded === 'confirm';

    // 4. the rules the proposal performs (§5.2): with an action, the rules whose action
    // pattern names it, narrowed to a declared objective (which must be one of their heads);
    // without one, the declared objective's rules that have no action pattern.
    let performed: CheckedRule[];
    const steps = this.#spec.rules.filter((rule) => !rule.isDone);
    if (action !== undefined) {
      const own = steps.filter((rule) => rule.action?.predicate.name === action.predicate.name);
      performed =
        proposal.objective === undefined
          ? own
          : own.filter((rule) => rule.head === proposal.objective);
      if (proposal.objective !== undefined && performed.length === 0)
        return this.#verdict('revise', 'invalid-proposal', [], 'hard');
    } else {
      const ofObjective = steps.filter((rule) => rule.head === proposal.objective);
      const gestures = ofObjective.filter((rule) => rule.action === undefined);
      // An objective with only action rules is still "performed" (none can fire without its action).
      performed = gestures.length > 0 ? gestures : ofObjective;
    }
    let deciding: CheckedRule[] = [];
    if (performed.length > 0) {
      const firing = performed.filter((rule) => this.#fires(rule, tentative, action));
      if (firing.length === 0) {
        const plan = {
          updates: proposal.updates,
          rules: performed.filter((rule) => this.#hasBudget(rule, action)),
          finish: false,
          action,
        };
        return this.#hardRefusal(proposal, key, 'unmet-conditions', performed, plan);
      }
      deciding = firing.filter((rule) => this.#hasBudget(rule, action));
      if (deciding.length === 0) {
        return this.#hardRefusal(proposal, key, 'already-achieved', performed, {
          updates: proposal.updates,
          rules: firing,
          finish: false,
          action,
        });
      }
    }

    // 5. an action no rule names (by its predicate) and no guard matches is unplanned
    let unplannedConfirm = false;
    const planned = this.#spec.rules.some(
      (rule) => action !== undefined && rule.action?.predicate.name === action.predicate.name,
    );
    if (action?.predicate.critical && !planned && !confirmGuard) {
      if (this.#options.unplannedCritical === 'revise') {
        return this.#hardRefusal(proposal, key, 'unplanned-critical', performed, {
          updates: proposal.updates,
          rules: deciding,
          finish: false,
          action,
        });
      }
      unplannedConfirm = true;
    }

    // 6. soft check: each changed variable must fit some pattern of a rule that can still fire
    const doneNow = this.#doneHolds();
    let deviates = false;
    for (const update of proposal.updates) {
      if (update.remove) continue;
      const before = this.#state[update.predicate.name]?.[update.key];
      for (const [name, value] of Object.entries(update.values)) {
        if (value === null) continue;
        if (before !== undefined && identity(before[name]) === identity(value)) continue;
        const patterns: CheckedPattern[] = [];
        for (const rule of this.#spec.rules) {
          // Done rules always count (§6 step 6).
          const live = rule.isDone || this.#hasBudget(rule);
          if (!live) continue;
          for (const pattern of rule.states) {
            if (pattern.predicate.name !== update.predicate.name) continue;
            if (pattern.constraints.some((constraint) => constraint.variable.name === name))
              patterns.push(pattern);
          }
        }
        if (patterns.length === 0) continue;
        // A constraint with a binding depends on other atoms: it is taken to fit.
        const fits = patterns.some((pattern) =>
          pattern.constraints.every(
            (constraint) =>
              constraint.variable.name !== name ||
              constraint.binding !== undefined ||
              this.#satisfies(constraint, value),
          ),
        );
        if (!fits) deviates = true;
      }
    }
    // §9 frame conditions: a setting no rule or guard constrains stays as it is. The
    // first reason names a value that fits no pattern, else the setting.
    const frame = this.#changesFreeSetting(proposal.updates);
    const code = !deviates && frame ? 'unplanned-change' : 'soft-deviation';
    if (frame) deviates = true;
    // §6 step 6: an update that would make a holding Done stop holding deviates too.
    if (
      !deviates &&
      doneNow &&
      proposal.updates.length > 0 &&
      !this.#spec.rules.some((rule) => rule.isDone && this.#fires(rule, tentative, undefined))
    )
      deviates = true;
    if (deviates && !this.#softRefused.includes(key)) {
      if (!this.#approving) this.#softRefused.push(key);
      return this.#verdict('revise', code, performed, 'soft');
    }

    // 7. approval
    const plan: Plan = { updates: proposal.updates, rules: deciding, finish: false, action };
    // §5.2: a declared objective narrows what is performed; a firing @confirm rule of the
    // same action still demands approval.
    const narrowedAway = this.#spec.rules.filter(
      (rule) =>
        !rule.isDone &&
        proposal.objective !== undefined &&
        action !== undefined &&
        rule.action?.predicate.name === action.predicate.name &&
        rule.head !== proposal.objective &&
        rule.confirm !== undefined &&
        this.#hasBudget(rule, action) &&
        this.#fires(rule, tentative, action),
    );
    const confirmCode = [...deciding, ...narrowedAway].some((rule) => rule.confirm !== undefined)
      ? 'rule-confirm'
      : confirmGuard
        ? 'guard-confirm'
        : unplannedConfirm
          ? 'unplanned-critical'
          : undefined;
    if (confirmCode !== undefined && !this.#approving) {
      this.#pending = { ...plan, proposal, observations: this.#observations };
      return this.#verdict('confirm', confirmCode, performed);
    }

    // 8. allow and commit
    this.#commit(plan);
    return this.#verdict('allow', undefined, performed);
  }

  /** Observations update state without a decision, all or nothing. */
  observe(input: unknown): boolean {
    const kept: Update[] = [];
    try {
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        throw new Invalid('not an object');
      const updates = this.#readUpdates((input as Record<string, unknown>)['updates'], true, kept);
      this.#commit({ updates, rules: [], finish: false });
      this.#observations++;
      return true;
    } catch (error) {
      if (!(error instanceof Invalid)) throw error;
      // E1: the results it carried came, and could not be read: kept as their calls.
      if (kept.length > 0) {
        this.#commit({ updates: kept, rules: [], finish: false });
        this.#observations++;
      }
      return false;
    }
  }

  resolve(approved: boolean): { readonly ok: boolean; readonly committed: boolean } {
    const plan = this.#pending;
    this.#pending = undefined;
    if (!plan) return { ok: false, committed: false };
    if (plan.escalated !== undefined) delete this.#refusals[plan.escalated];
    if (!approved) return { ok: true, committed: false };
    if (plan.observations === this.#observations || plan.proposal === undefined) {
      this.#commit(plan);
      return { ok: true, committed: true };
    }
    // §6: the state changed since approval was asked, so the proposal is checked again; a
    // person's overruling of repeated refusals stands, except against a reject guard.
    if (plan.escalated !== undefined) {
      const tentative = this.#applied(this.#state, plan.proposal.updates);
      if (this.#guards(plan.proposal, tentative) === 'reject')
        return { ok: false, committed: false };
      // §8: no person overrules the policy; it judges the approved call again in full.
      const policy = this.#options.policy;
      if (policy && strictness(this.#judge(policy, plan.proposal, tentative)) >= 2)
        return { ok: false, committed: false };
      this.#commit(plan);
      return { ok: true, committed: true };
    }
    this.#approving = true;
    try {
      const verdict = this.#composed(plan.proposal);
      return { ok: verdict.decision === 'allow', committed: verdict.decision === 'allow' };
    } finally {
      this.#approving = false;
    }
  }

  status(): ReferenceStatus {
    return {
      done: this.#doneHolds(),
      finished: this.#finished,
      // The intent's objectives only (§8: the policy counts its own apart).
      achieved: Object.fromEntries(
        Object.entries(this.#achieved).filter(
          ([name, count]) => count > 0 && this.#spec.objectives.has(name),
        ),
      ),
      pending: this.#pending !== undefined,
    };
  }
}
