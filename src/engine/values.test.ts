import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { typeOf } from '../../test/engine/fixtures.js';
import {
  defaultLimits,
  isDecimal,
  normalizeText,
  parseDate,
  parseDateTime,
  parseTime,
  readNumber,
} from '../language/index.js';
import { createClock } from './clock.js';
import {
  formatValue,
  isTextValue,
  parseValue,
  readCommonValue,
  textValue,
  type Value,
  type ValueOptions,
  valueKey,
} from './values.js';

const maxListValueLength = defaultLimits.maxListValueLength;

const clock = createClock('2025-03-14T12:00');
const newYork = createClock('2025-03-14T12:00', 'America/New_York');
const day = parseDate('2025-03-14')!;

/** A text value as its raw text and key (the key is a getter, computed on first use). */
const textOf = (raw: string, key: string) => expect.objectContaining({ raw, key });

function parsed(input: unknown, type: string, at = clock, options?: ValueOptions): Value {
  const result = parseValue(input, typeOf(type), at, options);
  if (!result.ok)
    throw new Error(`expected ${JSON.stringify(input)} to parse as ${type}: ${result.problem}`);
  return result.value;
}

function problem(input: unknown, type: string, at = clock, options?: ValueOptions): string {
  const result = parseValue(input, typeOf(type), at, options);
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

  it('reads decimal strings exactly: an id beyond double precision stays that id', () => {
    const id = parsed('1234567890123456789', 'number');
    expect(isDecimal(id)).toBe(true);
    expect(String(id)).toBe('1234567890123456789');
    for (const other of ['1234567890123456700', '1234567890123456800', '1234567890123456833'])
      expect(valueKey(parsed(other, 'number'))).not.toBe(valueKey(id));
    expect(String(parsed('500.00000000000000001', 'number'))).toBe('500.00000000000000001');
    // What a double prints as stays a plain number, however it is written.
    expect(parsed('1234567890123456800', 'number')).toBe(1234567890123456800);
    expect(parsed('0.10', 'number')).toBe(0.1);
  });

  it('refuses numbers beyond the range of doubles or too close to zero, instead of rounding', () => {
    expect(problem('1e400', 'number')).toBe(
      '"1e400" is beyond the range of numbers (±1.7976931348623157e308)',
    );
    expect(problem('-1e400', 'number')).toContain('is beyond the range of numbers');
    expect(problem('1e-400', 'number')).toContain('is too close to zero to be represented');
    expect(problem('1'.repeat(101), 'number')).toContain('has more than 100 significant digits');
    expect(parsed('0e400', 'number')).toBe(0);
  });

  it('refuses a string longer than the limit before reading it', () => {
    const long = '1'.repeat(50_000_000);
    const started = performance.now();
    expect(problem(long, 'number', clock, { maxLength: 100_000 })).toBe(
      'it has 50000000 characters; at most 100000 are accepted',
    );
    expect(performance.now() - started).toBeLessThan(100);
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

  it("reads an instant whose offset is the session zone's as its local time", () => {
    expect(parsed('2025-03-14T18:00:00Z', 'time')).toBe(18 * 3600);
    // New York is at UTC-4 (EDT) after 9 March 2025.
    expect(parsed('2025-03-14T18:00:00-04:00', 'time', newYork)).toBe(18 * 3600);
  });

  it('refuses an instant with another offset: the tool might read its local part', () => {
    expect(problem('2025-03-14T18:00:00Z', 'time', newYork)).toContain(
      "has the offset Z (+00:00), but the session's time zone America/New_York is at -04:00 then (that instant is 2025-03-14T14:00 there)",
    );
    expect(problem('2025-03-14T05:30:00+14:00', 'time')).toContain(
      "has the offset +14:00, but the session's time zone UTC is at +00:00 then",
    );
    expect(problem('2025-03-14T05:30:00-08:00', 'time')).toContain('has the offset -08:00');
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

  it("reads an instant whose offset is the session zone's as its local date, and refuses others", () => {
    expect(parsed('2025-03-15T02:00:00Z', 'date')).toBe(day + 1);
    expect(parsed('2025-03-14T22:00:00-04:00', 'date', newYork)).toBe(day);
    expect(problem('2025-03-15T02:00:00Z', 'date', newYork)).toContain('has the offset Z');
    expect(problem('2025-12-25T23:00:00-05:00', 'date')).toContain('has the offset -05:00');
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

  it("reads an instant with the session zone's offset as its local time, and a naive one as it is", () => {
    expect(parsed('2025-03-14T19:00:00Z', 'datetime')).toBe(day * 86_400 + 19 * 3600);
    expect(parsed('2025-03-14T19:00:00.250-0400', 'datetime', newYork)).toBe(
      day * 86_400 + 19 * 3600,
    );
    expect(problem('2025-03-14T19:00:00Z', 'datetime', newYork)).toContain('has the offset Z');
    expect(problem('2025-03-14T19:00:00.250+0100', 'datetime')).toContain('has the offset +0100');
    // No offset: already wall-clock time, whatever the session's zone.
    expect(parsed('2025-03-14T19:00', 'datetime', newYork)).toBe(day * 86_400 + 19 * 3600);
  });

  it('takes an offset across a daylight-saving change by the zone at that instant', () => {
    // New York: UTC-5 until 9 March 2025 02:00, UTC-4 after.
    expect(parsed('2025-03-08T12:00:00-05:00', 'datetime', newYork)).toBe(
      parseDateTime('2025-03-08T12:00')!,
    );
    expect(problem('2025-03-08T12:00:00-04:00', 'datetime', newYork)).toContain('-05:00 then');
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
    expect(value).toEqual(textOf('  Hello   World ', 'hello world'));
  });

  it('reads a number as its decimal text, what the tool receives', () => {
    expect(parsed(42, 'text')).toEqual(textOf('42', '42'));
    expect(parsed(1e21, 'text')).toEqual(textOf('1e+21', '1e+21'));
    expect(problem(Number.NaN, 'text')).toBe('NaN is not text');
  });

  it('refuses arrays, objects, booleans and null: they are other values than any text', () => {
    expect(problem(['evil@x.com'], 'text')).toBe('a list is not text (give a string)');
    expect(problem({ address: 'evil@x.com' }, 'text')).toBe(
      'an object is not text (give a string)',
    );
    expect(problem(false, 'text')).toBe('false is not text (give a string, e.g. "false")');
    expect(problem(null, 'text')).toBe('null is not text (give a string)');
  });

  it('reads any JSON as its JSON text where the tool takes any JSON', () => {
    const json = { json: true };
    expect(parsed({ a: 1, b: [2] }, 'text', clock, json)).toEqual(
      textOf('{"a":1,"b":[2]}', '{"a":1,"b":[2]}'),
    );
    expect(parsed(false, 'text', clock, json)).toEqual(textOf('false', 'false'));
    expect(problem({ a: 'x'.repeat(20) }, 'text', clock, { json: true, maxLength: 10 })).toBe(
      'its JSON text has 28 characters; at most 10 are accepted',
    );
  });

  it('refuses text longer than the limit', () => {
    expect(problem('x'.repeat(11), 'text', clock, { maxLength: 10 })).toBe(
      'it has 11 characters; at most 10 are accepted',
    );
    expect(parsed('x'.repeat(10), 'text', clock, { maxLength: 10 })).toEqual(
      textValue('x'.repeat(10)),
    );
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
    expect(parsed(['A', { id: 1 }], 'list<text>', clock, { json: true })).toEqual([
      textOf('A', 'a'),
      textOf('{"id":1}', '{"id":1}'),
    ]);
    expect(problem(['A', { id: 1 }], 'list<text>')).toBe(
      'an element of the list: an object is not text (give a string)',
    );
    expect(parsed([], 'list<text>')).toEqual([]);
  });

  it('bounds the characters of all elements together', () => {
    expect(problem(['x'.repeat(6), 'y'.repeat(5)], 'list<text>', clock, { maxLength: 10 })).toBe(
      'an element of the list: it has 5 characters; at most 4 are accepted',
    );
  });

  it('refuses a single value: a comma-joined string is not the list of its parts', () => {
    expect(problem('boss@corp.com, evil@x.com', 'list<text>')).toBe(
      '"boss@corp.com, evil@x.com" is not a list (give an array, e.g. ["a", "b"])',
    );
    expect(problem(5, 'list<number>')).toBe('5 is not a list (give an array, e.g. [1, 2])');
  });

  it('names the element that does not read', () => {
    expect(problem([1, 'two'], 'list<number>')).toBe(
      'an element of the list: "two" is not a number',
    );
    expect(problem(['a', null], 'list<text>')).toBe(
      'an element of the list: null is not text (give a string)',
    );
  });

  it('refuses lists longer than the limit', () => {
    const long = new Array(maxListValueLength + 1).fill(1);
    expect(problem(long, 'list<number>')).toBe(
      `a list of ${maxListValueLength + 1} elements is too long (at most ${maxListValueLength})`,
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
    const id = readNumber('1234567890123456789');
    expect(id.ok && formatValue(id.value, typeOf('number'))).toBe('1234567890123456789');
  });

  it('cuts what it echoes, without formatting a huge value whole', () => {
    expect(formatValue(textValue('x'.repeat(1_000_000)), typeOf('text'), 10)).toBe('"xxxxxxxx…');
    const many = Array.from({ length: 100_000 }, (_, index) => index);
    expect(formatValue(many, typeOf('list<number>'), 12)).toBe('[0, 1, 2, 3…');
    expect(formatValue(textValue('short'), typeOf('text'), 10)).toBe('"short"');
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
    const exact = readNumber('1234567890123456789');
    const again = readNumber('1_234_567_890_123_456_789'.replaceAll('_', ''));
    const near = readNumber('1234567890123456800');
    if (!exact.ok || !again.ok || !near.ok) throw new Error('unreadable');
    expect(valueKey(exact.value)).toBe(valueKey(again.value));
    expect(valueKey(exact.value)).not.toBe(valueKey(near.value));
  });
});

describe('readCommonValue', () => {
  it('reads only what parseValue reads, as parseValue reads it, for every type', () => {
    const inputs = fc.oneof(
      fc.string(),
      fc.string({ minLength: 9, maxLength: 12 }),
      fc.double(),
      fc.integer(),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, -0, '12', ' 12 ', 'today', true, null),
      fc.anything(),
    );
    const types = fc.constantFrom(
      'text',
      'number',
      'boolean',
      'date',
      'time',
      'datetime',
      'enum[a, b]',
      'list<text>',
      'list<number>',
    );
    fc.assert(
      fc.property(inputs, types, fc.boolean(), (input, type, json) => {
        const options = { maxLength: 10, maxListLength: 5, maxDepth: 4, json };
        const common = readCommonValue(input, typeOf(type), options.maxLength);
        if (common === undefined) return;
        const full = parseValue(input, typeOf(type), clock, options);
        expect(full.ok).toBe(true);
        if (!full.ok) return;
        if (isTextValue(common)) {
          expect(isTextValue(full.value)).toBe(true);
          expect(common.raw).toBe(isTextValue(full.value) ? full.value.raw : undefined);
          expect(common.isJson).toBe(isTextValue(full.value) && full.value.isJson);
        } else expect(Object.is(common, full.value)).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });

  it('reads a string for text and a finite number for a number; a long string is left to parseValue', () => {
    expect(readCommonValue('Alice', typeOf('text'), 10)).toEqual(textOf('Alice', 'alice'));
    expect(readCommonValue(12.5, typeOf('number'), 10)).toBe(12.5);
    expect(readCommonValue('x'.repeat(11), typeOf('text'), 10)).toBeUndefined();
    expect(readCommonValue('12', typeOf('number'), 10)).toBeUndefined();
    expect(readCommonValue(12, typeOf('text'), 10)).toBeUndefined();
    expect(readCommonValue(Number.NaN, typeOf('number'), 10)).toBeUndefined();
    expect(readCommonValue('today', typeOf('date'), 10)).toBeUndefined();
  });
});
