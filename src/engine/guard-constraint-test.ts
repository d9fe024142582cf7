import { type CheckedConstraint, type Literal, operatorTable } from '../language/index.js';
import { normalizeNeedle } from '../language/text.js';
import {
  type CompileSettings,
  type ConstraintTest,
  compileConstraintTest,
} from './constraint-test.js';
import { literalForms, looksEqual, regexReadsParts } from './deny-list-reading.js';
import { requirePart } from './engine-parts.js';
import { requireSimilarity, similarityOf } from './similarity.js';
import { isTextValue, type ScalarValue, type TextValue } from './values.js';

/**
 * Constraints compiled with the deny-list reading (deny-list-reading.ts), which guards
 * use (LANGUAGE.md §5.1, §5.3: guards err toward firing) and so does a rule's `not P(…)`
 * (a value counts as matching whenever a guard would count it as matching). Per operator
 * on a text:
 *
 * - `=`, `in` (identifiers, addresses, numbers): the value or one of its parts may be
 *   read as the literal — equal, a look-alike, or the same phone number;
 * - `contains`: a substring of the normalized text or of one of its skeletons (a part's
 *   substring is the whole's);
 * - `matches`: on the whole text; a regex anchored with `^`/`$` also on each part
 *   (`regexReadsParts`); `~`: on the whole text and each part;
 * - `!=`, `not in`, `!~`, and `not matches` with an anchored regex: the whole fails the
 *   positive test, or the parts mix values that pass it with values that fail it
 *   (`Alice, Mallory` for `!= "Alice"`): a list of values holds one that differs;
 * - `not matches` with an unanchored regex is the negation of `matches`, so the two never
 *   both hold ("Sony Bravia 55-inch TV" does match `/sony/`); `not contains` is the
 *   negation of the rules' `contains`.
 *
 * Lists: each element is compared as above for `=`, `in`, `contains`, `matches`, `~`;
 * negated list constraints are plain negations. Other types are as in rules.
 * Absent arguments are the caller's (evaluation.ts).
 */
export function compileGuardTest(
  constraint: CheckedConstraint,
  settings: CompileSettings,
): ConstraintTest {
  const type = constraint.variable.type;
  const { positive: operator, negated } = operatorTable[constraint.operator];
  const literal = constraint.value;
  if (type.kind === 'text') {
    if (operator === 'contains') {
      return negated || literal.kind !== 'text'
        ? compileConstraintTest(constraint, settings)
        : containsTest(literal.value, settings);
    }
    const test = textTest(operator, literal, settings);
    if (test === undefined) return compileConstraintTest(constraint, settings);
    if (!negated) return (value) => isTextValue(value) && test.broad(value);
    if (!test.partsMix) return (value) => isTextValue(value) && !test.broad(value);
    return mixedPartsTest(test.strict);
  }
  if (type.kind === 'list' && type.element === 'text' && !negated) {
    const test = listTest(operator, literal, settings);
    if (test !== undefined) return test;
  }
  return compileConstraintTest(constraint, settings);
}

interface TextTest {
  /** The rules' test of one normalized text (the raw text is for similarity). */
  readonly strict: (key: string, raw: string) => boolean;
  /** The guard's test of a text value: look-alikes and parts included. */
  readonly broad: (value: TextValue) => boolean;
  /** Whether the negation holds where the parts mix passing and failing values. */
  readonly partsMix: boolean;
}

function textsOf(literal: Literal): readonly string[] | undefined {
  if (literal.kind === 'text') return [literal.value];
  if (literal.kind !== 'list') return undefined;
  const texts: string[] = [];
  for (const element of literal.elements) {
    if (element.kind !== 'text') return undefined;
    texts.push(element.value);
  }
  return texts;
}

/**
 * A deny-list test of one text whose verdict a long text keeps (`TextValue.verdict`):
 * a megabyte result is read once per test, not at every check that reads it.
 */
function remembered(test: (value: TextValue) => boolean): (value: TextValue) => boolean {
  const id = {};
  return (value) => value.verdict(id, test);
}

/** The guard's tests of `=`, `in`, `matches` and `~` on one text. */
function textTest(
  operator: string,
  literal: Literal,
  settings: CompileSettings,
): TextTest | undefined {
  const test = unrememberedTextTest(operator, literal, settings);
  return test === undefined ? undefined : { ...test, broad: remembered(test.broad) };
}

