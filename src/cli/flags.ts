import { CliError } from './io.js';

/**
 * Number flags are read strictly: `Number()` would take `""` as 0, `0x10` as 16, `1e3`
 * as 1000 and `" 5 "` as 5, so a typo could silently pick a value nobody wrote.
 */
const wholeNumberPattern = /^\d+$/;
const decimalPattern = /^-?\d+(?:\.\d+)?$/;

/**
 * A whole-number flag within bounds, written as plain decimal digits; anything else
 * (signs, exponents, hex, fractions, blanks, values out of range) is a usage error
 * naming the flag.
 */
export function wholeNumber(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const number = wholeNumberPattern.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    throw new CliError(
      `${flag}: '${value}' is not a whole number from ${min} to ${max} (write plain digits)`,
      2,
    );
  }
  return number;
}

/**
 * A decimal flag within bounds, written as digits with an optional sign and fraction
 * (`0.7`, `-1`); exponents, hex, blanks and values out of range are usage errors.
 */
export function decimal(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const number = decimalPattern.test(value) ? Number(value) : Number.NaN;
  if (!Number.isFinite(number) || number < min || number > max) {
    throw new CliError(
      `${flag}: '${value}' is not a number from ${min} to ${max} (write digits, e.g. 0.5)`,
      2,
    );
  }
  return number;
}
