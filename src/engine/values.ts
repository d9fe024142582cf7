import {
  formatDate,
  formatDateTime,
  formatTime,
  normalizeText,
  parseDate,
  parseDateTime,
  parseTime,
  type VariableType,
} from '../language/index.js';
import { textParts } from '../language/text.js';
import { confusableSkeletons } from '../language/unicode/skeleton.js';
import { type SessionClock, wallClock } from './clock.js';

/** A text's confusable skeletons (see language/unicode/skeleton.ts), whole and in parts. */
export interface TextSkeletons {
  readonly cased: string;
  readonly folded: string;
  readonly casedParts: readonly string[];
  readonly foldedParts: readonly string[];
}

/**
 * Runtime values of state variables and action arguments, one representation per
 * type: numbers for number/date/time/datetime (see language/temporal.ts), booleans,
 * enum members as their canonical spelling, text with its normalised key computed
 * once when it enters the session, and arrays for lists.
 */
export class TextValue {
  #parts: readonly string[] | undefined;
  #skeletons: TextSkeletons | undefined;

  constructor(
    readonly raw: string,
    /** `normalizeText(raw)`: what every text operator sees. */
    readonly key: string,
  ) {}

  /**
   * The parts of the normalized text a tool might read as separate values (`textParts`):
   * guards test them too. Computed on first use and kept; rules never ask.
   */
  get parts(): readonly string[] {
    this.#parts ??= textParts(this.key);
    return this.#parts;
  }

  /** The confusable skeletons of the text and of its parts, for guards (computed once). */
  get skeletons(): TextSkeletons {
    if (this.#skeletons === undefined) {
      const { cased, folded } = confusableSkeletons(this.raw);
      this.#skeletons = {
        cased,
        folded,
        casedParts: textParts(cased),
        foldedParts: textParts(folded),
      };
    }
    return this.#skeletons;
  }
}

export type ScalarValue = number | boolean | string | TextValue;
export type Value = ScalarValue | readonly ScalarValue[];

export function textValue(raw: string): TextValue {
  // normalizeText has its own fast path for plain ASCII, the common case.
  return new TextValue(raw, normalizeText(raw));
}

export function isTextValue(value: unknown): value is TextValue {
  return value instanceof TextValue;
}

export type Parsed =
  | { readonly ok: true; readonly value: Value }
  | { readonly ok: false; readonly problem: string };

const ok = (value: Value): Parsed => ({ ok: true, value });
const bad = (problem: string): Parsed => ({ ok: false, problem });

function describeInput(input: unknown): string {
  if (typeof input === 'string')
    return JSON.stringify(input.length > 60 ? `${input.slice(0, 60)}…` : input);
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'object') return 'an object';
  return String(input);
}

const numberShape = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const twelveHour = /^(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s*m\.?$/i;

function parseNumber(input: unknown): Parsed {
  if (typeof input === 'number')
    return Number.isFinite(input) ? ok(input) : bad(`${input} is not a finite number`);
  if (typeof input === 'string' && numberShape.test(input.trim())) return ok(Number(input.trim()));
  return bad(`${describeInput(input)} is not a number`);
}

function relativeDay(text: string, clock: SessionClock): number | undefined {
  const lower = text.toLowerCase();
  if (lower === 'today') return clock.today;
  if (lower === 'tomorrow') return clock.today + 1;
  if (lower === 'yesterday') return clock.today - 1;
  return undefined;
}

/** An ISO string with an offset names an instant; it is read as wall-clock time in the session's zone. */
function instantWallClock(
  text: string,
  clock: SessionClock,
): { days: number; seconds: number } | undefined {
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(text))
    return undefined;
  const instant = new Date(text.replace(' ', 'T'));
  if (Number.isNaN(instant.getTime())) return undefined;
  return wallClock(instant, clock.timeZone);
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
): Parsed {
  if (typeof input !== 'string')
    return bad(`${describeInput(input)} is not a ${kind === 'datetime' ? 'date-time' : kind}`);
  const text = input.trim();
  const lower = text.toLowerCase();
  const instant = instantWallClock(text, clock);
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

function parseText(input: unknown): Parsed {
  if (typeof input === 'string') return ok(textValue(input));
  if (typeof input === 'number' || typeof input === 'boolean') return ok(textValue(String(input)));
  if (typeof input === 'object' && input !== null) return ok(textValue(JSON.stringify(input)));
  return bad(`${describeInput(input)} is not text`);
}

function parseScalar(
  input: unknown,
  type: Exclude<VariableType, { kind: 'list' }>,
  clock: SessionClock,
): Parsed {
  switch (type.kind) {
    case 'text':
      return parseText(input);
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
      return parseTemporal(input, type.kind, clock);
    case 'enum': {
      const text =
        typeof input === 'string'
          ? input
          : typeof input === 'number' || typeof input === 'boolean'
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

/** Upper bound on list values from agents and tools, against hostile input. */
export const maxListValueLength = 10_000;

/**
 * Reads a proposal or observation value by the variable's type (FORMATS.md §2):
 * strings are parsed (`"18:00"`, `"500"`, `"true"`, `"today"`), JSON numbers and
 * booleans taken as they are, objects given for text kept as their JSON text.
 */
export function parseValue(input: unknown, type: VariableType, clock: SessionClock): Parsed {
  if (type.kind !== 'list') return parseScalar(input, type, clock);
  const elements = Array.isArray(input) ? input : [input];
  if (elements.length > maxListValueLength)
    return bad(`a list of ${elements.length} elements is too long`);
  const values: ScalarValue[] = [];
  for (const element of elements) {
    const parsed = parseScalar(element, { kind: type.element }, clock);
    if (!parsed.ok) return bad(`an element of the list: ${parsed.problem}`);
    values.push(parsed.value as ScalarValue);
  }
  return ok(values);
}

/** How a value reads in feedback: the way a user would write it. */
export function formatValue(value: Value, type: VariableType): string {
  if (Array.isArray(value)) {
    const element: VariableType = type.kind === 'list' ? { kind: type.element } : type;
    return `[${value.map((item) => formatValue(item, element)).join(', ')}]`;
  }
  if (isTextValue(value)) return JSON.stringify(value.raw);
  switch (type.kind) {
    case 'date':
      return formatDate(value as number);
    case 'time':
      return formatTime(value as number);
    case 'datetime':
      return formatDateTime(value as number);
    default:
      return String(value);
  }
}

/** A canonical string for identity checks (identical proposals, instance keys). */
export function valueKey(value: Value | undefined): string {
  if (value === undefined) return '∅';
  if (Array.isArray(value)) return `[${value.map((item) => valueKey(item)).join('\u0001')}]`;
  if (isTextValue(value)) return `t:${value.key}`;
  return `${typeof value}:${String(value)}`;
}