function unrememberedTextTest(
  operator: string,
  literal: Literal,
  settings: CompileSettings,
): TextTest | undefined {
  switch (operator) {
    case '=': {
      if (literal.kind !== 'text') return undefined;
      const forms = literalForms(literal.value, settings.parts);
      return {
        strict: (key) => key === forms.key,
        broad: (value) => looksEqual(value, forms, settings.parts),
        partsMix: true,
      };
    }
    case 'in': {
      const texts = textsOf(literal);
      if (texts === undefined) return undefined;
      const all = texts.map((text) => literalForms(text, settings.parts));
      const keys = new Set(all.map((forms) => forms.key));
      const inKeys = (part: string) => keys.has(part);
      return {
        strict: inKeys,
        broad: (value) =>
          inKeys(value.key) || all.some((forms) => looksEqual(value, forms, settings.parts)),
        partsMix: true,
      };
    }
    case 'matches': {
      if (literal.kind !== 'regex') return undefined;
      const regex = literal.regex;
      const strict = (key: string) => regex.test(key);
      if (!regexReadsParts(literal.pattern))
        return { strict, broad: (value) => strict(value.key), partsMix: false };
      return {
        strict,
        broad: (value) => strict(value.key) || value.parts.some(strict),
        partsMix: true,
      };
    }
    case '~': {
      if (literal.kind !== 'text') return undefined;
      requireSimilarity(settings.similarity);
      const target = literal.value;
      const strict = (_key: string, raw: string) =>
        similarityOf(settings.similarity, raw, target) >= settings.threshold;
      return {
        strict,
        broad: (value) =>
          strict(value.key, value.raw) || value.parts.some((part) => strict(part, part)),
        partsMix: true,
      };
    }
    default:
      return undefined;
  }
}

/** `contains` on a text: a substring of the normalized text or of one of its skeletons. */
function containsTest(needleText: string, { parts }: CompileSettings): ConstraintTest {
  const needle = normalizeNeedle(needleText);
  const { cased, folded } = requirePart(parts, 'confusables').skeletons(needleText, true);
  const test = remembered((value) => {
    if (value.key.includes(needle)) return true;
    const skeletons = value.skeletons(parts);
    return skeletons.cased.includes(cased) || skeletons.folded.includes(folded);
  });
  return (value) => isTextValue(value) && test(value);
}

/**
 * A negated constraint: the whole text fails the positive test, or its parts mix
 * passing and failing values (`Alice, Mallory` for `!= "Alice"`).
 */
function mixedPartsTest(strict: TextTest['strict']): ConstraintTest {
  const test = remembered((value) => {
    if (!strict(value.key, value.raw)) return true;
    const parts = value.parts;
    if (parts.length < 2) return false;
    let passes = false;
    let fails = false;
    for (const part of parts) {
      if (strict(part, part)) passes = true;
      else fails = true;
      if (passes && fails) return true;
    }
    return false;
  });
  return (value) => isTextValue(value) && test(value);
}

/** Positive constraints on a `list<text>`, element by element as on one text. */
function listTest(
  operator: string,
  literal: Literal,
  settings: CompileSettings,
): ConstraintTest | undefined {
  if (operator === '=') {
    if (literal.kind !== 'list') return undefined;
    const texts = textsOf(literal);
    if (texts === undefined) return undefined;
    const elements = texts.map((text) => {
      const forms = literalForms(text, settings.parts);
      return remembered((item) => looksEqual(item, forms, settings.parts));
    });
    return (value) =>
      Array.isArray(value) &&
      value.length === elements.length &&
      value.every((item: ScalarValue, index) => {
        const equal = elements[index];
        return equal !== undefined && isTextValue(item) && equal(item);
      });
  }
  // `contains` on a list: some element equal to the literal.
  const test = textTest(operator === 'contains' ? '=' : operator, literal, settings);
  if (test === undefined) return undefined;
  const broad = (item: ScalarValue) => isTextValue(item) && test.broad(item);
  if (operator === 'in') return (value) => Array.isArray(value) && value.every(broad);
  return (value) => Array.isArray(value) && value.some(broad);
}
