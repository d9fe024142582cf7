/** What `proposing` replaced when nothing waits (most proposals): shared, never changed. */
const nothingReplaced: readonly never[] = Object.freeze([]);

/**
 * The confirmations a session asked and has not had answered, by the call id of the
 * proposal that asked them (`undefined` for a proposal without one) — the one model of
 * pending approval, for `Session` and `MajoritySession` alike. A confirmation without a
 * call id waits only until the next proposal (FORMATS.md §3: `resolve` answers the latest
 * `confirm`); one with a call id waits until it is answered, so that several calls can
 * wait at once (a guard's, a trace's). At most `limit` wait: past it the oldest is
 * dropped, and answering it later finds nothing waiting (nothing is committed).
 */
export class PendingApprovals<T> {
  readonly #waiting = new Map<string | undefined, T>();
  /** The key of the latest proposal's confirmation while it waits: what `take()` without an id answers. */
  #latest: { readonly key: string | undefined } | undefined;
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  /**
   * As a proposal starts: it replaces the confirmation without a call id, and an earlier
   * one of its own call. Returns those it replaced (unanswered: denied).
   */
  proposing(callId: string | undefined): readonly T[] {
    // Nothing waits before most proposals: then nothing is replaced, and nothing allocated.
    if (this.#waiting.size === 0) {
      this.#latest = undefined;
      return nothingReplaced as readonly T[];
    }
    const replaced: T[] = [];
    for (const key of callId === undefined ? [undefined] : [undefined, callId]) {
      const approval = this.#waiting.get(key);
      if (approval !== undefined) replaced.push(approval);
      this.#waiting.delete(key);
    }
    this.#latest = undefined;
    return replaced;
  }

  /** Keeps the confirmation the proposal of `callId` asked. */
  ask(callId: string | undefined, approval: T): void {
    if (this.#waiting.size >= this.#limit) {
      const oldest = this.#waiting.keys().next();
      if (!oldest.done) this.#waiting.delete(oldest.value);
    }
    this.#waiting.set(callId, approval);
    this.#latest = { key: callId };
  }

  /** Takes out what an answer settles: the confirmation of `callId`, or without one the latest proposal's. */
  take(callId: string | undefined): T | undefined {
    const key = callId !== undefined ? callId : this.#latest?.key;
    if (callId === undefined && this.#latest === undefined) return undefined;
    const approval = this.#waiting.get(key);
    this.#waiting.delete(key);
    if (this.#latest !== undefined && this.#latest.key === key) this.#latest = undefined;
    return approval;
  }

  get size(): number {
    return this.#waiting.size;
  }
}

/** A call id as given, or `undefined` when there is none usable (JavaScript callers may pass anything). */
export function callIdOf(callId: unknown): string | undefined {
  return typeof callId === 'string' && callId !== '' ? callId : undefined;
}
