import {
  type Decimal,
  defaultLimits,
  formatDate,
  formatDateTime,
  formatTime,
  isDecimal,
  maxSignificantDigits,
  type NumberProblem,
  normalizeText,
  parseDate,
  parseDateTime,
  parseTime,
  readNumber,
  type VariableType,
} from '../language/index.js';
import type { ConfusableSkeletons } from '../language/unicode/skeleton.js';
import { type SessionClock, wallClock } from './clock.js';
import { type EngineParts, requirePart } from './engine-parts.js';
import { plainDataProblem } from './plain-data.js';
import { valueParts } from './value-parts.js';

/** The parts of a text's two confusable skeletons (see language/unicode/skeleton.ts). */
export interface SkeletonParts {
  readonly cased: readonly string[];
  readonly folded: readonly string[];
}

/**
 * The length up to which a text keeps what the deny-list reading computes of it (its
 * parts, skeletons); a longer one keeps verdicts instead (`TextValue.verdict`).
 */
export const shortTextLength = 8_192;

/**
 * Whether a text keeps its parts once computed: a short one does, and a long one whose
 * parts are long (a page: few, long parts). A long text of many short parts computes
 * them again when read: as separate strings they would take many times the memory of
 * the text (a 1 MB list of short items, ~15 MB with its skeletons' parts), and a
 * session keeps what it observed (S1).
 */
function keepsParts(text: string, parts: readonly unknown[]): boolean {
  return text.length <= shortTextLength || parts.length * 16 <= text.length;
}

/** What a `TextValue` computes of itself only when a test or a path reads it. */
interface TextReadings {
  parts?: readonly string[];
  skeletons?: ConfusableSkeletons;
  skeletonParts?: SkeletonParts;
  /** The verdicts of deny-list tests on a long text (`verdict`), by test. */
  verdicts?: WeakMap<object, boolean>;
  /** … and of comparisons with bound values, by the value (the latest few). */
  comparisons?: Map<string, boolean>;
  /** A copy a test reads a long text on (`verdict`): dropped after, so it keeps what it computes. */
  scratch?: true;
  json?: unknown;
  jsonRead?: true;
}

/**
 * Runtime values of state variables and action arguments, one representation per
 * type: numbers for number/date/time/datetime (see language/temporal.ts), booleans,
 * enum members as their canonical spelling, text with its normalised key computed
 * once, when first read, and arrays for lists.
 */
export class TextValue {
  #key: string | undefined;
  readonly #isJson: boolean;
  /**
   * What only some texts ever compute (deny-list readings, verdicts, JSON), apart: a
   * session keeps every text argument it committed, so a text that no guard or path
   * reads is its raw text, its key and two more fields.
   */
  #readings: TextReadings | undefined;

  constructor(
    readonly raw: string,
    /** `normalizeText(raw)`, when the caller has it already. */
    key?: string,
    isJson = false,
  ) {
    this.#key = key;
    this.#isJson = isJson;
  }

