/**
 * Exact decimal numbers (LANGUAGE.md §5.1: numbers compare as exact decimals).
 *
 * A number is a plain JS `number` whenever the decimal it denotes is exactly the
 * shortest round-trip decimal of that double (`String(n)`), which covers every number
 * of up to 15 significant digits and everything a host passes as a JS number (a host's
 * number `n` means the decimal `String(n)`, what `JSON.stringify` sends the tool).
 * Only a decimal that no double prints as — a 19-digit id, `500.00000000000000001` —
 * becomes a {@link Decimal}. Every decimal thus has exactly one representation, so:
 * two plain numbers compare natively (shortest round-trip decimals keep the order of
 * their doubles), a plain number never equals a `Decimal`, and only comparisons that
 * involve a `Decimal` take the exact (slower) path.
 */
export class Decimal {
  #text: string | undefined;

  /** Use {@link readNumber}: a `Decimal` must not denote what a plain number prints as. */
  constructor(
    readonly negative: boolean,
    /** Significant digits: no leading or trailing zeros, never empty (zero is a plain 0). */
    readonly digits: string,
    /** The value is `digits × 10^exponent`. */
    readonly exponent: number,
  ) {}

  /** The canonical decimal text, in the shapes `String(number)` uses; the lexer reads it back exactly. */
  toString(): string {
    this.#text ??= decimalText(this.negative, this.digits, this.exponent);
    return this.#text;
  }

  /** Serialised as its exact text: a JSON number would be rounded by whoever reads it. */
  toJSON(): string {
    return this.toString();
  }
}

/** A number of the language: a double that prints as itself, or an exact decimal. */
export type NumberValue = number | Decimal;

export function isDecimal(value: unknown): value is Decimal {
  return value instanceof Decimal;
}

/** Significant digits a number may have; more is an error (they could not all be meant). */
export const maxSignificantDigits = 100;

export type NumberProblem = 'shape' | 'digits' | 'overflow' | 'underflow';

export type NumberReading =
  | { readonly ok: true; readonly value: NumberValue }
  | { readonly ok: false; readonly problem: NumberProblem };

/** Sign, integer digits, fraction digits, exponent. */
const decimalShape = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** The smallest positive normal double: below it doubles lose precision (subnormals). */
const minNormal = 2.2250738585072014e-308;

interface Parts {
  readonly negative: boolean;
  /** Significant digits; empty for zero. */
  readonly digits: string;
  readonly exponent: number;
}

function parts(text: string): Parts | undefined {
  const match = decimalShape.exec(text);
  if (!match) return undefined;
  const whole = match[2] ?? '';
  const fraction = match[3] ?? '';
  if (whole === '' && fraction === '') return undefined;
  const all = whole + fraction;
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 48) first++;
  if (first === all.length) return { negative: false, digits: '', exponent: 0 };
  let last = all.length - 1;
  while (all.charCodeAt(last) === 48) last--;
  // Only reached for numbers within the double range (checked by the caller first), so
  // the written exponent is small enough to be a safe integer.
  const written = match[4] === undefined ? 0 : Number(match[4]);
  return {
    negative: match[1] === '-',
    digits: all.slice(first, last + 1),
    exponent: written - fraction.length + (all.length - 1 - last),
  };
}

function significantDigits(text: string): number {
  const match = decimalShape.exec(text);
  if (!match) return 0;
  const all = (match[2] ?? '') + (match[3] ?? '');
  let first = 0;
  while (first < all.length && all.charCodeAt(first) === 48) first++;
  if (first === all.length) return 0;
  let last = all.length - 1;
  while (all.charCodeAt(last) === 48) last--;
  return last - first + 1;
}

/**
 * Reads decimal text (`-12`, `3.5`, `1e6`, `.5`; no underscores, no surrounding space)
 * as an exact number. Too many significant digits, a value beyond the double range
 * (`1e400`) or a non-zero value too close to zero for it (`1e-400`) is a problem,
 * never a silent rounding to Infinity or 0.
 */
export function readNumber(text: string): NumberReading {
  const approximate = Number(text);
  // `Number` also accepts hex, binary, `Infinity` and the empty string: check the shape.
  if (Number.isNaN(approximate) || !decimalShape.test(text) || /^[+-]?\.?(?:[eE]|$)/.test(text))
    return { ok: false, problem: 'shape' };
  const significant = significantDigits(text);
  if (significant > maxSignificantDigits) return { ok: false, problem: 'digits' };
  if (significant === 0) return { ok: true, value: 0 };
  if (!Number.isFinite(approximate)) return { ok: false, problem: 'overflow' };
  if (approximate === 0) return { ok: false, problem: 'underflow' };
  // Up to 15 significant digits (DBL_DIG) a normal double keeps the decimal exactly, and
  // its shortest round-trip text is that decimal: no exact arithmetic needed.
  if (significant <= 15 && Math.abs(approximate) >= minNormal)
    return { ok: true, value: approximate };
  const exact = parts(text);
  const shortest = parts(String(approximate));
  if (!exact || !shortest) return { ok: false, problem: 'shape' };
  if (exact.digits === shortest.digits && exact.exponent === shortest.exponent)
    return { ok: true, value: approximate };
  return { ok: true, value: new Decimal(exact.negative, exact.digits, exact.exponent) };
}

function partsOf(value: NumberValue): Parts {
  if (typeof value !== 'number') return value;
  return parts(String(value)) ?? { negative: false, digits: '', exponent: 0 };
}

/** `-1`, `0` or `1` as `a` is less than, equal to or greater than `b`, exactly. */
export function compareNumbers(a: NumberValue, b: NumberValue): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  const left = partsOf(a);
  const right = partsOf(b);
  const leftSign = left.digits === '' ? 0 : left.negative ? -1 : 1;
  const rightSign = right.digits === '' ? 0 : right.negative ? -1 : 1;
  if (leftSign !== rightSign) return leftSign < rightSign ? -1 : 1;
  if (leftSign === 0) return 0;
  // Same sign: compare magnitudes by order of magnitude, then digit by digit (the
  // digits carry no trailing zeros, so a proper prefix is the smaller magnitude).
  const leftMagnitude = left.exponent + left.digits.length;
  const rightMagnitude = right.exponent + right.digits.length;
  let order: number;
  if (leftMagnitude !== rightMagnitude) order = leftMagnitude < rightMagnitude ? -1 : 1;
  else order = left.digits < right.digits ? -1 : left.digits > right.digits ? 1 : 0;
  return order === 0 ? 0 : leftSign * order;
}

export function numbersEqual(a: NumberValue, b: NumberValue): boolean {
  // One representation per decimal: a plain number never equals a Decimal.
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  return a.negative === b.negative && a.exponent === b.exponent && a.digits === b.digits;
}

/** The exact decimal text of a number, as the lexer reads it back (`-0` is `0`). */
export function numberText(value: NumberValue): string {
  return String(value);
}

/** The nearest double (for counts and other places that need a plain number). */
export function approximateNumber(value: NumberValue): number {
  return typeof value === 'number' ? value : Number(value.toString());
}

function decimalText(negative: boolean, digits: string, exponent: number): string {
  const sign = negative ? '-' : '';
  // Digits before the decimal point; the thresholds are those of `String(number)`.
  const point = digits.length + exponent;
  if (exponent >= 0 && point <= 21) return `${sign}${digits}${'0'.repeat(exponent)}`;
  if (exponent < 0 && point > 0) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  if (point <= 0 && point > -6) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  const power = point - 1;
  return `${sign}${mantissa}e${power >= 0 ? '+' : '-'}${Math.abs(power)}`;
}
