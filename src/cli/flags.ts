import { CliError } from './io.js';

/** A whole-number flag within bounds; anything else is a usage error naming the flag. */
export function wholeNumber(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isInteger(number) || number < min || number > max) {
    throw new CliError(`${flag}: '${value}' is not a whole number from ${min} to ${max}`, 2);
  }
  return number;
}

/** A decimal flag within bounds; anything else is a usage error naming the flag. */
export function decimal(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number < min || number > max) {
    throw new CliError(`${flag}: '${value}' is not a number from ${min} to ${max}`, 2);
  }
  return number;
}