  /** The readings, made when the first is kept. */
  #kept(): TextReadings {
    this.#readings ??= {};
    return this.#readings;
  }

  /**
   * `normalizeText(raw)`: what every text operator sees. Computed on first use and
   * kept: a tool result no rule reads costs its raw text only (S1).
   */
  get key(): string {
    this.#key ??= normalizeText(this.raw);
    return this.#key;
  }

  /**
   * The text is the JSON text of a value a `json` variable was given (an object, an
   * array, a number, a boolean), not a string: paths read its structure. A string that
   * merely looks like JSON is never read as structure.
   */
  get isJson(): boolean {
    return this.#isJson;
  }

  /** The value paths and filters see (LANGUAGE.md §7): the JSON data, or the string itself. */
  get json(): unknown {
    if (!this.#isJson) return this.raw;
    const readings = this.#kept();
    if (!readings.jsonRead) {
      readings.json = JSON.parse(this.raw);
      readings.jsonRead = true;
    }
    return readings.json;
  }

  /**
   * The parts of the normalized text a tool might read as separate values (`valueParts`):
   * the deny-list reading tests them too. Computed on first use, kept for a short text.
   */
  get parts(): readonly string[] {
    const known = this.#readings?.parts;
    if (known !== undefined) return known;
    const parts = valueParts(this.key);
    if (keepsParts(this.key, parts)) this.#kept().parts = parts;
    return parts;
  }

  /**
   * The verdict of a deny-list test (guard-constraint-test.ts: guards, `not P(…)`) on
   * this text. A long text keeps the verdict, not what the test read to reach it: its
   * normalized text, skeletons and parts are computed on a copy and dropped (each
   * about as large as the text or, for parts, many times larger: S1), and the test does
   * not run again on it — a page read by a `not … contains` costs every later check
   * nothing. A short text keeps its readings, as before.
   */
  verdict(test: object | string, compute: (text: TextValue) => boolean): boolean {
    if (this.raw.length <= shortTextLength) return compute(this);
    if (typeof test === 'string') return this.#comparison(test, compute);
    const known = this.#readings?.verdicts?.get(test);
    if (known !== undefined) return known;
    const verdict = compute(this.#copy());
    const readings = this.#kept();
    readings.verdicts ??= new WeakMap();
    readings.verdicts.set(test, verdict);
    return verdict;
  }

  #copy(): TextValue {
    const copy = new TextValue(this.raw, this.#key, this.#isJson);
    copy.#kept().scratch = true;
    return copy;
  }

  /**
   * A comparison with a bound value (join.ts), named by the comparison and the value: the
   * latest 32 are kept, for values of up to 1,024 characters, so that what a session
   * keeps stays bounded however many values an agent proposes.
   */
  #comparison(name: string, compute: (text: TextValue) => boolean): boolean {
    const known = this.#readings?.comparisons?.get(name);
    if (known !== undefined) return known;
    const verdict = compute(this.#copy());
    if (name.length > 1_024) return verdict;
    const readings = this.#kept();
    readings.comparisons ??= new Map();
    const comparisons = readings.comparisons;
    if (comparisons.size >= 32) {
      const oldest = comparisons.keys().next().value;
      if (oldest !== undefined) comparisons.delete(oldest);
    }
    comparisons.set(name, verdict);
    return verdict;
  }

  /**
   * The confusable skeletons of the text, for guards, by the confusables of `parts`: kept
   * by a short text, and by the copy a long one reads a test on (`verdict`); a long text
   * itself keeps verdicts.
   */
  skeletons(parts: EngineParts): ConfusableSkeletons {
    const known = this.#readings?.skeletons;
    if (known !== undefined) return known;
    const skeletons = requirePart(parts, 'confusables').skeletons(this.raw);
    if (this.raw.length <= shortTextLength || this.#readings?.scratch === true)
      this.#kept().skeletons = skeletons;
    return skeletons;
  }

  /** The parts of the skeletons, as `parts` of the text (kept for a short text). */
  skeletonParts(engineParts: EngineParts): SkeletonParts {
    const known = this.#readings?.skeletonParts;
    if (known !== undefined) return known;
    const { cased, folded } = this.skeletons(engineParts);
    const parts = { cased: valueParts(cased), folded: valueParts(folded) };
    if (keepsParts(cased, parts.cased) && keepsParts(folded, parts.folded))
      this.#kept().skeletonParts = parts;
    return parts;
  }
}

/** Numbers are exact (LANGUAGE.md §5.1): a plain number when a double prints as it, else a `Decimal`. */
export type ScalarValue = number | Decimal | boolean | string | TextValue;
export type Value = ScalarValue | readonly ScalarValue[];

/**
 * What an optional list argument of an action that is not given (or `null`) stands for:
 * the empty list (LANGUAGE.md §5.1). One shared frozen value, so that `absent(arg)` tells
 * it from a `[]` the agent gave — by identity (E6).
 */
export const absentList: Value = Object.freeze([]);

/** Whether an action argument was given: `absent(arg)` holds when it was not. */
export function isGiven(value: Value | undefined): boolean {
  return value !== undefined && value !== absentList;
}

export function textValue(raw: string): TextValue {
  return new TextValue(raw);
}

export function isTextValue(value: unknown): value is TextValue {
  return value instanceof TextValue;
}

export type Parsed =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly problem: string };

const ok = (value: Value): Parsed => ({ ok: true, value });
const bad = (problem: string): Parsed => ({ ok: false, problem });

/** What reading a value accepts (FORMATS.md §2; the sizes come from the session's limits). */
export interface ValueOptions {
  /** Characters of one value: a string given for any type, a text, a list's elements together. */
  readonly maxLength?: number;
  /** Elements of one list. */
  readonly maxListLength?: number;
  /** Nesting of arrays and objects in a value read as JSON text. */
  readonly maxDepth?: number;
  /**
   * The variable takes any JSON value (`VariableDeclaration.jsonText`): objects, arrays
   * and booleans are read as their JSON text. Elsewhere text must be a string (or a
   * number, read as its decimal text).
   */
  readonly json?: boolean;
  /**
   * What a date-time with an offset other than the session zone's means. In a proposal
   * it is refused (`'refuse'`: the tool might read its local part); in an observation it
   * is a fact about an instant, converted into the session's zone (`'convert'`).
   */
  readonly foreignOffsets?: 'refuse' | 'convert';
}

const defaultValueOptions: Required<ValueOptions> = {
  maxLength: defaultLimits.maxValueLength,
  maxListLength: defaultLimits.maxListValueLength,
  maxDepth: defaultLimits.maxValueDepth,
  json: false,
  foreignOffsets: 'refuse',
};

/** Complete options as they are when given complete (the reader's, built once), else merged. */
function completeOptions(options: ValueOptions | undefined): Required<ValueOptions> {
  if (options === undefined) return defaultValueOptions;
  if (
    options.maxLength !== undefined &&
    options.maxListLength !== undefined &&
    options.maxDepth !== undefined &&
    options.json !== undefined &&
    options.foreignOffsets !== undefined
  )
    return options as Required<ValueOptions>;
  return { ...defaultValueOptions, ...options };
}

/** An agent's value quoted in a problem: short, whatever it is. */
function describeInput(input: unknown): string {
  if (typeof input === 'string')
    return JSON.stringify(input.length > 60 ? `${input.slice(0, 60)}…` : input);
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'bigint') return 'a BigInt';
  if (typeof input === 'function') return 'a function';
  if (typeof input === 'symbol') return 'a symbol';
  if (typeof input === 'object') return 'an object';
  return String(input);
}

