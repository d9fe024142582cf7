import type { CompiledPredicate } from './compiled-spec.js';
import type { Value } from './values.js';

/** The values of one predicate instance, by variable index; undefined is unobserved. */
export type Instance = readonly (Value | undefined)[];

/** The key of a single-instance predicate's only instance. */
export const singleKey = '';

/** One change to a predicate: set some variables of an instance, or delete it. */
export interface StateUpdate {
  readonly predicate: CompiledPredicate;
  readonly operation: 'set' | 'delete';
  /** The instance key (`singleKey` for single-instance predicates). */
  readonly key: string;
  /** Variable index and new value; undefined clears the variable. */
  readonly assignments: ReadonlyArray<readonly [number, Value | undefined]>;
  /**
   * Set on a tool result that came but could not be read whole (E1): why. The instance
   * holds its call's arguments only; see `unreadableReason`.
   */
  readonly unreadable?: string;
}

/** Why an instance's result could not be read, per instance (instances are never mutated). */
const unreadableReasons = new WeakMap<Instance, string>();

/**
 * Why this instance is a tool result that came but could not be read (E1), or undefined.
 * Its fields are unread: inside `not` it counts as matching, and feedback says why.
 */
export function unreadableReason(instance: Instance): string | undefined {
  return unreadableReasons.get(instance);
}

/** Read access to predicate instances: the committed state, or it with a proposal laid over. */
export interface StateView {
  /** Calls `visit` for each instance until it returns true; returns whether one did. */
  someInstance(predicate: CompiledPredicate, visit: (instance: Instance) => boolean): boolean;
  instance(predicate: CompiledPredicate, key: string): Instance | undefined;
}

/** The committed state of a session. */
export class StateStore implements StateView {
  /**
   * Instances by predicate index. A Map rather than an array indexed by it: a session
   * observes a few predicates of a large spec, and an array written at index 5,000 turns
   * into a slow dictionary (or costs 8 bytes per declared predicate in every session).
   */
  readonly #predicates = new Map<number, Map<string, Instance>>();

  someInstance(predicate: CompiledPredicate, visit: (instance: Instance) => boolean): boolean {
    const instances = this.#predicates.get(predicate.index);
    if (!instances) return false;
    if (predicate.keyIndexes.length === 0) {
      const only = instances.get(singleKey);
      return only !== undefined && visit(only);
    }
    for (const instance of instances.values()) if (visit(instance)) return true;
    return false;
  }

  instance(predicate: CompiledPredicate, key: string): Instance | undefined {
    return this.#predicates.get(predicate.index)?.get(key);
  }

  instanceCount(predicate: CompiledPredicate): number {
    return this.#predicates.get(predicate.index)?.size ?? 0;
  }

  apply(update: StateUpdate): void {
    let instances = this.#predicates.get(update.predicate.index);
    if (update.operation === 'delete') {
      instances?.delete(update.key);
      return;
    }
    if (!instances) {
      instances = new Map();
      this.#predicates.set(update.predicate.index, instances);
    }
    instances.set(update.key, applyAssignments(instances.get(update.key), update));
  }

  /** Puts an instance back as it was (undefined: absent); used to roll a commit back. */
  put(predicate: CompiledPredicate, key: string, instance: Instance | undefined): void {
    let instances = this.#predicates.get(predicate.index);
    if (instance === undefined) {
      instances?.delete(key);
      return;
    }
    if (!instances) {
      instances = new Map();
      this.#predicates.set(predicate.index, instances);
    }
    instances.set(key, instance);
  }

  /** Every observed instance, for status reports and persistence. */
  *entries(
    predicates: readonly CompiledPredicate[],
  ): Generator<[CompiledPredicate, string, Instance]> {
    for (const predicate of predicates) {
      const instances = this.#predicates.get(predicate.index);
      if (!instances) continue;
      for (const [key, instance] of instances) yield [predicate, key, instance];
    }
  }
}

export function applyAssignments(base: Instance | undefined, update: StateUpdate): Instance {
  let next: (Value | undefined)[];
  if (base) next = base.slice();
  else {
    // Pushed rather than `new Array(n).fill()`, which stays a holey array, slower to read.
    next = [];
    for (let index = 0; index < update.predicate.variables.length; index++) next.push(undefined);
  }
  for (const [index, value] of update.assignments) next[index] = value;
  if (update.unreadable !== undefined) unreadableReasons.set(next, update.unreadable);
  return next;
}

/**
 * The tentative state of a proposal: the committed state with the proposal's
 * anticipated updates laid over it, without copying the committed state.
 */
export class Overlay implements StateView {
  /** predicate index → key → instance, or null for a deleted one. */
  readonly changes = new Map<number, Map<string, Instance | null>>();

  constructor(readonly base: StateStore) {}

  add(update: StateUpdate): void {
    let instances = this.changes.get(update.predicate.index);
    if (!instances) {
      instances = new Map();
      this.changes.set(update.predicate.index, instances);
    }
    if (update.operation === 'delete') {
      instances.set(update.key, null);
      return;
    }
    const current = instances.has(update.key)
      ? instances.get(update.key)
      : this.base.instance(update.predicate, update.key);
    instances.set(update.key, applyAssignments(current ?? undefined, update));
  }

  instance(predicate: CompiledPredicate, key: string): Instance | undefined {
    const changed = this.changes.get(predicate.index);
    if (changed?.has(key)) return changed.get(key) ?? undefined;
    return this.base.instance(predicate, key);
  }

  someInstance(predicate: CompiledPredicate, visit: (instance: Instance) => boolean): boolean {
    const changed = this.changes.get(predicate.index);
    if (!changed) return this.base.someInstance(predicate, visit);
    const fromBase = this.base.someInstance(predicate, (instance) => {
      // Instances the proposal changes are visited in their changed form below.
      for (const [key, replacement] of changed) {
        if (replacement !== undefined && this.base.instance(predicate, key) === instance)
          return false;
      }
      return visit(instance);
    });
    if (fromBase) return true;
    for (const instance of changed.values()) if (instance !== null && visit(instance)) return true;
    return false;
  }
}
