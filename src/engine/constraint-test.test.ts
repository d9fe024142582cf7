import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemaOf, specOf, state } from '../../test/engine/fixtures.js';
import { type CheckedConstraint, negateOperator, operatorPolarity } from '../language/index.js';
import { allEngineParts } from './all-parts.js';
import { createClock, type SessionClock } from './clock.js';
import { compileConstraintTest, describeExpectation, describeLiteral } from './constraint-test.js';
import { lexicalSimilarity } from './lexical-similarity.js';
import { defaultSimilarityThreshold } from './similarity.js';
import { parseValue } from './values.js';

const clock = createClock('2025-03-14T12:00');
const nextDay = createClock('2025-03-15T12:00');

const schema = schemaOf(
  state('S', {
    t: 'text',
    n: 'number',
    b: 'boolean',
    e: 'enum[Low, Medium, High]',
    d: 'date',
    h: 'time',
    dt: 'datetime',
    lt: 'list<text>',
    ln: 'list<number>',
  }),
);

/** The checked form of one constraint `S(text)`, as the checker produces it. */
function constraintOf(text: string): CheckedConstraint {
  const spec = specOf(`S(${text}) -> Done`, schema);
  const constraint = spec.rules[0]?.states[0]?.constraints[0];
  if (!constraint) throw new Error(`no constraint in ${text}`);
  return constraint;
}

const settings = {
  similarity: lexicalSimilarity,
  threshold: defaultSimilarityThreshold,
  parts: allEngineParts,
};

/** Whether the value (as an agent would send it) satisfies the constraint. */
function holds(text: string, input: unknown, at: SessionClock = clock): boolean {
  const constraint = constraintOf(text);
  const value = parseValue(input, constraint.variable.type, at);
  if (!value.ok) throw new Error(value.problem);
  return compileConstraintTest(constraint, settings)(value.value, at);
}

type Row = readonly [constraint: string, value: unknown, expected: boolean];

function table(rows: readonly Row[]) {
  it.each(rows)('%s with %j is %s', (constraint, value, expected) => {
    expect(holds(constraint, value)).toBe(expected);
  });
}

