import { type AggregateFunction, aggregateFunctions, type SubjectFunction } from '../ast.js';
import type { Shape } from '../value-shapes.js';

/**
 * Typing of `sum`, `min`, `max` over a list (LANGUAGE.md §9): their elements must be
 * numbers — declared so, or json, whose elements only the run-time data shows (an
 * element that is not a number then makes the aggregate a value that does not fit).
 */

export function isAggregate(fn: SubjectFunction): fn is AggregateFunction {
  return (aggregateFunctions as readonly string[]).includes(fn);
}

/** Whether the elements of a list can be added up and ordered. */
export function aggregatesElements(element: Shape): boolean {
  return element.kind === 'json' || (element.kind === 'type' && element.type.kind === 'number');
}

/** What to write instead: a projection to a numeric field, or a count. */
export function aggregateHint(fn: AggregateFunction, element: Shape): string {
  if (element.kind === 'record' || element.kind === 'records')
    return `Project the list to a numeric field: ${fn}(list.amount).`;
  return fn === 'sum'
    ? 'Only numbers add up; to count the elements write count(list).'
    : `Only numbers order for ${fn}; compare texts element by element with any(…) or each(…).`;
}
