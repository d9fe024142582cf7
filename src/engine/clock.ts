import { daysFromCivil, parseDate, parseDateTime, type RelativeDate } from '../language/index.js';

/**
 * The wall-clock moment a session resolves `today`, `tomorrow`, `yesterday` and `now`
 * against. It is fixed when the session starts (LANGUAGE.md §5.1), which keeps a
 * session's verdicts deterministic however long it runs.
 */
export interface SessionClock {
  /** Days since 1970-01-01 of the session's date. */
  readonly today: number;
  /** Seconds since midnight. */
  readonly time: number;
  /** Wall-clock seconds since 1970-01-01T00:00. */
  readonly dateTime: number;
  readonly timeZone: string;
}

/** What a caller may give as the session's "now". */
export type ClockInput = Date | string | number | undefined;

/** One formatter per time zone: building an `Intl.DateTimeFormat` costs more than a check. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    // Zones are few (IANA names); a bound keeps hostile input from growing the cache.
    if (formatters.size >= 64) formatters.clear();
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Wall-clock parts of an instant in an IANA time zone, through Intl (available in every runtime). */
export function wallClock(instant: Date, timeZone: string): { days: number; seconds: number } {
  const formatter = formatterFor(timeZone);
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const days = daysFromCivil(parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1) ?? 0;
  return {
    days,
    seconds: (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0),
  };
}

const offsetSuffix = /(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Builds the session clock. A string without an offset (`2025-03-14T12:00`, as
 * `--now` takes) is already wall-clock time; an instant (a Date, epoch
 * milliseconds, or an ISO string with an offset) is converted into `timeZone`.
 */
export function createClock(input: ClockInput, timeZone = 'UTC'): SessionClock {
  if (typeof input === 'string' && !offsetSuffix.test(input.trim())) {
    const text = input.trim().replace(' ', 'T');
    const dateOnly = parseDate(text);
    const dateTime = dateOnly === undefined ? parseDateTime(text) : dateOnly * 86_400;
    if (dateTime === undefined)
      throw new RangeError(`'${input}' is not a date or date-time (use YYYY-MM-DDTHH:MM)`);
    const today = Math.floor(dateTime / 86_400);
    return { today, time: dateTime - today * 86_400, dateTime, timeZone };
  }
  const instant =
    input === undefined ? new Date() : input instanceof Date ? input : new Date(input);
  if (Number.isNaN(instant.getTime()))
    throw new RangeError(`'${String(input)}' is not a valid time`);
  const { days, seconds } = wallClock(instant, timeZone);
  return { today: days, time: seconds, dateTime: days * 86_400 + seconds, timeZone };
}

const dayOffsets: Readonly<Record<RelativeDate, number>> = {
  yesterday: -1,
  today: 0,
  tomorrow: 1,
  now: 0,
};

/**
 * A clock word read as a date (days since 1970-01-01), a time or a date-time (seconds):
 * `now` as a date is today, as a time the time of day; a day word as a date-time is its
 * midnight.
 */
export function clockReading(
  word: RelativeDate,
  as: 'date' | 'time' | 'datetime',
  clock: SessionClock,
): number {
  const offset = dayOffsets[word];
  if (as === 'date') return clock.today + offset;
  if (as === 'time') return clock.time;
  if (word === 'now') return clock.dateTime;
  return (clock.today + offset) * 86_400;
}
