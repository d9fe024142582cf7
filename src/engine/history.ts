import type { HistoryEntry } from './session-types.js';

/**
 * Appends to a session's history and keeps at least the newest `limit` entries. Trimmed
 * in batches of up to 1,024, so that the cost per entry stays constant; every session
 * kind (with a spec, without one, by majority) bounds its history this way.
 */
export function appendBounded<T = HistoryEntry>(history: T[], entry: T, limit: number): void {
  history.push(entry);
  if (history.length >= limit + Math.min(1024, limit + 1))
    history.splice(0, history.length - limit);
}