const twelveHour = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m\.?$/i;

const numberProblems: Readonly<Record<NumberProblem, string>> = {
  shape: 'is not a number',
  digits: `has more than ${maxSignificantDigits} significant digits`,
  overflow: 'is beyond the range of numbers (±1.7976931348623157e308)',
  underflow: 'is too close to zero to be represented (a non-zero number below 5e-324)',
};

/**
 * A JSON number is the decimal `String(n)` (what `JSON.stringify` sends the tool); a
 * string is read exactly, so `"1234567890123456789"` stays that id and
 * `"500.00000000000000001"` stays above 500.
 */
function parseNumber(input: unknown): Parsed {
  if (typeof input === 'number')
    return Number.isFinite(input) ? ok(input) : bad(`${input} is not a finite number`);
  if (typeof input === 'string') {
    const reading = readNumber(input.trim());
    return reading.ok
      ? ok(reading.value)
      : bad(`${describeInput(input)} ${numberProblems[reading.problem]}`);
  }
  return bad(`${describeInput(input)} is not a number`);
}

function relativeDay(text: string, clock: SessionClock): number | undefined {
  const lower = text.toLowerCase();
  if (lower === 'today') return clock.today;
  if (lower === 'tomorrow') return clock.today + 1;
  if (lower === 'yesterday') return clock.today - 1;
  return undefined;
}

const instantShape =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

function formatOffset(seconds: number): string {
  const minutes = Math.round(Math.abs(seconds) / 60);
  const hours = String(Math.floor(minutes / 60)).padStart(2, '0');
  return `${seconds < 0 ? '-' : '+'}${hours}:${String(minutes % 60).padStart(2, '0')}`;
}

/**
 * An ISO string with an offset (`…T05:30:00+14:00`, `…Z`) is accepted only when that
 * offset is the session zone's at that instant, and then means its local part. With
 * another offset the tool might read the local part (05:30) while a conversion into
 * the session's zone says another time, so it is refused (LANGUAGE.md §5.1).
 */
