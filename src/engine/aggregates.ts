import { sumNumbers } from '../language/arithmetic.js';
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
  for (const item of list) if (!isNumber(item)) return undefined;
  return sumNumbers(list as readonly NumberValue[]);
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
