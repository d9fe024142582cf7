/**
 * Dates, times and date-times as numbers, so that comparing them is comparing
 * numbers. Everything is wall-clock time: a spec says "before 19:00 today" in the
 * user's time zone, and the session clock resolves `today` in that zone, so no
 * instant-in-UTC conversion is ever needed here.
 *
 * - date: days since 1970-01-01
 * - time: seconds since midnight
 * - datetime: seconds since 1970-01-01T00:00 (wall clock)
 */

const secondsPerDay = 86_400;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

export function daysFromCivil(year: number, month: number, day: number): number | undefined {
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day))
    return undefined;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  return Math.round(Date.UTC(year, month - 1, day) / 86_400_000);
}

const dateShape = /^(\d{4})-(\d{2})-(\d{2})$/;
const timeShape = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** `2025-03-14` → days since epoch. */
export function parseDate(text: string): number | undefined {
  const match = dateShape.exec(text);
  if (!match) return undefined;
  return daysFromCivil(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** `19:00` or `19:00:30` → seconds since midnight. */
export function parseTime(text: string): number | undefined {
  const match = timeShape.exec(text);
  if (!match) return undefined;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  const seconds = match[3] === undefined ? 0 : Number(match[3]);
  if (hours > 23 || minutes > 59 || seconds > 59) return undefined;
  return hours * 3600 + minutes * 60 + seconds;
}

/** `2025-03-14T19:00[:30]` → wall-clock seconds since epoch. */
export function parseDateTime(text: string): number | undefined {
  const separator = text.indexOf('T');
  if (separator === -1) return undefined;
  const days = parseDate(text.slice(0, separator));
  const seconds = parseTime(text.slice(separator + 1));
  if (days === undefined || seconds === undefined) return undefined;
  return days * secondsPerDay + seconds;
}

export function formatDate(days: number): string {
  const date = new Date(days * 86_400_000);
  const year = String(date.getUTCFullYear()).padStart(4, '0');
  const month = String(date.getUTCMonth() + 1).padStart(2, '0');
  const day = String(date.getUTCDate()).padStart(2, '0');
  return `${year}-${month}-${day}`;
}

export function formatTime(seconds: number): string {
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  const base = `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
  return rest === 0 ? base : `${base}:${String(rest).padStart(2, '0')}`;
}

export function formatDateTime(seconds: number): string {
  const days = Math.floor(seconds / secondsPerDay);
  return `${formatDate(days)}T${formatTime(seconds - days * secondsPerDay)}`;
}
