import type { CheckedConstraint } from '../language/index.js';
import { isDecimal } from '../language/index.js';
import { bindingData } from './access-test.js';
import { joinWords } from './describe.js';
import type { UnmetCondition } from './evaluation.js';
import type { Key } from './join.js';
import { canonicalJson, cutText, type Value } from './values.js';

/**
 * The words of a reason about a path or a binding (feedback.ts): what a path reads in a
 * value, the values a binding was compared with. Only a spec with paths, filters or
 * bindings has such reasons, so these are part of the engine's on-demand part with the
 * evaluators they describe (path-evaluators.ts).
 */

type Bound = NonNullable<Extract<UnmetCondition, { kind: 'constraint' }>['bound']>;

/**
 * What a path with fields only (`wind.speed`, `count(days)`) reads in a value, as the
 * reason echoes it: the field rather than the whole record or json value (LANGUAGE.md
 * §7). Undefined for paths with filters (the rule's own walk is the authority there).
 */
export function pathText(
  constraint: CheckedConstraint,
  value: Value,
  maxEcho: number,
): string | undefined {
  const access = constraint.access;
  if (access === undefined || access.steps.some((step) => step.kind !== 'field')) return undefined;
  if (access.function !== undefined && access.function !== 'count' && access.function !== 'len')
    return undefined;
  let data: unknown = bindingData(value);
  for (const step of access.steps) {
    if (step.kind !== 'field') return undefined;
    if (Array.isArray(data)) return undefined;
    if (typeof data !== 'object' || data === null || !Object.hasOwn(data, step.name))
      return 'missing';
    data = (data as Record<string, unknown>)[step.name];
  }
  if (access.function !== undefined) {
    if (Array.isArray(data)) return String(data.length);
    return typeof data === 'string' && access.function === 'len'
      ? String([...data].length)
      : 'not a list';
  }
  return cutText(typeof data === 'string' ? JSON.stringify(data) : canonicalJson(data), maxEcho);
}

/**
 * What a bare filtered list expects: some element of it, with the values of the bindings
 * it compared with (`some element of legs[code = $c] with $c = "ZX410"`, T2).
 */
export function someElementText(text: string, bound: Bound | undefined, maxEcho: number): string {
  const binder = bound?.binder;
  const values = (bound?.bound ?? []).map((value) => cutText(boundText(value), maxEcho));
  return binder === undefined || values.length === 0
    ? `some element of ${text}`
    : `some element of ${text} with $${binder.name} = ${values.join(' or ')}`;
}

/** `, the one results[name = "Mike Johnson"].unique_id of SpokeoSearchPeopleResult gave ("a1b2")` */
export function describeBound(bound: Bound, maxEcho: number): string {
  if (bound.exhausted) return ' (the search for values of its bindings took too many steps)';
  const values = bound.bound.map((value) => cutText(boundText(value), maxEcho));
  const binder = bound.binder;
  const others =
    bound.others === undefined || bound.others.length === 0
      ? ''
      : `, with ${joinWords(bound.others.map((other) => `$${other.name} = ${cutText(boundText(other.value), maxEcho)}`))}`;
  if ('computed' in bound) {
    // `$p * 0.5 + 10 = 35 — $p is the products[…].price of ProductsResult (50)`
    const source =
      binder === undefined
        ? ''
        : ` — $${binder.name} is the ${binder.text} of ${binder.predicate} (${joinWords(values, 'or')})`;
    const value =
      bound.computed === undefined
        ? 'no value (the computation does not fit: a division by zero or a value of another type)'
        : boundText(bound.computed);
    return ` = ${value}${source}${others}`;
  }
  const source = binder === undefined ? '' : ` — the ${binder.text} of ${binder.predicate}`;
  return `${source} (${joinWords(values, 'or')})${others}`;
}

/** A bound value as feedback writes it: `"a1b2"`, `50`, `true`. */
export function boundText(value: unknown): string {
  const key = value as Key | undefined;
  if (key === undefined) return 'nothing';
  if (key.kind === 'text') return JSON.stringify(key.raw);
  if (key.kind === 'number') return isDecimal(key.value) ? key.value.toString() : String(key.value);
  if (key.kind === 'element') return boundText(key.of);
  return String(key.value);
}
