import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemaOf, specOf, state } from '../../test/engine/fixtures.js';
import { allEngineParts } from './all-parts.js';
import { compileSpec } from './compiled-spec.js';
import { lexicalSimilarity } from './lexical-similarity.js';
import {
  applyAssignments,
  type Instance,
  Overlay,
  StateStore,
  type StateUpdate,
  singleKey,
} from './state.js';
import type { Value } from './values.js';

const schema = schemaOf(
  state('Form', { name: 'text', count: 'number' }),
  state('Alarm', { id: 'text', hour: 'number', on: 'boolean' }, { keys: ['id'] }),
);
const compiled = compileSpec(specOf('Form() & Alarm() -> Done', schema), {
  similarity: lexicalSimilarity,
  threshold: 0.75,
  parts: allEngineParts,
});
const form = compiled.predicates.get('Form')!;
const alarm = compiled.predicates.get('Alarm')!;

const set = (
  predicate: typeof form,
  key: string,
  assignments: ReadonlyArray<readonly [number, Value | undefined]>,
): StateUpdate => ({ predicate, operation: 'set', key, assignments });
const remove = (predicate: typeof form, key: string): StateUpdate => ({
  predicate,
  operation: 'delete',
  key,
  assignments: [],
});

function instances(
  view: { someInstance: StateStore['someInstance'] },
  predicate: typeof form,
): Instance[] {
  const seen: Instance[] = [];
  view.someInstance(predicate, (instance) => {
    seen.push(instance);
    return false;
  });
  return seen;
}

describe('StateStore', () => {
  it('starts empty: no instance is observed', () => {
    const store = new StateStore();
    expect(store.instance(form, singleKey)).toBeUndefined();
    expect(store.instanceCount(form)).toBe(0);
    expect(store.someInstance(form, () => true)).toBe(false);
  });

  it('merges set updates into the instance, variable by variable, and clears with undefined', () => {
    const store = new StateStore();
    store.apply(set(form, singleKey, [[0, 'A']]));
    expect(store.instance(form, singleKey)).toEqual(['A', undefined]);
    store.apply(set(form, singleKey, [[1, 3]]));
    expect(store.instance(form, singleKey)).toEqual(['A', 3]);
    store.apply(set(form, singleKey, [[0, undefined]]));
    expect(store.instance(form, singleKey)).toEqual([undefined, 3]);
    expect(store.instanceCount(form)).toBe(1);
  });

  it('never mutates an instance it handed out', () => {
    const store = new StateStore();
    store.apply(set(form, singleKey, [[0, 'A']]));
    const before = store.instance(form, singleKey);
    store.apply(set(form, singleKey, [[0, 'B']]));
    expect(before).toEqual(['A', undefined]);
    expect(store.instance(form, singleKey)).toEqual(['B', undefined]);
  });

  it('holds one instance per key of a keyed predicate, and deletes by key', () => {
    const store = new StateStore();
    store.apply(
      set(alarm, 'a', [
        [0, 'a'],
        [1, 7],
      ]),
    );
    store.apply(
      set(alarm, 'b', [
        [0, 'b'],
        [1, 9],
      ]),
    );
    expect(store.instanceCount(alarm)).toBe(2);
    expect(instances(store, alarm)).toEqual([
      ['a', 7, undefined],
      ['b', 9, undefined],
    ]);
    store.apply(remove(alarm, 'a'));
    expect(store.instance(alarm, 'a')).toBeUndefined();
    expect(instances(store, alarm)).toEqual([['b', 9, undefined]]);
    store.apply(remove(alarm, 'missing'));
    store.apply(remove(form, singleKey));
    expect(store.instanceCount(alarm)).toBe(1);
  });

  it('stops visiting at the first instance the visitor accepts', () => {
    const store = new StateStore();
    for (const key of ['a', 'b', 'c']) store.apply(set(alarm, key, [[0, key]]));
    const visited: unknown[] = [];
    const found = store.someInstance(alarm, (instance) => {
      visited.push(instance[0]);
      return instance[0] === 'b';
    });
    expect(found).toBe(true);
    expect(visited).toEqual(['a', 'b']);
  });

  it('lists every observed instance', () => {
    const store = new StateStore();
    store.apply(set(form, singleKey, [[1, 1]]));
    store.apply(set(alarm, 'x', [[0, 'x']]));
    expect(
      [...store.entries(compiled.predicateList)].map(
        ([predicate, key]) => `${predicate.name}/${key}`,
      ),
    ).toEqual(['Form/', 'Alarm/x']);
  });
});

