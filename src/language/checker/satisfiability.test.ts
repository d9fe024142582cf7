import { describe, expect, it } from 'vitest';
import type { Operator } from '../ast.js';
import { readNumber } from '../decimal.js';
import type { Literal } from './literal.js';
import { implies, satisfiable } from './satisfiability.js';

const number = { kind: 'number' } as const;

function literal(text: string): Literal {
  const reading = readNumber(text);
  if (!reading.ok) throw new Error(text);
  return { kind: 'number', value: reading.value };
}

function constraints(...parts: [Operator, string | string[]][]) {
  return parts.map(([operator, value]) => ({
    operator,
    value: Array.isArray(value)
      ? ({ kind: 'list', elements: value.map(literal) } as Literal)
      : literal(value),
  }));
}

describe('satisfiable: exact numbers', () => {
  it('tells apart decimals that round to one double: no false contradiction', () => {
    // Both bounds are the same double; between them lie many decimals.
    expect(
      satisfiable(constraints(['>', '1234567890123456789'], ['<', '1234567890123456790']), number),
    ).toBe(true);
    expect(
      satisfiable(constraints(['=', '1234567890123456789'], ['!=', '1234567890123456788']), number),
    ).toBe(true);
    expect(
      satisfiable(
        constraints(['in', ['1234567890123456789']], ['not in', ['1234567890123456800']]),
        number,
      ),
    ).toBe(true);
    expect(satisfiable(constraints(['>', '500'], ['<=', '500.00000000000000001']), number)).toBe(
      true,
    );
  });

  it('still finds real contradictions among exact decimals', () => {
    expect(satisfiable(constraints(['>', '500.00000000000000001'], ['<', '500']), number)).toBe(
      false,
    );
    expect(
      satisfiable(constraints(['=', '1234567890123456789'], ['!=', '1234567890123456789']), number),
    ).toBe(false);
    expect(
      satisfiable(constraints(['=', '1234567890123456789'], ['>', '1234567890123456789']), number),
    ).toBe(false);
    expect(
      satisfiable(
        constraints(['>=', '1234567890123456789'], ['<=', '1234567890123456789']),
        number,
      ),
    ).toBe(true);
  });

  it('implies exactly', () => {
    const [bound] = constraints(['>', '500']);
    expect(implies(constraints(['>=', '500.00000000000000001']), bound!, number)).toBe(true);
    expect(implies(constraints(['>=', '500']), bound!, number)).toBe(false);
  });
});
