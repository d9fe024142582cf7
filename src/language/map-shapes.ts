import type { Shape } from './value-shapes.js';
import { jsonList } from './value-shapes.js';

/**
 * Typing of maps (v3, LANGUAGE.md §9): `m.*` and `keys(m)` read a json object used as a
 * map (keys are ids), such as τ-bench's `payment_methods`. Only json and records are
 * objects: a declared scalar or list is no map. The checker (checker/access.ts) and the
 * reading of a compiled spec (check-compiled-paths.ts) type both steps by these shapes.
 */

/** `m.*`: the values, json whatever the map holds; undefined when `m` is no object. */
export function mapValuesShape(shape: Shape): Shape | undefined {
  return isMapShape(shape) ? jsonList : undefined;
}

/** `keys(m)`: the keys, a list of texts; undefined when `m` is no object. */
export function mapKeysShape(shape: Shape): Shape | undefined {
  return isMapShape(shape) ? { kind: 'type', type: { kind: 'list', element: 'text' } } : undefined;
}

function isMapShape(shape: Shape): boolean {
  return shape.kind === 'json' || shape.kind === 'record';
}

/** What to write instead of a map step on something that is not a map. */
export function mapHint(shape: Shape): string {
  if (shape.kind === 'json-list' || shape.kind === 'records')
    return 'A list is no map: filter its elements with list[…] or pick one with list[0].';
  return 'Only json objects are maps; compare the value itself.';
}
