import { normalizeText } from '../language/index.js';
import { type EngineParts, requirePart } from './engine-parts.js';
import { hasPart, hasPhonePart } from './value-parts.js';
import { isTextValue, shortTextLength, TextValue, type Value, valueKey } from './values.js';

/**
 * The deny-list reading of text (docs/language.md "Guards err toward firing"): what a
 * value may be read as by a tool or a person, beyond its normalized text. One reading,
 * used wherever reading a value more broadly is the safe direction:
 *
 * - guards (`reject`/`confirm`): a constraint holds more often, so the guard fires;
 * - `not P(…)` in rules: a value counts as matching whenever a guard would count it as
 *   matching, so `not` holds less often (E2);
 * - `@repeat(per: x)`: a value that may be read as one already served is not new (E4).
 *
 * A text may be read as:
 * - its **parts** (value-parts.ts): the items of a list written as one text, without
 *   trailing dots — never its words;
 * - its **look-alikes**: the confusable skeletons (UTS #39) of the text and its parts;
 * - for a phone-like text (`phoneDigits`), its **digits**: `+1 (415) 555-0123`,
 *   `tel:+14155550123` and `+14155550123` are one number.
 *
 * Which of these an operator uses is the constraint compiler's (guard-constraint-test.ts).
 */

/**
 * A phone-like text: an optional `tel:`, an optional `+`, then digits with the
 * punctuation people write in numbers (spaces, `-`, `.`, `/`, parentheses); 7 to 15
 * digits (E.164). Its digits, or undefined. A national spelling (`(415) 555-0123`) and
 * an international one (`+1 415 555 0123`) stay two numbers: nothing here knows the
 * country.
 */
const phoneShape = /^(?:tel:)?\+?[\d\s()./-]+$/;

export function phoneDigits(normalized: string): string | undefined {
  if (!phoneShape.test(normalized)) return undefined;
  const digits = normalized.replace(/\D+/g, '');
  return digits.length >= 7 && digits.length <= 15 ? digits : undefined;
}

/** A spec's literal text as the deny-list reading compares with it: whole, never in parts. */
export interface LiteralForms {
  readonly key: string;
  readonly cased: string;
  readonly folded: string;
  readonly phone: string | undefined;
}

export function literalForms(text: string, parts: EngineParts): LiteralForms {
  const key = normalizeText(text);
  return {
    key,
    ...requirePart(parts, 'confusables').skeletons(text),
    phone: phoneDigits(key),
  };
}

/** The phone numbers a value may be read as: its own, and its parts'. */
function phonesOf(value: TextValue): string[] {
  const phones: string[] = [];
  for (const text of [value.key, ...value.parts]) {
    const phone = phoneDigits(text);
    if (phone !== undefined) phones.push(phone);
  }
  return phones;
}

/**
 * Whether a value may be read as the literal: equal whole or in a part, by look or by
 * number. Parts are searched for (`hasPart`), never listed: a page of short items is
 * not split into its items for each literal compared with it.
 */
export function looksEqual(value: TextValue, literal: LiteralForms, parts: EngineParts): boolean {
  const key = value.key;
  if (key === literal.key || hasPart(key, literal.key)) return true;
  if (
    literal.phone !== undefined &&
    (phoneDigits(key) === literal.phone || hasPhonePart(key, literal.phone))
  )
    return true;
  const { cased, folded } = value.skeletons(parts);
  if (cased === literal.cased || folded === literal.folded) return true;
  return hasPart(cased, literal.cased) || hasPart(folded, literal.folded);
}

/**
 * Every reading of a value, tagged by kind (normalized text, skeleton before and after
 * case folding, phone digits): two values may be read as one when their readings meet.
 */
export function readingsOf(value: TextValue, parts: EngineParts): ReadonlySet<string> {
  const readings = new Set<string>([`k${value.key}`]);
  for (const part of value.parts) readings.add(`k${part}`);
  for (const phone of phonesOf(value)) readings.add(`p${phone}`);
  const { cased, folded } = value.skeletons(parts);
  readings.add(`c${cased}`);
  readings.add(`f${folded}`);
  const skeletonParts = value.skeletonParts(parts);
  for (const part of skeletonParts.cased) readings.add(`c${part}`);
  for (const part of skeletonParts.folded) readings.add(`f${part}`);
  return readings;
}

