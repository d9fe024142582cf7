import { computeNumber } from '../language/arithmetic.js';
import type { AggregateFunction } from '../language/ast.js';
import { compareNumbers, isDecimal, type NumberValue } from '../language/decimal.js';

/**
 * `sum`, `min`, `max` over the data of a list (LANGUAGE.md §9). An element that is not a
 * number (text that looks like one, a boolean, null, an object) makes the whole value not
 * fit: a guard on it fires and a rule does not, so a tool that writes `"amount": "900"`
 * cannot make `sum(…) <= 1000` hold by being left out. `sum([])` is 0; `min` and `max`
 * of an empty list do not fit. Sums are exact decimals, as every number of the language.
 */

type Aggregate = (list: readonly unknown[]) => NumberValue | undefined;

function isNumber(data: unknown): data is NumberValue {
  return (typeof data === 'number' && Number.isFinite(data)) || isDecimal(data);
}

function sum(list: readonly unknown[]): NumberValue | undefined {
  // Whole numbers add exactly as doubles while the total stays a safe integer: the
  // common case (amounts in whole units, counts) costs one pass and no allocation.
  let total = 0;
  let index = 0;
  for (; index < list.length; index++) {
    const item = list[index];
    if (typeof item !== 'number' || !Number.isInteger(item)) break;
    const next = total + item;
    if (!Number.isSafeInteger(next)) break;
    total = next;
  }
  let exact: NumberValue = total;
  for (; index < list.length; index++) {
    const item = list[index];
    if (!isNumber(item)) return undefined;
    const next = computeNumber(exact, '+', item);
    if (next === undefined) return undefined;
    exact = next;
  }
  return exact;
}

function extreme(sign: 1 | -1): Aggregate {
  return (list) => {
    let best: NumberValue | undefined;
    for (const item of list) {
      if (!isNumber(item)) return undefined;
      if (best === undefined || compareNumbers(item, best) * sign > 0) best = item;
    }
    return best;
  };
}

const aggregates: Readonly<Record<AggregateFunction, Aggregate>> = {
  sum,
  min: extreme(-1),
  max: extreme(1),
};

/** The aggregate a function name stands for. */
export function aggregateOf(fn: AggregateFunction): Aggregate {
  return aggregates[fn];
}
