import type { CheckedAccess } from '../language/index.js';

/**
 * The v3 terms of a subject in plain words (LANGUAGE.md §9), for `explain`, feedback and
 * roadmaps: `sum(payment_methods.amount)` is "the sum of payment_methods.amount",
 * `flights[0].date` is "flights[first].date", `flights[-2]` "flights[2nd from last]",
 * `payment_methods.*` "payment_methods[each value]", `keys(payment_methods)`
 * "payment_methods[each key]".
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
  const mapped = access.steps.some((step) => step.kind === 'values' || step.kind === 'keys');
  if (!aggregate && !positioned && !mapped) return undefined;
  let text = aggregate ? access.text.slice(fn.length + 1, -1) : access.text;
  // Positions are written as whole numbers (the parser reads nothing else).
  if (positioned)
    text = text.replace(/\[(-?\d+)\]/g, (_, digits: string) => `[${ordinal(Number(digits))}]`);
  // Maps as positions are: words in brackets. A regex's `.*` in a filter is followed by
  // more pattern; a `keys(…)` around a filter with parentheses keeps its written form.
  if (mapped)
    text = text
      .replace(/\.\*(?=[[.), ]|$)/g, '[each value]')
      .replace(/keys\(([^()]*)\)/g, '$1[each key]');
  return aggregate ? `${aggregateWords[fn]} of ${text}` : text;
}
