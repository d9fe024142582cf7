import type { ArithmeticOperator } from './ast.js';
import { type NumberValue, numberText, readNumber } from './decimal.js';

/**
 * Exact arithmetic on the language's numbers (LANGUAGE.md §7: `$b * 0.5`): `+ - *` are
 * exact on decimals (a 19-digit id plus one is that id plus one, not a rounded double);
 * `/` is exact when the quotient is a finite decimal and otherwise rounded toward zero at
 * 40 significant digits. The result is read back as a number of the language (a plain
 * double when that prints as it), or undefined when it is out of range or a division by
 * zero — a value that does not fit.
 */

interface Scaled {
  readonly mantissa: bigint;
  /** The value is `mantissa × 10^exponent`. */
  readonly exponent: number;
}

const shape = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/i;

function scaled(value: NumberValue): Scaled | undefined {
  const match = shape.exec(numberText(value));
  if (!match) return undefined;
  const fraction = match[3] ?? '';
  const digits = `${match[2] ?? ''}${fraction}`;
  const mantissa = BigInt(digits) * (match[1] === '-' ? -1n : 1n);
  return { mantissa, exponent: Number(match[4] ?? '0') - fraction.length };
}

function pow10(exponent: number): bigint {
  return 10n ** BigInt(exponent);
}

function text({ mantissa, exponent }: Scaled): string {
  return `${mantissa}e${exponent}`;
}

const divisionDigits = 40;

export function computeNumber(
  left: NumberValue,
  operator: ArithmeticOperator,
  right: NumberValue,
): NumberValue | undefined {
  const a = scaled(left);
  const b = scaled(right);
  if (a === undefined || b === undefined) return undefined;
  // Beyond this the operands are not numbers a tool exchanges; refusing bounds the work.
  if (Math.abs(a.exponent - b.exponent) > 1_000) return undefined;
  let result: Scaled;
  if (operator === '*') {
    result = { mantissa: a.mantissa * b.mantissa, exponent: a.exponent + b.exponent };
  } else if (operator === '/') {
    if (b.mantissa === 0n) return undefined;
    const shift = divisionDigits + b.mantissa.toString().length;
    result = {
      mantissa: (a.mantissa * pow10(shift)) / b.mantissa,
      exponent: a.exponent - b.exponent - shift,
    };
  } else {
    const exponent = Math.min(a.exponent, b.exponent);
    const x = a.mantissa * pow10(a.exponent - exponent);
    const y = b.mantissa * pow10(b.exponent - exponent);
    result = { mantissa: operator === '+' ? x + y : x - y, exponent };
  }
  const reading = readNumber(text(trim(result)));
  return reading.ok ? reading.value : undefined;
}

/**
 * The exact sum of numbers (`sum(…)`, LANGUAGE.md §9), or undefined when it is out of
 * range. One pass: numbers with up to 15 significant digits and few decimals (amounts
 * in cents, the usual case) add as integers of their smallest unit, exactly; any other
 * list adds in one exact accumulator. Either way the total is read back once, so a sum
 * costs about one step per element instead of an exact addition each.
 */
export function sumNumbers(list: readonly NumberValue[]): NumberValue | undefined {
  return sumOfSmallDecimals(list) ?? sumExactly(list);
}

/** The most decimals the integer path takes. */
const maxFastDecimals = 15;
/**
 * Scaled values below this stay exact when rounded: a double's product with a power of
 * ten is off by at most |product| × 2^-52, under one half here.
 */
const maxFastUnits = 2 ** 51;

/**
 * The sum, when every number is a double whose decimal has at most 15 significant
 * digits and `maxFastDecimals` decimals, and each one and the total in units of the
 * smallest decimal stay within `maxFastUnits`; otherwise undefined (the caller adds
 * exactly).
 */
function sumOfSmallDecimals(list: readonly NumberValue[]): NumberValue | undefined {
  let decimals = 0;
  for (const item of list) {
    if (typeof item !== 'number') return undefined;
    const places = decimalPlaces(item);
    if (places === undefined) return undefined;
    if (places > decimals) decimals = places;
  }
  const unit = 10 ** decimals;
  let total = 0;
  for (const item of list) {
    const units = Math.round((item as number) * unit);
    if (!(Math.abs(units) < maxFastUnits)) return undefined;
    total += units;
    if (!Number.isSafeInteger(total)) return undefined;
  }
  if (decimals === 0) return total;
  const negative = total < 0;
  const digits = String(Math.abs(total)).padStart(decimals + 1, '0');
  const point = digits.length - decimals;
  const reading = readNumber(
    `${negative ? '-' : ''}${digits.slice(0, point)}.${digits.slice(point)}`,
  );
  return reading.ok ? reading.value : undefined;
}

/**
 * The decimals of a number's decimal (the one `String(value)` prints), when it has at
 * most 15 significant digits and `maxFastDecimals` decimals; otherwise undefined.
 * Found without printing: the first `d` for which `m = round(value × 10^d)` has at most
 * 15 digits and `m / 10^d` is `value` again — two decimals of at most 15 significant
 * digits never share a double (DBL_DIG), so `m / 10^d` is that decimal.
 */
function decimalPlaces(value: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  for (let places = 0; places <= maxFastDecimals; places++) {
    const unit = 10 ** places;
    const units = Math.round(value * unit);
    if (!(Math.abs(units) < 1e15)) return undefined;
    if (units / unit === value) return places;
  }
  return undefined;
}

/** The sum in one exact accumulator: each number scaled once, the total read back once. */
function sumExactly(list: readonly NumberValue[]): NumberValue | undefined {
  let total: Scaled = { mantissa: 0n, exponent: 0 };
  for (const item of list) {
    const next = scaled(item);
    if (next === undefined) return undefined;
    // Beyond this the operands are not numbers a tool exchanges; refusing bounds the work.
    if (Math.abs(total.exponent - next.exponent) > 1_000) return undefined;
    const exponent = Math.min(total.exponent, next.exponent);
    total = {
      mantissa:
        total.mantissa * pow10(total.exponent - exponent) +
        next.mantissa * pow10(next.exponent - exponent),
      exponent,
    };
  }
  const reading = readNumber(text(trim(total)));
  return reading.ok ? reading.value : undefined;
}

/** Trailing zeros out of the mantissa (and digits beyond what a number may have). */
function trim(value: Scaled): Scaled {
  let { mantissa, exponent } = value;
  if (mantissa === 0n) return { mantissa, exponent: 0 };
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const digits = (mantissa < 0n ? -mantissa : mantissa).toString().length;
  if (digits > 60) {
    const cut = digits - 60;
    mantissa /= pow10(cut);
    exponent += cut;
  }
  return { mantissa, exponent };
}
