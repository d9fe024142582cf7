import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allEngineParts as parts } from '../../src/engine/all-parts.js';
import {
  type LiteralForms,
  literalForms,
  looksEqual,
  phoneDigits,
  readAlike,
  readingsOf,
} from '../../src/engine/deny-list-reading.js';
import { hasPart, hasPhonePart, valueParts } from '../../src/engine/value-parts.js';
import { shortTextLength, TextValue } from '../../src/engine/values.js';

/**
 * The deny-list reading searches a text for a reading (`hasPart`, `hasPhonePart`) instead
 * of listing the text's parts, and a long text keeps verdicts instead of its skeletons
 * (`TextValue.verdict`): on random texts with separators, odd whitespace, dots,
 * look-alikes, invisible characters and phone numbers, each gives what listing the parts
 * gives.
 */
const runs = Number(process.env.SECURITY_PROPERTY_RUNS ?? 300);

const pieces = [
  'a',
  'b',
  'm',
  'rn',
  'а', // Cyrillic
  'Ь',
  'x@y.com',
  ' ',
  '  ',
  '.',
  '..',
  ',',
  ';',
  '<',
  '>',
  '(',
  ')',
  '[',
  '"',
  "'",
  '`',
  '{',
  '\u00a0',
  '\u2009',
  '\u3000',
  '\n',
  '\t',
  '\u200b', // zero width space: invisible
  '\u00ad', // soft hyphen: invisible
  '\ufeff',
  '\u0301', // combining acute
  'tel:',
  '+',
  '1',
  '415',
  '5550123',
  '-',
  '/',
];
const text = fc
  .array(fc.constantFrom(...pieces), { maxLength: 16 })
  .map((chosen) => chosen.join(''));

/**
 * A needle: one of the text's parts (so that hits are common), a part with a space or a
 * dot added at an end, a slice of the text (near misses), or any text.
 */
function needleOf(value: string, pick: number, other: string): string {
  const parts = valueParts(value);
  const part = parts[pick % Math.max(parts.length, 1)] ?? other;
  const from = pick % (value.length + 1);
  const slice = value.slice(from, from + (Math.floor(pick / 3) % 6) + 1);
  const needles = [part, `${part} `, ` ${part}`, `${part}.`, slice, value.trim(), other];
  return needles[Math.floor(pick / 7) % needles.length] as string;
}

/** The reading as first written: every part listed. */
function listedLooksEqual(value: TextValue, literal: LiteralForms): boolean {
  if (value.key === literal.key || valueParts(value.key).includes(literal.key)) return true;
  const phones = [value.key, ...valueParts(value.key)].map(phoneDigits);
  if (literal.phone !== undefined && phones.includes(literal.phone)) return true;
  const { cased, folded } = confusableSkeletonsOf(value);
  if (cased === literal.cased || folded === literal.folded) return true;
  return valueParts(cased).includes(literal.cased) || valueParts(folded).includes(literal.folded);
}

function confusableSkeletonsOf(value: TextValue) {
  return new TextValue(value.raw).skeletons(parts);
}

function listedReadAlike(a: TextValue, b: TextValue): boolean {
  if (a.key === b.key) return true;
  const readings = readingsOf(a, parts);
  for (const reading of readingsOf(b, parts)) if (readings.has(reading)) return true;
  return false;
}

/** A text longer than a short text, whose parts are the text's and a filler's. */
const long = (value: string) => `${'filler, '.repeat(Math.ceil(shortTextLength / 8))}${value}`;

describe('property: searching a text for a reading agrees with listing its parts', () => {
  it('hasPart(text, needle) is valueParts(text).includes(needle)', () => {
    fc.assert(
      fc.property(text, fc.nat(300), text, (value, pick, other) => {
        const needle = needleOf(value, pick, other);
        expect(hasPart(value, needle), `${JSON.stringify(value)} ${JSON.stringify(needle)}`).toBe(
          valueParts(value).includes(needle),
        );
      }),
      { numRuns: runs * 10 },
    );
  });

  it('hasPhonePart(text, digits) is whether a part has these phone digits', () => {
    fc.assert(
      fc.property(text, fc.nat(6), (value, pick) => {
        const parts = valueParts(value);
        const digits = phoneDigits(parts[pick] ?? '') ?? '14155550123';
        expect(hasPhonePart(value, digits), `${JSON.stringify(value)} ${digits}`).toBe(
          parts.some((part) => phoneDigits(part) === digits),
        );
      }),
      { numRuns: runs * 10 },
    );
  });

  it('looksEqual, short or long (a kept verdict), is the reading with every part listed', () => {
    fc.assert(
      fc.property(text, fc.nat(300), text, (value, pick, other) => {
        const literal = literalForms(needleOf(value, pick, other), parts);
        for (const raw of [value, long(value)]) {
          const expected = listedLooksEqual(new TextValue(raw), literal);
          const kept = new TextValue(raw);
          const remember = {};
          const read = () => kept.verdict(remember, (copy) => looksEqual(copy, literal, parts));
          expect(read(), `${JSON.stringify(raw.slice(-40))} ${literal.key}`).toBe(expected);
          // Read again: the kept verdict.
          expect(read()).toBe(expected);
        }
      }),
      { numRuns: runs * 3 },
    );
  });

  it('readAlike is whether the two texts share a reading, a long text searched', () => {
    fc.assert(
      fc.property(text, fc.nat(300), text, (value, pick, other) => {
        const bound = new TextValue(needleOf(value, pick, other));
        for (const raw of [value, long(value)]) {
          const expected = listedReadAlike(new TextValue(raw), bound);
          expect(readAlike(new TextValue(raw), bound, parts), JSON.stringify(raw.slice(-40))).toBe(
            expected,
          );
          expect(readAlike(bound, new TextValue(raw), parts)).toBe(expected);
        }
      }),
      { numRuns: runs * 3 },
    );
  });
});