function instantWallClock(
  text: string,
  clock: SessionClock,
  foreignOffsets: 'refuse' | 'convert',
): { days: number; seconds: number } | string | undefined {
  const match = instantShape.exec(text);
  if (!match) return undefined;
  const instant = new Date(text.replace(' ', 'T'));
  const days = parseDate(match[1] ?? '');
  const hours = Number(match[2]);
  const minutes = Number(match[3]);
  const secondsPart = match[4] === undefined ? 0 : Number(match[4]);
  if (
    Number.isNaN(instant.getTime()) ||
    days === undefined ||
    hours > 23 ||
    minutes > 59 ||
    secondsPart > 59
  )
    return undefined;
  const seconds = hours * 3600 + minutes * 60 + secondsPart;
  const zoned = wallClock(instant, clock.timeZone);
  const zonedSeconds = zoned.days * 86_400 + zoned.seconds;
  if (zonedSeconds === days * 86_400 + seconds) return { days, seconds };
  if (foreignOffsets === 'convert') return zoned;
  const zoneOffset = zonedSeconds - Math.floor(instant.getTime() / 1000);
  return `${describeInput(text)} has the offset ${match[5]?.toUpperCase() === 'Z' ? 'Z (+00:00)' : match[5]}, but the session's time zone ${clock.timeZone} is at ${formatOffset(zoneOffset)} then (that instant is ${formatDateTime(zonedSeconds)} there); the tool might read the local time. Give the time in ${clock.timeZone}, without an offset`;
}

function parseTimeText(text: string): number | undefined {
  const direct = parseTime(text);
  if (direct !== undefined) return direct;
  const match = twelveHour.exec(text);
  if (!match) return undefined;
  const hour = Number(match[1]);
  if (hour < 1 || hour > 12) return undefined;
  const base = (hour % 12) + (match[4]?.toLowerCase() === 'p' ? 12 : 0);
  return parseTime(`${base}:${match[2] ?? '00'}${match[3] ? `:${match[3]}` : ''}`);
}

function parseTemporal(
  input: unknown,
  kind: 'date' | 'time' | 'datetime',
  clock: SessionClock,
  foreignOffsets: 'refuse' | 'convert',
): Parsed {
  if (typeof input !== 'string')
    return bad(`${describeInput(input)} is not a ${kind === 'datetime' ? 'date-time' : kind}`);
  const text = input.trim();
  const lower = text.toLowerCase();
  const instant = instantWallClock(text, clock, foreignOffsets);
  if (typeof instant === 'string') return bad(instant);
  const [datePart, timePart] = text.includes('T') ? text.split('T') : text.split(' ');
  if (kind === 'date') {
    const days =
      parseDate(text) ?? relativeDay(text, clock) ?? (lower === 'now' ? clock.today : undefined);
    if (days !== undefined) return ok(days);
    if (instant) return ok(instant.days);
    const fromDateTime = datePart === undefined ? undefined : parseDate(datePart);
    if (
      fromDateTime !== undefined &&
      timePart !== undefined &&
      parseTimeText(timePart) !== undefined
    ) {
      return ok(fromDateTime);
    }
    return bad(`${describeInput(input)} is not a date (expected YYYY-MM-DD)`);
  }
  if (kind === 'time') {
    const seconds = parseTimeText(text) ?? (lower === 'now' ? clock.time : undefined);
    if (seconds !== undefined) return ok(seconds);
    if (instant) return ok(instant.seconds);
    if (datePart !== undefined && timePart !== undefined && parseDate(datePart) !== undefined) {
      const fromDateTime = parseTimeText(timePart);
      if (fromDateTime !== undefined) return ok(fromDateTime);
    }
    return bad(`${describeInput(input)} is not a time (expected HH:MM)`);
  }
  if (lower === 'now') return ok(clock.dateTime);
  const relative = relativeDay(text, clock);
  if (relative !== undefined) return ok(relative * 86_400);
  if (instant) return ok(instant.days * 86_400 + instant.seconds);
  const direct = parseDateTime(text.replace(' ', 'T'));
  if (direct !== undefined) return ok(direct);
  const day = parseDate(text);
  if (day !== undefined) return ok(day * 86_400);
  if (datePart !== undefined && timePart !== undefined) {
    const days = parseDate(datePart);
    const seconds = parseTimeText(timePart);
    if (days !== undefined && seconds !== undefined) return ok(days * 86_400 + seconds);
  }
  return bad(`${describeInput(input)} is not a date-time (expected YYYY-MM-DDTHH:MM)`);
}

