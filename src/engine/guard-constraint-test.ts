import {
  type CheckedConstraint,
  type Literal,
  normalizeText,
  operatorTable,
} from '../language/index.js';
import { normalizeNeedle } from '../language/text.js';
import { confusableSkeletons } from '../language/unicode/skeleton.js';
import {
  type ConstraintTest,
  compileConstraintTest,
  type SimilaritySettings,
} from './constraint-test.js';
import { requireSimilarity, similarityOf } from './similarity.js';
import { isTextValue, type ScalarValue, type TextValue } from './values.js';

/**
 * Guards err toward firing (LANGUAGE.md §5.1, §5.3). A guard's text constraint looks
 * past what an agent can vary without changing what a tool does or a person reads:
 *
 * - `=`, `in`, `contains` also hold when the value *looks like* the literal: equal
 *   confusable skeletons (UTS #39), so `Маllory` with a Cyrillic `М` is Mallory;
 * - a positive constraint (`=`, `in`, `matches`, `~`) also holds when it holds for a
 *   part of the value a tool might read as a separate value (`textParts`: items of
 *   `bob@x.com, alice@y.com`, the address in `Bob <bob@x.com>`, `x.com.` without its
 *   dot); `contains` needs no parts, a part's substring is the whole's;
 * - a negated one (`!=`, `not in`, `not matches`, `!~`) also holds when the parts mix
 *   values that pass the positive test with values that fail it (`Alice, Mallory` for
 *   `!= "Alice"`), while a value whose parts all fail, like "Alice Smith" against
 *   `!= "Alice Smith"`, is judged whole; `not contains` is the plain negation, as a part
 *   lacking the needle says nothing.
 *
 * Lists: each element is compared as above for `=`, `in`, `contains`, `matches`, `~`;
 * negated list constraints are plain negations. Other types are as in rules.
 * Absent arguments are the caller's (evaluation.ts).
 */
export function compileGuardTest(
  constraint: CheckedConstraint,
  settings: SimilaritySettings,
): ConstraintTest {
  const type = constraint.variable.type;
  const { positive: operator, negated } = operatorTable[constraint.operator];
  const literal = constraint.value;
  if (type.kind === 'text') {
    if (operator === 'contains') {
      return negated || literal.kind !== 'text'
        ? compileConstraintTest(constraint, settings)
        : containsTest(literal.value);
    }
    const test = textTest(operator, literal, settings);
    if (test === undefined) return compileConstraintTest(constraint, settings);
    return negated
      ? mixedPartsTest(test.strict)
      : (value) => isTextValue(value) && test.broad(value);
  }
  if (type.kind === 'list' && type.element === 'text' && !negated) {
    const test = listTest(operator, literal, settings);
    if (test !== undefined) return test;
  }
  return compileConstraintTest(constraint, settings);
}

/** A literal text as guards compare it: normalized, and its two skeletons. */
interface TextForms {
  readonly key: string;
  readonly cased: string;
  readonly folded: string;
}

function formsOf(text: string): TextForms {
  return { key: normalizeText(text), ...confusableSkeletons(text) };
}

interface TextTest {
  /** The rules' test of one normalized text (the raw text is for similarity). */
  readonly strict: (key: string, raw: string) => boolean;
  /** The guard's test of a text value: look-alikes and parts included. */
  readonly broad: (value: TextValue) => boolean;
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

/** The guard's tests of `=`, `in`, `matches` and `~` on one text. */
function textTest(
  operator: string,
  literal: Literal,
  settings: SimilaritySettings,
): TextTest | undefined {
  switch (operator) {
    case '=': {
      if (literal.kind !== 'text') return undefined;
      const forms = formsOf(literal.value);
      return { strict: (key) => key === forms.key, broad: (value) => looksEqual(value, forms) };
    }
    case 'in': {
      const texts = textsOf(literal);
      if (texts === undefined) return undefined;
      const all = texts.map(formsOf);
      const keys = new Set(all.map((forms) => forms.key));
      const cased = new Set(all.map((forms) => forms.cased));
      const folded = new Set(all.map((forms) => forms.folded));
      const inKeys = (part: string) => keys.has(part);
      const inCased = (part: string) => cased.has(part);
      const inFolded = (part: string) => folded.has(part);
      return {
        strict: inKeys,
        broad: (value) => {
          if (keys.has(value.key) || value.parts.some(inKeys)) return true;
          const skeletons = value.skeletons;
          if (cased.has(skeletons.cased) || folded.has(skeletons.folded)) return true;
          const parts = value.skeletonParts;
          return parts.cased.some(inCased) || parts.folded.some(inFolded);
        },
      };
    }
    case 'matches': {
      if (literal.kind !== 'regex') return undefined;
      const regex = literal.regex;
      const strict = (key: string) => regex.test(key);
      return { strict, broad: (value) => strict(value.key) || value.parts.some(strict) };
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
      };
    }
    default:
      return undefined;
  }
}

function looksEqual(value: TextValue, literal: TextForms): boolean {
  if (value.key === literal.key || value.parts.includes(literal.key)) return true;
  const skeletons = value.skeletons;
  if (skeletons.cased === literal.cased || skeletons.folded === literal.folded) return true;
  const parts = value.skeletonParts;
  return parts.cased.includes(literal.cased) || parts.folded.includes(literal.folded);
}

/** `contains` on a text: a substring of the normalized text or of one of its skeletons. */
function containsTest(needleText: string): ConstraintTest {
  const needle = normalizeNeedle(needleText);
  const { cased, folded } = confusableSkeletons(needleText, true);
  return (value) => {
    if (!isTextValue(value)) return false;
    if (value.key.includes(needle)) return true;
    const skeletons = value.skeletons;
    return skeletons.cased.includes(cased) || skeletons.folded.includes(folded);
  };
}

/**
 * A negated constraint: the whole text fails the positive test, or its parts mix
 * passing and failing values (`Alice, Mallory` for `!= "Alice"`).
 */
function mixedPartsTest(strict: TextTest['strict']): ConstraintTest {
  return (value) => {
    if (!isTextValue(value)) return false;
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
  };
}

/** Positive constraints on a `list<text>`, element by element as on one text. */
function listTest(
  operator: string,
  literal: Literal,
  settings: SimilaritySettings,
): ConstraintTest | undefined {
  if (operator === '=') {
    if (literal.kind !== 'list') return undefined;
    const texts = textsOf(literal);
    if (texts === undefined) return undefined;
    const elements = texts.map(formsOf);
    return (value) =>
      Array.isArray(value) &&
      value.length === elements.length &&
      value.every((item: ScalarValue, index) => {
        const forms = elements[index];
        return forms !== undefined && isTextValue(item) && looksEqual(item, forms);
      });
  }
  // `contains` on a list: some element equal to the literal.
  const test = textTest(operator === 'contains' ? '=' : operator, literal, settings);
  if (test === undefined) return undefined;
  const broad = (item: ScalarValue) => isTextValue(item) && test.broad(item);
  if (operator === 'in') return (value) => Array.isArray(value) && value.every(broad);
  return (value) => Array.isArray(value) && value.some(broad);
}
