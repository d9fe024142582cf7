import { EvalInputError } from './errors.js';

/**
 * Reads a case selection such as `0-143`, `3`, `0-9,20,30-35`: ranges and single
 * indexes, comma-separated, each within `0..max`. The result is sorted and without
 * duplicates. Anything else is an `invalid-case-range` error saying which part is wrong.
 */
export function parseCaseRange(text: string, max: number): number[] {
  const chosen = new Set<number>();
  const parts = text.split(',');
  for (const raw of parts) {
    const part = raw.trim();
    const match = /^(\d{1,6})(?:\s*-\s*(\d{1,6}))?$/.exec(part);
    if (!match) {
      throw new EvalInputError(
        'invalid-case-range',
        `--cases: '${part}' in '${text}' is not an index or a range like 0-143`,
      );
    }
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    if (last < first) {
      throw new EvalInputError(
        'invalid-case-range',
        `--cases: the range '${part}' ends before it starts`,
      );
    }
    if (last > max) {
      throw new EvalInputError(
        'invalid-case-range',
        `--cases: '${part}' is beyond the last case (${max})`,
      );
    }
    for (let index = first; index <= last; index++) chosen.add(index);
  }
  return [...chosen].sort((left, right) => left - right);
}