describe('text', () => {
  table([
    ['t = "Hello World"', 'hello   world', true],
    ['t = "Hello World"', ' HELLO WORLD ', true],
    ['t = "Hello World"', 'Ｈｅｌｌｏ World', true],
    ['t = "Hello World"', 'Hello Wor', false],
    ['t = "Hello World"', 'Hello World!', false],
    ['t != "Hello World"', 'hello world', false],
    ['t != "Hello World"', 'Hello Wor', true],
    ['t = "Straße"', 'STRASSE', true],
    ['t = "Mallory"', 'Mal\u200blory\u0000', true],
    ['t = "Alice"', '\u0410lice', false],
    ['t = "Mallory"', 'Mallory, Alice', false],
    ['t ~ "Pizza Hut"', 'Piza Hut', true],
    ['t ~ "Pizza Hut"', 'pizza hut downtown', false],
    ['t ~ "Pizza Hut"', 'Burger King', false],
    ['t !~ "Pizza Hut"', 'pizza hut downtown', true],
    ['t !~ "Pizza Hut"', 'Burger King', true],
    ['t ~ "Alice"', 'Mallory alice', false],
    ['t in ["Alice", "Bob"]', 'bob', true],
    ['t in ["Alice", "Bob"]', 'Carol', false],
    ['t not in ["Alice", "Bob"]', 'ALICE', false],
    ['t not in ["Alice", "Bob"]', 'Carol', true],
    ['t contains "Test"', 'My Test task', true],
    ['t contains "Test"', 'my TEST task', true],
    ['t contains "password"', 'pass\u200bword', true],
    ['t contains "@evil.com"', 'x@ｅｖｉｌ.COM', true],
    ['t contains " rm "', 'ls; rm -rf /', true],
    ['t contains " rm "', 'format c:', false],
    ['t contains "password"', 'p\u0430ssword', false],
    ['t not contains "Test"', 'my test task', false],
    ['t not contains "Test"', 'my task', true],
    ['t not contains "Test"', 'Tests', false],
    ['t matches /^t\\d+$/i', 'T12', true],
    ['t matches /^t\\d+$/i', 'x12', false],
    ['t not matches /^t\\d+$/i', 'T12', false],
    ['t not matches /^t\\d+$/i', 'task', true],
    ['t matches /^a.c$/s', 'a\nc', true],
    ['t matches /^Alice$/', 'ALICE', true],
    ['t matches /@external\\.com$/', 'bob@External.Com ', true],
    ['t matches /@external\\.com$/', 'bob@external.com\n', true],
    ['t matches /@external\\.com$/', 'Bob <bob@external.com>', false],
    ['t matches /^\\u00e9t\\u{E9}$/', 'ÉTÉ', true],
  ]);

  it('runs a catastrophic regex in linear time', () => {
    const test = compileConstraintTest(constraintOf('t matches /(a+)+$/'), settings);
    const value = parseValue(`${'a'.repeat(99_999)}!`, { kind: 'text' }, clock);
    if (!value.ok) throw new Error(value.problem);
    const started = performance.now();
    expect(test(value.value, clock)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it.each([
    ['NaN', Number.NaN],
    ['undefined', undefined],
    ['-1', -1],
    ['a string', 'high'],
  ])('throws when the similarity function returns %s', (_, result) => {
    const similarity = () => result as unknown as number;
    const value = parseValue('Mallory', { kind: 'text' }, clock);
    if (!value.ok) throw new Error(value.problem);
    for (const text of ['t ~ "Mallory"', 't !~ "Mallory"']) {
      const test = compileConstraintTest(constraintOf(text), {
        similarity,
        threshold: 0.75,
        parts: allEngineParts,
      });
      expect(() => test(value.value, clock)).toThrow(/must return a number in \[0, 1\]/);
    }
  });

  it('does not let a regex carry state between tests', () => {
    const test = compileConstraintTest(constraintOf('t matches /a/i'), settings);
    const value = parseValue('banana', { kind: 'text' }, clock);
    if (!value.ok) throw new Error(value.problem);
    expect([1, 2, 3].map(() => test(value.value, clock))).toEqual([true, true, true]);
  });

  it('uses the configured similarity function and threshold', () => {
    const constraint = constraintOf('t ~ "abc"');
    const value = parseValue('xyz', { kind: 'text' }, clock);
    if (!value.ok) throw new Error(value.problem);
    const calls: [string, string][] = [];
    const half = (left: string, right: string) => {
      calls.push([left, right]);
      return 0.5;
    };
    expect(
      compileConstraintTest(constraint, {
        similarity: half,
        threshold: 0.5,
        parts: allEngineParts,
      })(value.value, clock),
    ).toBe(true);
    expect(
      compileConstraintTest(constraint, {
        similarity: half,
        threshold: 0.51,
        parts: allEngineParts,
      })(value.value, clock),
    ).toBe(false);
    expect(calls[0]).toEqual(['xyz', 'abc']);
  });
});

describe('numbers', () => {
  table([
    ['n = 500', 500, true],
    ['n = 500', '500', true],
    ['n = 500', 500.5, false],
    ['n != 500', 499, true],
    ['n != 500', 500, false],
    ['n < 10', 9.99, true],
    ['n < 10', 10, false],
    ['n <= 10', 10, true],
    ['n <= 10', 10.01, false],
    ['n > 10', 10, false],
    ['n > 10', 11, true],
    ['n >= 10', 10, true],
    ['n >= 10', 9, false],
    ['n > -5', -4, true],
    ['n in [1, 2, 3]', 2, true],
    ['n in [1, 2, 3]', 4, false],
    ['n not in [1, 2, 3]', 4, true],
    ['n not in [1, 2, 3]', 1, false],
  ]);
});

describe('booleans', () => {
  table([
    ['b = true', true, true],
    ['b = true', false, false],
    ['b = false', 'false', true],
    ['b != true', false, true],
    ['b != true', true, false],
  ]);
});

describe('enums', () => {
  table([
    ['e = High', 'High', true],
    ['e = High', 'high', true],
    ['e = High', 'Low', false],
    ['e != High', 'Low', true],
    ['e != High', 'High', false],
    ['e in [Low, Medium]', 'Medium', true],
    ['e in [Low, Medium]', 'High', false],
    ['e not in [Low, Medium]', 'High', true],
    ['e not in [Low, Medium]', 'Low', false],
  ]);
});

describe('dates, times and date-times', () => {
  table([
    ['d = 2025-03-14', '2025-03-14', true],
    ['d = today', '2025-03-14', true],
    ['d = today', '2025-03-15', false],
    ['d = tomorrow', '2025-03-15', true],
    ['d = yesterday', '2025-03-13', true],
    ['d != today', '2025-03-13', true],
    ['d < tomorrow', '2025-03-14', true],
    ['d < tomorrow', '2025-03-15', false],
    ['d <= today', '2025-03-14', true],
    ['d > today', '2025-03-14', false],
    ['d >= today', '2025-03-14', true],
    ['d > 2025-03-01', '2025-03-14', true],
    ['d in [today, tomorrow]', '2025-03-15', true],
    ['d in [today, tomorrow]', '2025-03-16', false],
    ['d not in [today, tomorrow]', '2025-03-16', true],
    ['d = now', '2025-03-14', true],
    ['h < 19:00', '18:59', true],
    ['h < 19:00', '19:00', false],
    ['h < 19:00', '6:30 PM', true],
    ['h <= 19:00', '7 PM', true],
    ['h > 19:00', '19:00:01', true],
    ['h >= 19:00', '18:00', false],
    ['h = 19:00', '19:00:00', true],
    ['h != 19:00', '19:30', true],
    ['h >= now', '12:00', true],
    ['h < now', '12:00', false],
    ['h in [09:00, 18:00]', '18:00', true],
    ['dt < 2025-03-15T00:00', '2025-03-14T23:59', true],
    ['dt < 2025-03-15', '2025-03-15T00:00', false],
    ['dt >= today', '2025-03-14T00:00', true],
    ['dt >= today', '2025-03-13T23:59', false],
    ['dt < tomorrow', '2025-03-14T23:59', true],
    ['dt = now', '2025-03-14T12:00', true],
    ['dt > now', '2025-03-14T12:01', true],
    ['dt <= now', '2025-03-14T12:01', false],
    ['dt != 2025-03-14T12:00', '2025-03-14T12:00:00', false],
  ]);

  it('resolves relative dates against the clock it is called with', () => {
    const constraint = constraintOf('d = today');
    const test = compileConstraintTest(constraint, settings);
    const value = parseValue('2025-03-14', { kind: 'date' }, clock);
    if (!value.ok) throw new Error(value.problem);
    expect(test(value.value, clock)).toBe(true);
    expect(test(value.value, nextDay)).toBe(false);
    const inList = compileConstraintTest(constraintOf('d in [yesterday]'), settings);
    expect(inList(value.value, clock)).toBe(false);
    expect(inList(value.value, nextDay)).toBe(true);
    const time = compileConstraintTest(constraintOf('h < now'), settings);
    expect(time(11 * 3600, clock)).toBe(true);
    expect(time(11 * 3600, createClock('2025-03-14T10:00'))).toBe(false);
  });
});

describe('lists', () => {
  table([
    ['lt contains "a@x.com"', ['b@x.com', 'A@X.com'], true],
    ['lt contains "a@x.com"', ['b@x.com'], false],
    ['lt contains "a@x.com"', [], false],
    ['lt not contains "a@x.com"', ['b@x.com'], true],
    ['lt not contains "a@x.com"', ['a@x.com'], false],
    ['lt matches /@evil\\.com$/', ['a@x.com', 'b@evil.com'], true],
    ['lt matches /@evil\\.com$/', ['a@x.com'], false],
    ['lt matches /@evil\\.com$/', [], false],
    ['lt not matches /@evil\\.com$/', ['a@x.com'], true],
    ['lt not matches /@evil\\.com$/', ['a@x.com', 'b@evil.com'], false],
    ['lt not matches /@evil\\.com$/', [], true],
    ['lt ~ "Pizza Hut"', ['Burger King', 'pizza hut'], true],
    ['lt ~ "Pizza Hut"', ['Burger King'], false],
    ['lt !~ "Pizza Hut"', ['Burger King'], true],
    ['lt !~ "Pizza Hut"', ['Burger King', 'pizza hut'], false],
    ['lt = ["a", "b"]', ['A', ' b'], true],
    ['lt = ["a", "b"]', ['b', 'a'], false],
    ['lt = ["a", "b"]', ['a'], false],
    ['lt = ["a", "b"]', ['a', 'b', 'c'], false],
    ['lt = []', [], true],
    ['lt != []', [], false],
    ['lt != []', ['x'], true],
    ['lt != ["a", "b"]', ['a', 'b'], false],
    ['lt in ["a", "b", "c"]', ['c', 'A'], true],
    ['lt in ["a", "b", "c"]', ['a', 'd'], false],
    ['lt in ["a", "b", "c"]', [], true],
    ['lt not in ["a", "b", "c"]', ['a', 'd'], true],
    ['lt not in ["a", "b", "c"]', ['a'], false],
    ['ln contains 3', [1, 3], true],
    ['ln contains 3', [1, 2], false],
    ['ln not contains 3', [1, 2], true],
    ['ln = [1, 2]', [1, 2], true],
    ['ln = [1, 2]', [2, 1], false],
    ['ln != [1, 2]', [2, 1], true],
    ['ln in [1, 2, 3]', [3, 3, 1], true],
    ['ln in [1, 2, 3]', [4], false],
    ['ln not in [1, 2, 3]', [4], true],
  ]);
});

describe('negations', () => {
  // One negated constraint per type and operator; each must be the exact complement of
  // its positive form on every observed value.
  const negated: readonly [string, fc.Arbitrary<unknown>][] = [
    ['t != "Alice"', fc.constantFrom('Alice', 'alice', 'Bob', ' ALICE ', '')],
    ['t !~ "Pizza Hut"', fc.constantFrom('pizza hut', 'Pizza', 'Burger', 'pizza hut downtown')],
    ['t not in ["a", "b"]', fc.constantFrom('a', 'B', 'c')],
    ['t not contains "es"', fc.string()],
    ['t not matches /^[a-c]+$/', fc.string()],
    ['n != 5', fc.integer({ min: 3, max: 7 })],
    ['n not in [1, 2]', fc.integer({ min: 0, max: 3 })],
    ['b != true', fc.boolean()],
    ['e != High', fc.constantFrom('Low', 'Medium', 'High')],
    ['e not in [Low]', fc.constantFrom('Low', 'Medium', 'High')],
    ['d != today', fc.constantFrom('2025-03-13', '2025-03-14', '2025-03-15')],
    ['d not in [today, tomorrow]', fc.constantFrom('2025-03-13', '2025-03-14', '2025-03-15')],
    ['h != 19:00', fc.constantFrom('19:00', '19:01', '7 PM')],
    ['dt != now', fc.constantFrom('2025-03-14T12:00', '2025-03-14T12:01')],
    ['lt != []', fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 })],
    ['lt != ["a"]', fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 })],
    ['lt not in ["a"]', fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 })],
    ['lt not contains "a"', fc.array(fc.constantFrom('a', 'A', 'b'), { maxLength: 3 })],
    ['lt not matches /^a/', fc.array(fc.constantFrom('a', 'ba', 'b'), { maxLength: 3 })],
    ['lt !~ "pizza"', fc.array(fc.constantFrom('pizza', 'burger'), { maxLength: 2 })],
    ['ln != [1]', fc.array(fc.constantFrom(1, 2), { maxLength: 2 })],
    ['ln not in [1]', fc.array(fc.constantFrom(1, 2), { maxLength: 2 })],
    ['ln not contains 1', fc.array(fc.constantFrom(1, 2), { maxLength: 2 })],
  ];

  it.each(negated)('%s is the complement of its positive form', (text, values) => {
    const constraint = constraintOf(text);
    expect(operatorPolarity[constraint.operator].negated).toBe(true);
    const positive = { ...constraint, operator: operatorPolarity[constraint.operator].positive };
    const negatedTest = compileConstraintTest(constraint, settings);
    const positiveTest = compileConstraintTest(positive, settings);
    fc.assert(
      fc.property(values, (input) => {
        const value = parseValue(input, constraint.variable.type, clock);
        if (!value.ok) throw new Error(value.problem);
        expect(negatedTest(value.value, clock)).toBe(!positiveTest(value.value, clock));
      }),
    );
  });

  it('orderings: < is the complement of >=, and > of <=', () => {
    const pairs: readonly [string, string][] = [
      ['n < 5', 'n >= 5'],
      ['n > 5', 'n <= 5'],
      ['d < today', 'd >= today'],
      ['h > 19:00', 'h <= 19:00'],
    ];
    for (const [left, right] of pairs) {
      const a = constraintOf(left);
      const b = constraintOf(right);
      expect(negateOperator(a.operator)).toBe(b.operator);
      const testA = compileConstraintTest(a, settings);
      const testB = compileConstraintTest(b, settings);
      for (const input of a.variable.type.kind === 'number'
        ? [4, 5, 6]
        : a.variable.type.kind === 'date'
          ? ['2025-03-13', '2025-03-14']
          : ['18:59', '19:00', '19:01']) {
        const value = parseValue(input, a.variable.type, clock);
        if (!value.ok) throw new Error(value.problem);
        expect(testA(value.value, clock)).toBe(!testB(value.value, clock));
      }
    }
  });
});

