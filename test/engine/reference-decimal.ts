/**
 * Exact numbers for the reference evaluator (LANGUAGE.md §5.1 "Values are exact", §7
 * arithmetic), as plain fractions of big integers: a different representation from the
 * engine's decimals, so that the two can disagree when one of them rounds.
 */
export class Fraction {
  private constructor(
    /** Numerator; the sign lives here. */
    readonly numerator: bigint,
    /** Always positive, coprime with the numerator. */
    readonly denominator: bigint,
  ) {}

  static of(numerator: bigint, denominator = 1n): Fraction {
    if (denominator === 0n) throw new Error('a zero denominator');
    const sign = denominator < 0n ? -1n : 1n;
    const divisor = gcd(abs(numerator), abs(denominator)) || 1n;
    return new Fraction((sign * numerator) / divisor, (sign * denominator) / divisor);
  }

  /**
   * A decimal written `-12.5`, `1e-7`, `3.0E+2`; `undefined` for anything else. A JSON
   * number is read as the decimal JavaScript prints it as (its shortest round trip).
   */
  static read(text: string): Fraction | undefined {
    const match = /^([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
    if (!match) return undefined;
    const [, sign = '', whole = '', fraction = '', exponentText = '0'] = match;
    const exponent = Number(exponentText) - fraction.length;
    if (Math.abs(exponent) > 1000) return undefined;
    let numerator = BigInt(`${whole}${fraction}`);
    if (sign === '-') numerator = -numerator;
    return exponent >= 0
      ? Fraction.of(numerator * 10n ** BigInt(exponent))
      : Fraction.of(numerator, 10n ** BigInt(-exponent));
  }

  static fromNumber(value: number): Fraction {
    const read = Fraction.read(String(value));
    if (read === undefined) throw new Error(`not a finite number: ${value}`);
    return read;
  }

  compare(other: Fraction): number {
    const left = this.numerator * other.denominator;
    const right = other.numerator * this.denominator;
    return left < right ? -1 : left > right ? 1 : 0;
  }

  plus(other: Fraction): Fraction {
    return Fraction.of(
      this.numerator * other.denominator + other.numerator * this.denominator,
      this.denominator * other.denominator,
    );
  }

  minus(other: Fraction): Fraction {
    return this.plus(Fraction.of(-other.numerator, other.denominator));
  }

  times(other: Fraction): Fraction {
    return Fraction.of(this.numerator * other.numerator, this.denominator * other.denominator);
  }

  /**
   * LANGUAGE.md §7 (docs/language.md): exact when the quotient is a finite decimal, else
   * cut toward zero at 40 significant digits; `undefined` for a zero divisor.
   */
  dividedBy(other: Fraction): Fraction | undefined {
    if (other.numerator === 0n) return undefined;
    const exact = Fraction.of(
      this.numerator * other.denominator,
      this.denominator * other.numerator,
    );
    let rest = exact.denominator;
    while (rest % 2n === 0n) rest /= 2n;
    while (rest % 5n === 0n) rest /= 5n;
    if (rest === 1n) return exact;
    // 40 significant digits: the k with 10^39 <= |q| * 10^k < 10^40, then the integer part.
    const magnitude = Fraction.of(abs(exact.numerator), exact.denominator);
    const scaled = (k: number) =>
      k >= 0
        ? Fraction.of(magnitude.numerator * 10n ** BigInt(k), magnitude.denominator)
        : Fraction.of(magnitude.numerator, magnitude.denominator * 10n ** BigInt(-k));
    const low = Fraction.of(10n ** 39n);
    const high = Fraction.of(10n ** 40n);
    let k = 0;
    while (scaled(k).compare(low) < 0) k++;
    while (scaled(k).compare(high) >= 0) k--;
    const shifted = scaled(k);
    const digits = shifted.numerator / shifted.denominator;
    const cut =
      k >= 0 ? Fraction.of(digits, 10n ** BigInt(k)) : Fraction.of(digits * 10n ** BigInt(-k));
    return exact.numerator < 0n ? Fraction.of(-cut.numerator, cut.denominator) : cut;
  }

  /** A canonical text: equal fractions print alike. */
  toString(): string {
    return this.denominator === 1n
      ? String(this.numerator)
      : `${this.numerator}/${this.denominator}`;
  }
}

function abs(value: bigint): bigint {
  return value < 0n ? -value : value;
}

function gcd(left: bigint, right: bigint): bigint {
  let [a, b] = [left, right];
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}
