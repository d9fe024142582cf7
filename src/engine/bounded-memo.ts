/**
 * A least-recently-used map bounded both in entries and in the characters of its
 * keys. Sessions remember refused proposals (for soft repeats and escalation) by
 * their fingerprint, which holds the agent's values; an agent that sends a million
 * distinct refused proposals must not be able to grow the session without bound.
 *
 * Forgetting is always the safe direction here: a forgotten soft refusal is refused
 * again, and a forgotten hard-refusal count delays escalation to a person.
 */
interface Slot<V> {
  readonly value: V;
  /** When the entry was last moved to the recent end. */
  stamp: number;
}

export class BoundedMemo<V> {
  readonly #entries = new Map<string, Slot<V>>();
  #characters = 0;
  #clock = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxCharacters: number,
  ) {}

  get size(): number {
    return this.#entries.size;
  }

  /** Characters held in keys, for tests and status reports. */
  get characters(): number {
    return this.#characters;
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /**
   * The value, marking the entry as recently used. Moving an entry costs a delete and an
   * insert, so one already among the most recent half is left where it is: eviction
   * still takes only entries older than every recently used one.
   */
  get(key: string): V | undefined {
    const slot = this.#entries.get(key);
    if (slot === undefined) return undefined;
    if (this.#clock - slot.stamp > this.maxEntries >> 1) {
      this.#entries.delete(key);
      this.#entries.set(key, slot);
      slot.stamp = ++this.#clock;
    }
    return slot.value;
  }

  set(key: string, value: V): void {
    if (this.#entries.has(key)) this.delete(key);
    // A key larger than the whole budget would evict everything else and still not fit.
    if (this.maxEntries <= 0 || key.length > this.maxCharacters) return;
    this.#entries.set(key, { value, stamp: ++this.#clock });
    this.#characters += key.length;
    while (this.#entries.size > this.maxEntries || this.#characters > this.maxCharacters) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.delete(oldest.value);
    }
  }

  delete(key: string): boolean {
    if (!this.#entries.delete(key)) return false;
    this.#characters -= key.length;
    return true;
  }
}
