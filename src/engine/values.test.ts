import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { typeOf } from '../../test/engine/fixtures.js';
import { normalizeText, parseDate, parseDateTime, parseTime } from '../language/index.js';
import { createClock } from './clock.js';
import {
  formatValue,
  isTextValue,
  maxListValueLength,
  parseValue,
  textValue,
  type Value,
  valueKey,
} from './values.js';

const clock = createClock('2025-03-14T12:00');
const newYork = createClock('2025-03-14T12:00', 'America/New_York');
const day = parseDate('2025-03-14')!;

function parsed(input: unknown, type: string, at = clock): Value {
  const result = parseValue(input, typeOf(type), at);
  if (!result.ok)
    throw new Error(`expected ${JSON.stringify(input)} to parse as ${type}: ${result.problem}`);
  return result.value;
}

function problem(input: unknown, type: string, at = clock): string {
  const result = parseValue(input, typeOf(type), at);
  if (result.ok) throw new Error(`expected ${JSON.stringify(input)} not to parse as ${type}`);
  return result.problem;
}

describe('numbers', () => {
  it.each([
    [500, 500],
    ['500', 500],
    [' 500 ', 500],
    ['-12.5', -12.5],
    ['1e3', 1000],
    ['.5', 0.5],
    ['+7', 7],
  ])('reads %j as %d', (input, expected) => {
    expect(parsed(input, 'number')).toBe(expected);
  });

  it.each(['', 'abc', '1,000', '1_000', '0x10', 'Infinity', '5 dollars'])(
    'refuses the text %j',
    (input) => {
      expect(problem(input, 'number')).toContain('is not a number');
    },
  );

  it('refuses non-finite numbers, booleans, objects and null', () => {
    expect(problem(Number.POSITIVE_INFINITY, 'number')).toContain('not a finite number');
    expect(problem(Number.NaN, 'number')).toContain('not a finite number');
    expect(problem(true, 'number')).toBe('true is not a number');
    expect(problem({ amount: 5 }, 'number')).toBe('an object is not a number');
    expect(problem([5], 'number')).toBe('a list is not a number');
    expect(problem(null, 'number')).toBe('null is not a number');
  });
});

describe('booleans', () => {
  it.each([
    [true, true],
    [false, false],
    ['true', true],
    ['FALSE', false],
    [' True ', true],
  ])('reads %j', (input, expected) => {
    expect(parsed(input, 'boolean')).toBe(expected);
  });

  it.each(['yes', '1', 1, 0, ''])('refuses %j', (input) => {
    expect(problem(input, 'boolean')).toContain('is not true or false');
  });
});

describe('times', () => {
  it.each([
    ['18:00', 18 * 3600],
    ['7:05', 7 * 3600 + 5 * 60],
    ['18:00:30', 18 * 3600 + 30],
    ['6:30 PM', 18 * 3600 + 30 * 60],
    ['6:30pm', 18 * 3600 + 30 * 60],
    ['6 p.m.', 18 * 3600],
    ['12:00 AM', 0],
    ['12:15 am', 15 * 60],
    ['12 PM', 12 * 3600],
    ['11:59:59 PM', 23 * 3600 + 59 * 60 + 59],
    ['now', 12 * 3600],
    ['2025-03-14T19:45', 19 * 3600 + 45 * 60],
    ['2025-03-14 07:15', 7 * 3600 + 15 * 60],
  ])('reads %j', (input, expected) => {
    expect(parsed(input, 'time')).toBe(expected);
  });

  it('reads an instant as wall-clock time in the session time zone', () => {
    expect(parsed('2025-03-14T18:00:00Z', 'time')).toBe(18 * 3600);
    // 18:00 UTC is 14:00 in New York (EDT, UTC-4, after 9 March 2025).
    expect(parsed('2025-03-14T18:00:00Z', 'time', newYork)).toBe(14 * 3600);
    expect(parsed('2025-03-14T18:00:00+02:00', 'time')).toBe(16 * 3600);
  });

  it.each(['24:00', '7:5', '13:00 PM', '0:30 AM', 'noon', '18h00', ''])('refuses %j', (input) => {
    expect(problem(input, 'time')).toContain('is not a time (expected HH:MM)');
  });

  it('refuses numbers: a time is written as text', () => {
    expect(problem(1800, 'time')).toBe('1800 is not a time');
  });
});

