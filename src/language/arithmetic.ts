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

const units: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** The seconds of a duration literal (`90s`, `30m`, `3h`, `2d`); undefined if malformed. */
export function durationSeconds(text: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match) return undefined;
  const seconds = Number(match[1]) * (units[match[2] ?? ''] ?? Number.NaN);
  return Number.isSafeInteger(seconds) ? seconds : undefined;
}
