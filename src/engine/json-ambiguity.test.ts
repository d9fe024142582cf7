import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findJsonAmbiguity } from './json-ambiguity.js';

describe('findJsonAmbiguity', () => {
  it('finds a key given twice in one object, decoded, with its column', () => {
    const line = '{"propose": {"action": {"name": "T", "args": {"amount": 900, "amount": 500}}}}';
    expect(findJsonAmbiguity(line)).toEqual({
      message:
        'the key "amount" is given twice in one object; a parser that keeps the first would read another value than one that keeps the last',
      column: line.lastIndexOf('"amount"') + 1,
    });
    expect(findJsonAmbiguity('{"a": 1, "\\u0061": 2}')?.column).toBe(10);
  });

  it('lets the same key appear in different objects, and strings that look like keys', () => {
    expect(findJsonAmbiguity('{"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}], "c": "a"}')).toBe(
      undefined,
    );
    expect(findJsonAmbiguity('{"a": "x\\"a\\": 1", "b": ["a", "a"]}')).toBe(undefined);
  });

  it('finds numbers that a double cannot hold', () => {
    expect(findJsonAmbiguity('{"id": 1234567890123456833}')).toEqual({
      message:
        'the number 1234567890123456833 would be read as 1234567890123456800; write it as a string ("1234567890123456833") to keep it exact',
      column: 8,
    });
    expect(findJsonAmbiguity('{"amount": -1e400}')?.message).toContain(
      'is beyond the range of numbers',
    );
    expect(findJsonAmbiguity('{"amount": 1e-400}')?.message).toContain('too close to zero');
    expect(findJsonAmbiguity('[500.00000000000000001]')?.message).toContain('would be read as 500');
  });

  it('accepts what every JSON parser reads alike', () => {
    expect(
      findJsonAmbiguity(
        '{"n": [0, -1, 3.5, 1e21, 0.1, 1234567890123456800], "t": true, "z": null}',
      ),
    ).toBe(undefined);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        // fast-check's JSON values have unique keys and numbers JSON.stringify wrote.
        expect(findJsonAmbiguity(JSON.stringify(value))).toBe(undefined);
      }),
    );
  });
});