describe('dates', () => {
  it.each([
    ['2025-03-14', day],
    ['today', day],
    ['Tomorrow', day + 1],
    ['yesterday', day - 1],
    ['now', day],
    ['2025-03-15T09:00', day + 1],
    ['2025-03-15 09:00', day + 1],
  ])('reads %j', (input, expected) => {
    expect(parsed(input, 'date')).toBe(expected);
  });

  it('reads an instant as its date in the session time zone', () => {
    expect(parsed('2025-03-15T02:00:00Z', 'date')).toBe(day + 1);
    // 02:00 UTC on the 15th is still the evening of the 14th in New York.
    expect(parsed('2025-03-15T02:00:00Z', 'date', newYork)).toBe(day);
    expect(parsed('2025-03-14T23:30:00-05:00', 'date')).toBe(day + 1);
  });

  it.each(['2025-02-30', '14/03/2025', '2025-3-14', 'next week', '2025-03-14Tlate'])(
    'refuses %j',
    (input) => {
      expect(problem(input, 'date')).toContain('is not a date (expected YYYY-MM-DD)');
    },
  );
});

describe('date-times', () => {
  const noon = day * 86_400 + 12 * 3600;

  it.each([
    ['2025-03-14T19:00', day * 86_400 + 19 * 3600],
    ['2025-03-14 19:00', day * 86_400 + 19 * 3600],
    ['2025-03-14T19:00:30', day * 86_400 + 19 * 3600 + 30],
    ['2025-03-14T6:30 PM', day * 86_400 + 18 * 3600 + 30 * 60],
    ['2025-03-14', day * 86_400],
    ['now', noon],
    ['today', day * 86_400],
    ['tomorrow', (day + 1) * 86_400],
  ])('reads %j as wall-clock seconds', (input, expected) => {
    expect(parsed(input, 'datetime')).toBe(expected);
  });

  it('reads an instant with an offset in the session time zone, and a naive one as it is', () => {
    expect(parsed('2025-03-14T19:00:00Z', 'datetime')).toBe(day * 86_400 + 19 * 3600);
    expect(parsed('2025-03-14T19:00:00Z', 'datetime', newYork)).toBe(day * 86_400 + 15 * 3600);
    expect(parsed('2025-03-14T19:00:00.250+0100', 'datetime')).toBe(day * 86_400 + 18 * 3600);
    // No offset: already wall-clock time, whatever the session's zone.
    expect(parsed('2025-03-14T19:00', 'datetime', newYork)).toBe(day * 86_400 + 19 * 3600);
  });

  it('uses the session clock for now in its own time zone', () => {
    const instantClock = createClock('2025-03-14T12:00:00Z', 'America/New_York');
    expect(parsed('now', 'datetime', instantClock)).toBe(day * 86_400 + 8 * 3600);
  });

  it.each(['2025-03-14T25:00', 'soon', '2025-03-14T', ''])('refuses %j', (input) => {
    expect(problem(input, 'datetime')).toContain('is not a date-time (expected YYYY-MM-DDTHH:MM)');
  });

  it('agrees with the language layer on ISO date-times', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 50_000 }),
        fc.integer({ min: 0, max: 86_399 }),
        (days, seconds) => {
          const date = new Date((days * 86_400 + seconds) * 1000).toISOString().slice(0, 19);
          expect(parsed(date, 'datetime')).toBe(parseDateTime(date));
          expect(parsed(date.slice(11), 'time')).toBe(parseTime(date.slice(11)));
          expect(parsed(date.slice(0, 10), 'date')).toBe(days);
        },
      ),
    );
  });
});

describe('enums', () => {
  const party = 'enum[1, 2, 3, 4+, Running, In Progress]';

  it('takes members as written and matches loosely by normalised text', () => {
    expect(parsed('Running', party)).toBe('Running');
    expect(parsed('running', party)).toBe('Running');
    expect(parsed(' RUNNING ', party)).toBe('Running');
    expect(parsed('in   progress', party)).toBe('In Progress');
    expect(parsed('4+', party)).toBe('4+');
  });

  it('reads JSON numbers and booleans as their text', () => {
    expect(parsed(2, party)).toBe('2');
    expect(parsed(true, 'enum[true, false]')).toBe('true');
  });

  it('refuses values that are not members, naming the members', () => {
    expect(problem('Stopped', party)).toBe(
      '"Stopped" is not one of 1, 2, 3, 4+, Running, In Progress',
    );
    expect(problem('Runnin', party)).toContain('is not one of');
    expect(problem({}, party)).toBe('an object is not one of 1, 2, 3, 4+, Running, In Progress');
  });
});

