/* Duration literals (LANGUAGE.md §7): `90s`, `30m`, `3h`, `2d`, read and written. */

const units: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** The seconds of a duration literal (`90s`, `30m`, `3h`, `2d`); undefined if malformed. */
export function durationSeconds(text: string): number | undefined {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match) return undefined;
  const seconds = Number(match[1]) * (units[match[2] ?? ''] ?? Number.NaN);
  return Number.isSafeInteger(seconds) ? seconds : undefined;
}

/** A whole number of seconds as a duration literal in its largest exact unit: 86400 is `1d`. */
export function durationText(seconds: number): string {
  const [unit, size] = Object.entries(units)
    .reverse()
    .find(([, size]) => seconds % size === 0) ?? ['s', 1];
  return `${seconds / size}${unit}`;
}