/** Whether a value may be read as one reading (`readingsOf`) of another, searching it. */
function hasReading(value: TextValue, reading: string, parts: EngineParts): boolean {
  const text = reading.slice(1);
  switch (reading[0]) {
    case 'k':
      return value.key === text || hasPart(value.key, text);
    case 'p':
      return phoneDigits(value.key) === text || hasPhonePart(value.key, text);
    case 'c': {
      const { cased } = value.skeletons(parts);
      return cased === text || hasPart(cased, text);
    }
    default: {
      const { folded } = value.skeletons(parts);
      return folded === text || hasPart(folded, text);
    }
  }
}

/**
 * Whether two values (a bound value and another) may be read as one. A long text is
 * searched for the few readings of a short one rather than split into all of its own,
 * and keeps the answer for the latest values compared with it (`TextValue.verdict`).
 */
export function readAlike(a: TextValue, b: TextValue, parts: EngineParts): boolean {
  if (a.key === b.key) return true;
  const [short, long] = a.raw.length <= b.raw.length ? [a, b] : [b, a];
  return long.verdict(`=${short.raw}`, (text) => {
    const shortReadings = readingsOf(short, parts);
    if (text.raw.length > shortTextLength && shortReadings.size <= 32) {
      for (const reading of shortReadings) if (hasReading(text, reading, parts)) return true;
      return false;
    }
    const readings = readingsOf(text, parts);
    for (const reading of shortReadings) if (readings.has(reading)) return true;
    return false;
  });
}

/**
 * Whether a text holds a bound value by look: one of its confusable skeletons holds the
 * value's (the value normalized whole: no space kept at its ends). A long text keeps
 * the answer for the latest values compared with it.
 */
export function containsLookAlike(text: TextValue, value: TextValue, parts: EngineParts): boolean {
  return text.verdict(`contains ${value.raw}`, (copy) => {
    const { cased, folded } = copy.skeletons(parts);
    const needle = value.skeletons(parts);
    return cased.includes(needle.cased) || folded.includes(needle.folded);
  });
}

/**
 * A text as a value, for readings of a plain key and its raw text (bindings): the value
 * it was read from when there is one, so that what is computed of it is kept with it.
 */
export function textOf(key: string, raw: string, value?: TextValue): TextValue {
  return value ?? new TextValue(raw, key);
}

/**
 * Whether a regex speaks of where a value starts or ends (`^`, `$`, `\A`, `\z` outside a
 * character class): such a regex describes one whole value — an address, an id, a path —
 * and a text that holds several values is read part by part. A regex without anchors
 * searches the text, and is tested on the whole text only: a part matching it is a
 * substring of the whole (separators are never word characters), and the parts of free
 * text (`RRULE:FREQ=WEEKLY;COUNT=4`) are no values of their own.
 */
export function regexReadsParts(pattern: string): boolean {
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    if (character === '\\') {
      const next = pattern[index + 1];
      if (!inClass && (next === 'A' || next === 'z')) return true;
      index++;
    } else if (inClass) {
      if (character === ']') inClass = false;
    } else if (character === '[') {
      inClass = true;
      // `[^…]` negates and `[]…]` holds a bracket: neither ends the class.
      if (pattern[index + 1] === '^') index++;
      if (pattern[index + 1] === ']') index++;
    } else if (character === '^' || character === '$') return true;
  }
  return false;
}

/**
 * What `@repeat(per: x)` counts a value under (E4): each of its readings, so that a value
 * with a reading already served is not new — `+14155550123, +14155550123`,
 * `+14155550123;+14155550188`, `+14155550123.`, `tel:+14155550123` and `+1 415 555 0123`
 * after `+14155550123`. A value that is no text counts under its own key.
 */
export function perValueReadings(value: Value | undefined, parts: EngineParts): readonly string[] {
  return isTextValue(value) ? [...readingsOf(value, parts)] : [valueKey(value)];
}
