import { durationText } from '../language/duration.js';
import {
  arithmeticPrecedence,
  type CheckedArithmetic,
  type CheckedComparison,
  numberText,
} from '../language/index.js';
import { joinWords } from './describe.js';

/*
 * Conditions on bindings (v3, LANGUAGE.md §9) in plain words, for `explain`, roadmaps and
 * feedback. A rule or guard with one has bindings, so a page has the join's evaluators
 * loaded (on-demand-part.ts): the words come with them rather than up front.
 */

const comparisonWords = {
  '=': 'is',
  '!=': 'is not',
  '<': 'is less than',
  '<=': 'is at most',
  '>': 'is more than',
  '>=': 'is at least',
} as const;

/** A duration in its largest exact unit: 86400 seconds is `1d` (days for a date's arithmetic). */
function durationWords(amount: number, kind: string | undefined): string {
  return kind === 'date' ? `${amount}d` : durationText(amount);
}

/** With the parentheses precedence needs, as the printer writes arithmetic (printer.ts). */
function termWords(
  term: CheckedArithmetic,
  kind: string | undefined,
  outer = 0,
  right = false,
): string {
  switch (term.kind) {
    case 'binding':
      return `$${term.name}`;
    case 'number':
      return numberText(term.value);
    case 'duration':
      return durationWords(term.seconds, kind);
    case 'clock':
      return term.word;
    case 'extremum':
      return `the ${term.function === 'min' ? 'lesser' : 'greater'} of ${termWords(term.left, kind)} and ${termWords(term.right, kind)}`;
    case 'operation': {
      const level = arithmeticPrecedence(term.operator);
      const text = `${termWords(term.left, kind, level)} ${term.operator} ${termWords(term.right, kind, level, true)}`;
      return level < outer || (right && level === outer) ? `(${text})` : text;
    }
  }
}

/**
 * A condition on bindings (v3) in plain words, for `explain`: `$paid - $price <= 600` is
 * "$paid - $price is at most 600", `max(0, $bags - 2 * $n)` "the greater of 0 and …".
 */
export function plainComparison(comparison: CheckedComparison): string {
  const { kind } = comparison;
  return `${termWords(comparison.left, kind)} ${comparisonWords[comparison.operator]} ${termWords(comparison.right, kind)}`;
}

/** ` where $paid - $price is at most 600` (v3): a rule's or guard's conditions on its bindings. */
export function comparisonsText(comparisons: readonly CheckedComparison[] | undefined): string {
  if (comparisons === undefined || comparisons.length === 0) return '';
  return ` where ${joinWords(comparisons.map(plainComparison))}`;
}