describe('text', () => {
  it('keeps the raw text and computes the key that = compares', () => {
    const value = parsed('  Hello   World ', 'text');
    expect(value).toEqual({ raw: '  Hello   World ', key: 'hello world' });
  });

  it('reads numbers and booleans as their text, and objects as their JSON text', () => {
    expect(parsed(42, 'text')).toEqual({ raw: '42', key: '42' });
    expect(parsed(false, 'text')).toEqual({ raw: 'false', key: 'false' });
    expect(parsed({ a: 1, b: [2] }, 'text')).toEqual({
      raw: '{"a":1,"b":[2]}',
      key: '{"a":1,"b":[2]}',
    });
  });

  it('refuses null', () => {
    expect(problem(null, 'text')).toBe('null is not text');
  });

  it('normalises like the language layer, including the ASCII fast path', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'grapheme' }),
          fc.constantFrom(' a\tb ', 'Ａ  b', 'İ', 'ß', '\n'),
        ),
        (raw) => {
          expect(textValue(raw).key).toBe(normalizeText(raw));
        },
      ),
    );
  });

  it('recognises text values', () => {
    expect(isTextValue(textValue('x'))).toBe(true);
    expect(isTextValue('x')).toBe(false);
    expect(isTextValue(null)).toBe(false);
  });
});

describe('lists', () => {
  it('reads each element by the element type', () => {
    expect(parsed(['1', 2, ' 3 '], 'list<number>')).toEqual([1, 2, 3]);
    expect(parsed(['A', { id: 1 }], 'list<text>')).toEqual([
      { raw: 'A', key: 'a' },
      { raw: '{"id":1}', key: '{"id":1}' },
    ]);
    expect(parsed([], 'list<text>')).toEqual([]);
  });

  it('takes a single value as a list of one', () => {
    expect(parsed('alice@example.com', 'list<text>')).toEqual([
      { raw: 'alice@example.com', key: 'alice@example.com' },
    ]);
    expect(parsed(5, 'list<number>')).toEqual([5]);
  });

  it('names the element that does not read', () => {
    expect(problem([1, 'two'], 'list<number>')).toBe(
      'an element of the list: "two" is not a number',
    );
    expect(problem(['a', null], 'list<text>')).toBe('an element of the list: null is not text');
  });

  it('refuses lists longer than the limit', () => {
    const long = new Array(maxListValueLength + 1).fill(1);
    expect(problem(long, 'list<number>')).toBe(
      `a list of ${maxListValueLength + 1} elements is too long`,
    );
    expect(parsed(long.slice(1), 'list<number>')).toHaveLength(maxListValueLength);
  });
});

describe('formatValue', () => {
  it('writes values the way a user would', () => {
    expect(formatValue(day, typeOf('date'))).toBe('2025-03-14');
    expect(formatValue(19 * 3600, typeOf('time'))).toBe('19:00');
    expect(formatValue(19 * 3600 + 5, typeOf('time'))).toBe('19:00:05');
    expect(formatValue(day * 86_400 + 19 * 3600, typeOf('datetime'))).toBe('2025-03-14T19:00');
    expect(formatValue(textValue('Alice'), typeOf('text'))).toBe('"Alice"');
    expect(formatValue(500, typeOf('number'))).toBe('500');
    expect(formatValue(true, typeOf('boolean'))).toBe('true');
    expect(formatValue('Running', typeOf('enum[Running]'))).toBe('Running');
    expect(formatValue([textValue('a'), textValue('b')], typeOf('list<text>'))).toBe('["a", "b"]');
    expect(formatValue([1, 2], typeOf('list<number>'))).toBe('[1, 2]');
  });
});

describe('valueKey', () => {
  it('is equal for values that = treats as equal, and different otherwise', () => {
    expect(valueKey(textValue('Alice'))).toBe(valueKey(textValue(' alice ')));
    expect(valueKey(textValue('Alice'))).not.toBe(valueKey(textValue('Alicia')));
    expect(valueKey(5)).not.toBe(valueKey('5'));
    expect(valueKey(true)).not.toBe(valueKey('true'));
    expect(valueKey(textValue('true'))).not.toBe(valueKey(true));
    expect(valueKey(undefined)).toBe('∅');
    expect(valueKey([textValue('a'), textValue('b')])).not.toBe(valueKey([textValue('a b')]));
    expect(valueKey([textValue('a'), textValue('b')])).not.toBe(
      valueKey([textValue('b'), textValue('a')]),
    );
    expect(valueKey([])).not.toBe(valueKey(undefined));
  });
});