/** JSON text with keys in order: one text per value, whatever order a tool wrote. */
export function canonicalJson(data: unknown): string {
  if (Array.isArray(data)) return `[${data.map(canonicalJson).join(',')}]`;
  if (isDecimal(data)) return data.toString();
  if (typeof data === 'object' && data !== null) {
    const record = data as Readonly<Record<string, unknown>>;
    // Like JSON.stringify, a key whose value is undefined is left out.
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(',')}}`;
  }
  return JSON.stringify(data) ?? 'null';
}

/**
 * Text is a string, or a finite number read as its decimal text (what the tool
 * receives). An array or object is a different value than any text a guard could
 * name (`["evil@x.com"]` is not `"evil@x.com"`), so it is refused — unless the schema
 * says the tool takes any JSON there, where it is read as its JSON text.
 */
function parseText(input: unknown, options: Required<ValueOptions>, maxLength: number): Parsed {
  if (typeof input === 'string') return ok(textValue(input));
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return bad(`${describeInput(input)} is not text`);
    const text = String(input);
    // For a json variable the number stays a number to paths; its text is the same.
    return ok(options.json ? new TextValue(text, undefined, true) : textValue(text));
  }
  if (options.json && (typeof input === 'boolean' || typeof input === 'object') && input !== null) {
    // Serialising a host's object could throw or never end (BigInt, a cycle, `toJSON`,
    // deep nesting): it is checked first, at a cost bounded by the length allowed.
    const problem = plainDataProblem(input, { maxDepth: options.maxDepth, maxValues: maxLength });
    if (problem !== undefined) return bad(`it is not JSON data: ${problem}`);
    // Canonical (keys in order): a json value compared whole is its canonical text (§7).
    const text = canonicalJson(input);
    if (text.length > maxLength)
      return bad(`its JSON text has ${text.length} characters; at most ${maxLength} are accepted`);
    return ok(new TextValue(text, undefined, true));
  }
  if (typeof input === 'boolean')
    return bad(`${describeInput(input)} is not text (give a string, e.g. "${input}")`);
  return bad(`${describeInput(input)} is not text (give a string)`);
}

function parseScalar(
  input: unknown,
  type: Exclude<VariableType, { kind: 'list' }>,
  clock: SessionClock,
  options: Required<ValueOptions>,
  maxLength: number,
): Parsed {
  // Before anything reads the string: a huge value is refused at the cost of its length.
  if (typeof input === 'string' && input.length > maxLength)
    return bad(`it has ${input.length} characters; at most ${maxLength} are accepted`);
  switch (type.kind) {
    case 'text':
      return parseText(input, options, maxLength);
    case 'number':
      return parseNumber(input);
    case 'boolean':
      if (typeof input === 'boolean') return ok(input);
      if (typeof input === 'string' && /^(true|false)$/i.test(input.trim()))
        return ok(input.trim().toLowerCase() === 'true');
      return bad(`${describeInput(input)} is not true or false`);
    case 'date':
    case 'time':
    case 'datetime':
      return parseTemporal(input, type.kind, clock, options.foreignOffsets);
    case 'enum': {
      const text =
        typeof input === 'string'
          ? input
          : (typeof input === 'number' && Number.isFinite(input)) || typeof input === 'boolean'
            ? String(input)
            : undefined;
      if (text === undefined)
        return bad(`${describeInput(input)} is not one of ${type.values.join(', ')}`);
      const exact = type.values.find((member) => member === text);
      if (exact !== undefined) return ok(exact);
      const key = normalizeText(text);
      const loose = type.values.find((member) => normalizeText(member) === key);
      return loose === undefined
        ? bad(`${describeInput(input)} is not one of ${type.values.join(', ')}`)
        : ok(loose);
    }
  }
}

/**
 * The most common values read without the general reader: a string for a text variable,
 * a finite JSON number for a number variable — what `parseValue` reads them as, given
 * the same `maxLength`. Undefined for anything else, which `parseValue` reads.
 */
export function readCommonValue(
  input: unknown,
  type: VariableType,
  maxLength: number,
): Value | undefined {
  if (type.kind === 'text') {
    return typeof input === 'string' && input.length <= maxLength ? textValue(input) : undefined;
  }
  if (type.kind === 'number') {
    return typeof input === 'number' && Number.isFinite(input) ? input : undefined;
  }
  return undefined;
}

/**
 * Reads a proposal or observation value by the variable's type (FORMATS.md §2):
 * strings are parsed (`"18:00"`, `"500"`, `"true"`, `"today"`), JSON numbers and
 * booleans taken as they are. A value of the wrong JSON type is a problem: a list
 * must be an array (a bare string is not wrapped: `"a@x.com, b@y.com"` would be one
 * element a guard on elements never sees), text a string or a number.
 */
export function parseValue(
  input: unknown,
  type: VariableType,
  clock: SessionClock,
  options?: ValueOptions,
): Parsed {
  const settings = completeOptions(options);
  if (type.kind !== 'list') return parseScalar(input, type, clock, settings, settings.maxLength);
  if (!Array.isArray(input)) {
    return bad(
      `${describeInput(input)} is not a list (give an array, e.g. [${type.element === 'text' ? '"a", "b"' : '1, 2'}])`,
    );
  }
  if (input.length > settings.maxListLength)
    return bad(
      `a list of ${input.length} elements is too long (at most ${settings.maxListLength})`,
    );
  const values: ScalarValue[] = [];
  const elementType = { kind: type.element };
  // A list is one value: its elements together are bounded like one text.
  let remaining = settings.maxLength;
  for (const element of input) {
    const parsed = parseScalar(element, elementType, clock, settings, remaining);
    if (!parsed.ok) return bad(`an element of the list: ${parsed.problem}`);
    const value = parsed.value as ScalarValue;
    remaining -= isTextValue(value) ? value.raw.length : 0;
    values.push(value);
  }
  return ok(values);
}

/** Cuts text to `maxLength` characters, marking the cut with an ellipsis. */
export function cutText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  // A slice may share the whole original's memory (V8 keeps a sliced string's parent
  // alive): the kept part is copied, so that echoing a megabyte keeps 200 characters.
  return `${text
    .slice(0, Math.max(0, maxLength - 1))
    .split('')
    .join('')}…`;
}

/**
 * How a value reads in feedback: the way a user would write it, cut to `maxLength`
 * characters (an agent's value is echoed into a prompt; `limits.maxEchoLength`).
 */
export function formatValue(
  value: Value,
  type: VariableType,
  maxLength: number = Number.POSITIVE_INFINITY,
): string {
  if (Array.isArray(value)) {
    const element: VariableType = type.kind === 'list' ? { kind: type.element } : type;
    let text = '[';
    for (const [index, item] of value.entries()) {
      // Stop as soon as the cut is certain: a long list is not formatted whole.
      if (text.length > maxLength) break;
      text += `${index > 0 ? ', ' : ''}${formatValue(item, element, maxLength)}`;
    }
    return cutText(`${text}]`, maxLength);
  }
  if (isTextValue(value)) {
    // Only the part that can be shown is quoted (the raw text may be a megabyte).
    const shown = value.raw.length > maxLength ? value.raw.slice(0, maxLength) : value.raw;
    return cutText(JSON.stringify(shown), maxLength);
  }
  switch (type.kind) {
    case 'date':
      return formatDate(value as number);
    case 'time':
      return formatTime(value as number);
    case 'datetime':
      return formatDateTime(value as number);
    default:
      return cutText(String(value), maxLength);
  }
}

/** A canonical string for identity checks (identical proposals, instance keys). */
export function valueKey(value: Value | undefined): string {
  if (value === undefined) return '∅';
  if (Array.isArray(value)) return `[${value.map((item) => valueKey(item)).join('\u0001')}]`;
  if (isTextValue(value)) return `t:${value.key}`;
  // One key per decimal: a plain number and a Decimal never denote the same value.
  if (isDecimal(value)) return `number:${value.toString()}`;
  return `${typeof value}:${String(value)}`;
}
