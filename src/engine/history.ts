import { plainConstructor } from '../support/plain-constructor.js';
import type { HistoryEntry } from './session-types.js';
import type { Verdict } from './verdict.js';

/**
 * A session's history entry of a proposal, made by a constructor for the reason
 * `PlainVerdict` is (verdict.ts): a long session keeps thousands of them.
 */
export const ProposeEntry = plainConstructor<
  [label: string | undefined, verdict: Verdict],
  Extract<HistoryEntry, { kind: 'propose' }>
>(function (this: Record<string, unknown>, label, verdict) {
  this.kind = 'propose';
  this.label = label;
  this.verdict = verdict;
});

/**
 * Appends to a session's history and keeps at least the newest `limit` entries. Trimmed
 * in batches of up to 1,024, so that the cost per entry stays constant; every session
 * kind (with a spec, without one, by majority) bounds its history this way.
 */
export function appendBounded<T = HistoryEntry>(history: T[], entry: T, limit: number): void {
  // A store at the end, not `push`: V8 compiled this call of `push` to a builtin call
  // (about 110 instructions an allowed step) where the store is inline.
  history[history.length] = entry;
  if (history.length >= limit + Math.min(1024, limit + 1))
    history.splice(0, history.length - limit);
}