describe('descriptions', () => {
  it('resolves relative dates and shows them with their name', () => {
    expect(describeLiteral(constraintOf('d = today').value, clock)).toBe('2025-03-14 (today)');
    expect(describeLiteral(constraintOf('d = tomorrow').value, clock)).toBe(
      '2025-03-15 (tomorrow)',
    );
    expect(describeLiteral(constraintOf('h < now').value, clock)).toBe('12:00 (now)');
    expect(describeLiteral(constraintOf('dt < now').value, clock)).toBe('2025-03-14T12:00 (now)');
    expect(describeLiteral(constraintOf('dt < yesterday').value, clock)).toBe(
      '2025-03-13T00:00 (yesterday)',
    );
  });

  it('writes the expected side of constraints as verdict reasons carry it', () => {
    expect(describeExpectation(constraintOf('h < 19:00'), clock)).toBe('< 19:00');
    expect(describeExpectation(constraintOf('t = "R"'), clock)).toBe('= "R"');
    expect(describeExpectation(constraintOf('e in [Low, High]'), clock)).toBe('in [Low, High]');
    expect(describeExpectation(constraintOf('lt not matches /x/i'), clock)).toBe(
      'not matches /x/i',
    );
    expect(describeExpectation(constraintOf('b = true'), clock)).toBe('= true');
    expect(describeExpectation(constraintOf('d >= 2025-01-02'), clock)).toBe('>= 2025-01-02');
  });
});
