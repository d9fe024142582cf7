import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareNumbers,
  isDecimal,
  type NumberValue,
  numbersEqual,
  numberText,
  readNumber,
} from './decimal.js';

function read(text: string): NumberValue {
  const reading = readNumber(text);
  if (!reading.ok) throw new Error(`${text}: ${reading.problem}`);
  return reading.value;
}

describe('readNumber', () => {
  it('gives a plain number when a double prints as the decimal written', () => {
    for (const [text, value] of [
      ['500', 500],
      ['-12.5', -12.5],
      ['1e3', 1000],
      ['.5', 0.5],
      ['5.', 5],
      ['+7', 7],
      ['0.10', 0.1],
      ['-0', 0],
      ['1234567890123456800', 1234567890123456800],
      ['5e-324', 5e-324],
      ['1.7976931348623157e308', Number.MAX_VALUE],
    ] as const) {
      expect(read(text)).toBe(value);
    }
    expect(Object.is(read('-0'), -0)).toBe(false);
  });

  it('keeps a decimal that no double prints as, exactly', () => {
    for (const text of [
      '1234567890123456789',
      '500.00000000000000001',
      '0.1000000000000000000001',
      '-98765432109876543210.5',
      '3e-324',
    ]) {
      const value = read(text);
      expect(isDecimal(value)).toBe(true);
      expect(compareNumbers(read(numberText(value)), value)).toBe(0);
    }
    expect(numberText(read('1234567890123456789'))).toBe('1234567890123456789');
    expect(numberText(read('500.00000000000000001'))).toBe('500.00000000000000001');
    expect(numberText(read('-12345678901234567890e30'))).toBe('-1.234567890123456789e+49');
    expect(numberText(read('1.00000000000000000001e-10'))).toBe('1.00000000000000000001e-10');
    expect(numberText(read('0.0000012345678901234567891'))).toBe('0.0000012345678901234567891');
  });

  it('refuses what it cannot keep: out of range, too close to zero, too many digits, not a number', () => {
    expect(readNumber('1e400')).toEqual({ ok: false, problem: 'overflow' });
    expect(readNumber('-1e400')).toEqual({ ok: false, problem: 'overflow' });
    expect(readNumber('1e-400')).toEqual({ ok: false, problem: 'underflow' });
    expect(readNumber('2e-324')).toEqual({ ok: false, problem: 'underflow' });
    expect(readNumber('1'.repeat(101))).toEqual({ ok: false, problem: 'digits' });
    expect(readNumber(`${'1'.repeat(100)}${'0'.repeat(200)}`).ok).toBe(true);
    for (const text of ['', '.', '+', 'e5', '1e', '0x10', 'Infinity', ' 1', '1_000', 'NaN'])
      expect(readNumber(text)).toEqual({ ok: false, problem: 'shape' });
    expect(read('0e99999999999999999999')).toBe(0);
  });
});

describe('compareNumbers', () => {
  it('compares exactly across representations', () => {
    const id = read('1234567890123456789');
    expect(compareNumbers(id, 1234567890123456800)).toBe(-1);
    expect(compareNumbers(id, read('1234567890123456788'))).toBe(1);
    expect(compareNumbers(read('500.00000000000000001'), 500)).toBe(1);
    expect(compareNumbers(-500, read('-500.00000000000000001'))).toBe(1);
    expect(compareNumbers(read('-1e-300'), read('3e-324'))).toBe(-1);
    expect(compareNumbers(0, read('3e-324'))).toBe(-1);
    expect(numbersEqual(id, read('1234567890123456789'))).toBe(true);
    expect(numbersEqual(id, 1234567890123456800)).toBe(false);
  });

  it('orders like the decimals it is given, whatever their representation', () => {
    const decimalText = fc
      .tuple(
        fc.boolean(),
        fc.bigInt({ min: 1n, max: 10n ** 30n }),
        fc.integer({ min: -40, max: 40 }),
      )
      .map(([negative, digits, exponent]) => `${negative ? '-' : ''}${digits}e${exponent}`);
    fc.assert(
      fc.property(decimalText, decimalText, (left, right) => {
        // Scale both to integers by the same power of ten and compare as BigInts.
        const scaled = (text: string) => {
          const [mantissa = '', exponent = '0'] = text.split('e');
          return BigInt(mantissa) * 10n ** BigInt(Number(exponent) + 40);
        };
        const a = scaled(left);
        const b = scaled(right);
        const expected = a < b ? -1 : a > b ? 1 : 0;
        expect(compareNumbers(read(left), read(right))).toBe(expected);
        expect(numbersEqual(read(left), read(right))).toBe(expected === 0);
      }),
    );
  });

  it('agrees with native comparison on plain numbers', () => {
    fc.assert(
      fc.property(
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        (a, b) => {
          const native = a < b ? -1 : a > b ? 1 : 0;
          expect(compareNumbers(read(String(a)), read(String(b)))).toBe(native);
        },
      ),
    );
  });
});
