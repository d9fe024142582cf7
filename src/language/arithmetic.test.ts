import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeNumber, sumNumbers } from './arithmetic.js';
import { type NumberValue, numberText, readNumber } from './decimal.js';

/** A number of the language read from decimal text, as a tool's JSON gives it. */
function number(text: string): NumberValue {
  const reading = readNumber(text);
  if (!reading.ok) throw new Error(`not a number: ${text}`);
  return reading.value;
}

/** The sum one exact addition at a time: what `sumNumbers` must equal. */
function stepwise(list: readonly NumberValue[]): NumberValue | undefined {
  let total: NumberValue | undefined = 0;
  for (const item of list) {
    if (total === undefined) return undefined;
    total = computeNumber(total, '+', item);
  }
  return total;
}

const text = (value: NumberValue | undefined) =>
  value === undefined ? undefined : numberText(value);

describe('sumNumbers: the exact sum of a list (LANGUAGE.md §9)', () => {
  it('adds amounts in cents exactly, where doubles would not', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(sumNumbers([0.1, 0.2])).toBe(0.3);
    expect(sumNumbers([0.1, 0.2, 0.7, 10.25, 99.99])).toBe(111.24);
    expect(sumNumbers([-0.05, 0.04])).toBe(-0.01);
    expect(sumNumbers([])).toBe(0);
  });

  it('keeps the digits no double holds: 19-digit ids and long decimals', () => {
    const big = number('1234567890123456789');
    expect(text(sumNumbers([big, 1]))).toBe('1234567890123456790');
    expect(text(sumNumbers([number('500.00000000000000001'), 0.5]))).toBe('500.50000000000000001');
    // A total past the safe integers leaves the integer path for the exact one.
    expect(text(sumNumbers([9007199254740991, 2]))).toBe('9007199254740993');
  });

  it('does not fit when the total is beyond the range of numbers', () => {
    expect(sumNumbers([1e308, 1e308])).toBeUndefined();
  });

  it('equals the sum made one exact addition at a time, for any list', () => {
    const decimalText = fc
      .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 22n }), fc.integer({ min: 0, max: 20 }))
      .map(([negative, digits, places]) => {
        const all = digits.toString().padStart(places + 1, '0');
        const point = all.length - places;
        return `${negative ? '-' : ''}${all.slice(0, point)}${places > 0 ? `.${all.slice(point)}` : ''}`;
      });
    const cents = fc.integer({ min: -10_000_000, max: 10_000_000 }).map((value) => value / 100);
    const item = fc.oneof(
      cents,
      fc.integer(),
      // Doubles of every shape, but not so far apart that the one-addition-at-a-time
      // reference cuts its totals to 60 significant digits (it would then be the
      // inexact one).
      fc
        .double({ noNaN: true, noDefaultInfinity: true, min: -1e20, max: 1e20 })
        .filter((value) => value === 0 || Math.abs(value) >= 1e-6),
      decimalText.map(number),
    );
    fc.assert(
      fc.property(fc.array(item, { maxLength: 30 }), (list) => {
        expect(text(sumNumbers(list))).toBe(text(stepwise(list)));
      }),
      { numRuns: 2_000 },
    );
  });
});
