import { getHeapStatistics } from 'node:v8';
import { defaultLimits } from '../../language/index.js';

/**
 * What the service keeps in memory, bounded (S1): each session it holds — its spec, its
 * schema and its guard's journal, which carries every call and tool result — counts the
 * characters of their text. One session may hold `maxSessionText`; all the sessions in
 * memory together `maxServiceText`. Characters, not bytes: a session keeps text about
 * once more as it reads it (its normalized form), and text beyond Latin-1 takes two bytes
 * a character, so a budget of an eighth of the heap in characters keeps the heap at
 * most about half used by sessions.
 */
export interface ServiceMemoryLimits {
  /**
   * Characters one session may hold; a session at it takes no more work (409
   * `session-full`). Default: `limits.maxObservedText`, or an eighth of `maxServiceText`
   * when that is less.
   */
  readonly maxSessionText: number;
  /**
   * Characters all sessions in memory may hold; beyond it new work is 503
   * `over-capacity`. Default: an eighth of the heap limit (`--max-old-space-size`).
   */
  readonly maxServiceText: number;
}

/** The defaults, or the limits given, checked: a session's limit fits in the service's. */
export function serviceMemoryLimits(given: Partial<ServiceMemoryLimits> = {}): ServiceMemoryLimits {
  const maxServiceText =
    given.maxServiceText ?? Math.floor(getHeapStatistics().heap_size_limit / 8);
  // At least eight sessions at their limit fit, so that a few busy ones do not fill it.
  const maxSessionText =
    given.maxSessionText ??
    Math.max(1, Math.min(defaultLimits.maxObservedText, Math.floor(maxServiceText / 8)));
  for (const [name, value] of [
    ['maxSessionText', maxSessionText],
    ['maxServiceText', maxServiceText],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw new RangeError(`${name} must be a whole number of 1 or more, not ${value}`);
  }
  if (maxSessionText > maxServiceText)
    throw new RangeError(
      `maxSessionText (${maxSessionText}) must not be more than maxServiceText (${maxServiceText}): one session would not fit`,
    );
  return { maxSessionText, maxServiceText };
}