describe('applyAssignments', () => {
  it('returns a new instance and leaves the base alone', () => {
    const base: Instance = ['A', 1];
    const next = applyAssignments(base, set(form, singleKey, [[1, 2]]));
    expect(next).toEqual(['A', 2]);
    expect(base).toEqual(['A', 1]);
    expect(applyAssignments(undefined, set(form, singleKey, [[0, 'Z']]))).toEqual(['Z', undefined]);
  });
});

describe('Overlay', () => {
  function storeWithAlarms(): StateStore {
    const store = new StateStore();
    store.apply(
      set(form, singleKey, [
        [0, 'A'],
        [1, 1],
      ]),
    );
    store.apply(
      set(alarm, 'a', [
        [0, 'a'],
        [1, 7],
        [2, true],
      ]),
    );
    store.apply(
      set(alarm, 'b', [
        [0, 'b'],
        [1, 9],
        [2, false],
      ]),
    );
    return store;
  }

  function snapshot(store: StateStore): unknown {
    return [...store.entries(compiled.predicateList)].map(([predicate, key, instance]) => [
      predicate.name,
      key,
      [...instance],
    ]);
  }

  it('shows updates laid over the store', () => {
    const store = storeWithAlarms();
    const overlay = new Overlay(store);
    overlay.add(set(form, singleKey, [[1, 2]]));
    overlay.add(set(alarm, 'a', [[1, 8]]));
    overlay.add(set(alarm, 'c', [[0, 'c']]));
    expect(overlay.instance(form, singleKey)).toEqual(['A', 2]);
    expect(overlay.instance(alarm, 'a')).toEqual(['a', 8, true]);
    expect(overlay.instance(alarm, 'b')).toEqual(['b', 9, false]);
    expect(overlay.instance(alarm, 'c')).toEqual(['c', undefined, undefined]);
    expect(instances(overlay, alarm)).toEqual([
      ['b', 9, false],
      ['a', 8, true],
      ['c', undefined, undefined],
    ]);
  });

  it('visits a changed instance only in its changed form', () => {
    const store = storeWithAlarms();
    const overlay = new Overlay(store);
    overlay.add(set(alarm, 'b', [[1, 10]]));
    const hours = instances(overlay, alarm).map((instance) => instance[1]);
    expect(hours.sort()).toEqual([10, 7]);
  });

  it('hides deleted instances, and a later set in the same proposal starts a fresh one', () => {
    const store = storeWithAlarms();
    const overlay = new Overlay(store);
    overlay.add(remove(alarm, 'a'));
    expect(overlay.instance(alarm, 'a')).toBeUndefined();
    expect(instances(overlay, alarm)).toEqual([['b', 9, false]]);
    overlay.add(set(alarm, 'a', [[0, 'a']]));
    expect(overlay.instance(alarm, 'a')).toEqual(['a', undefined, undefined]);
    overlay.add(remove(form, singleKey));
    expect(overlay.someInstance(form, () => true)).toBe(false);
  });

  it('combines several updates of the same instance', () => {
    const overlay = new Overlay(new StateStore());
    overlay.add(set(form, singleKey, [[0, 'X']]));
    overlay.add(set(form, singleKey, [[1, 5]]));
    expect(overlay.instance(form, singleKey)).toEqual(['X', 5]);
  });

  it('never mutates the store', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.record({
              key: fc.constantFrom('a', 'b', 'c'),
              hour: fc.option(fc.integer({ min: 0, max: 23 }), { nil: undefined }),
            }),
            fc.record({ key: fc.constantFrom('a', 'b', 'c'), remove: fc.constant(true) }),
          ),
          { maxLength: 8 },
        ),
        (changes) => {
          const store = storeWithAlarms();
          const before = snapshot(store);
          const overlay = new Overlay(store);
          for (const change of changes) {
            if ('remove' in change) overlay.add(remove(alarm, change.key));
            else
              overlay.add(
                set(alarm, change.key, [
                  [0, change.key],
                  [1, change.hour],
                ]),
              );
          }
          instances(overlay, alarm);
          expect(snapshot(store)).toEqual(before);
          // The overlay agrees with applying the same changes to a copy of the store.
          const copy = storeWithAlarms();
          for (const change of changes) {
            if ('remove' in change) copy.apply(remove(alarm, change.key));
            else
              copy.apply(
                set(alarm, change.key, [
                  [0, change.key],
                  [1, change.hour],
                ]),
              );
          }
          for (const key of ['a', 'b', 'c'])
            expect(overlay.instance(alarm, key)).toEqual(copy.instance(alarm, key));
          const sortKey = (instance: Instance) => String(instance[0]);
          expect(
            instances(overlay, alarm).sort((x, y) => sortKey(x).localeCompare(sortKey(y))),
          ).toEqual(instances(copy, alarm).sort((x, y) => sortKey(x).localeCompare(sortKey(y))));
        },
      ),
    );
  });
});
