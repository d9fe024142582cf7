import {
  arithmeticPrecedence,
  type CheckedAccess,
  type CheckedArithmetic,
  type CheckedComparison,
  numberText,
} from '../language/index.js';

/**
 * The v3 terms of a subject in plain words (LANGUAGE.md §9), for `explain`, feedback and
 * roadmaps: `sum(payment_methods.amount)` is "the sum of payment_methods.amount",
 * `flights[0].date` is "flights[first].date", `flights[-2]` "flights[2nd from last]".
 * Undefined when the subject has no v3 term: v2 subjects keep their written form.
 */

const aggregateWords = { sum: 'the sum', min: 'the least', max: 'the greatest' } as const;

function ordinal(position: number): string {
  const count = position < 0 ? -position : position + 1;
  const tail =
    count % 100 >= 11 && count % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][count % 10] ?? 'th');
  const word = count === 1 ? (position < 0 ? 'last' : 'first') : `${count}${tail}`;
  return position < 0 && count !== 1 ? `${word} from last` : word;
}

export function plainSubject(access: CheckedAccess): string | undefined {
  const fn = access.function;
  const aggregate = fn === 'sum' || fn === 'min' || fn === 'max';
  const positioned = access.steps.some((step) => step.kind === 'index');
  if (!aggregate && !positioned) return undefined;
  let text = aggregate ? access.text.slice(fn.length + 1, -1) : access.text;
  // Positions are written as whole numbers (the parser reads nothing else).
  if (positioned)
    text = text.replace(/\[(-?\d+)\]/g, (_, digits: string) => `[${ordinal(Number(digits))}]`);
  return aggregate ? `${aggregateWords[fn]} of ${text}` : text;
}

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
  if (kind === 'date') return `${amount}d`;
  const unit =
    (
      [
        [86_400, 'd'],
        [3_600, 'h'],
        [60, 'm'],
      ] as const
    ).find(([size]) => amount % size === 0) ?? ([1, 's'] as const);
  return `${amount / unit[0]}${unit[1]}`;
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
