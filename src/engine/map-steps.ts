import { defaultLimits } from '../language/limits.js';

/**
 * `m.*` and `keys(m)` on data (v3, LANGUAGE.md §9): the values and the keys of a json
 * object used as a map. Both come in the order of the keys (by UTF-16 code unit), never
 * in the order the tool wrote them: a tool that reorders its object cannot change which
 * element `m.*[0]` is, which binding a filter makes first, or any verdict. `__proto__`
 * and `constructor` are keys like any other: only the object's own entries are read.
 * A map with as many entries as one join may try (`maxJoinWork`) or more is not read
 * (`tooLarge`): reading it alone would spend the whole budget of the join it is part of.
 */

export type MapEntries = readonly (readonly [string, unknown])[];

/** The result when the map has `limit` entries or more. */
export const tooLarge: unique symbol = Symbol('too large');

/** Per object: its entries, or `tooLarge` (so a huge map is counted once, not per proposal). */
const known = new WeakMap<object, MapEntries | typeof tooLarge>();

function byKey(left: readonly [string, unknown], right: readonly [string, unknown]): number {
  return left[0] < right[0] ? -1 : left[0] > right[0] ? 1 : 0;
}

/**
 * The own entries of an object in key order, made once per object (data is never
 * mutated once read); `tooLarge` at `limit` entries or more, counted before any is copied.
 */
export function mapEntries(
  map: object,
  limit: number = defaultLimits.maxJoinWork,
): MapEntries | typeof tooLarge {
  const cached = known.get(map);
  if (cached !== undefined) return cached;
  let size = 0;
  for (const key in map) {
    if (Object.hasOwn(map, key) && ++size >= limit) {
      known.set(map, tooLarge);
      return tooLarge;
    }
  }
  const entries = Object.entries(map).sort(byKey);
  known.set(map, entries);
  return entries;
}

const valueLists = new WeakMap<MapEntries, readonly unknown[]>();
const keyLists = new WeakMap<MapEntries, readonly string[]>();

/** `m.*`: one list per map, so the filters after it find their memo (access-test.ts). */
export function mapValues(entries: MapEntries): readonly unknown[] {
  let values = valueLists.get(entries);
  if (values === undefined) {
    values = entries.map((entry) => entry[1]);
    valueLists.set(entries, values);
  }
  return values;
}

/** `keys(m)`: one list per map. */
export function mapKeys(entries: MapEntries): readonly string[] {
  let keys = keyLists.get(entries);
  if (keys === undefined) {
    keys = entries.map((entry) => entry[0]);
    keyLists.set(entries, keys);
  }
  return keys;
}
