import { caseFoldingMultiple, caseFoldingRuns } from './case-folding-data.js';

/**
 * Unicode full case folding (CaseFolding.txt, statuses C and F: `ß` → `ss`, `İ` → `i̇`,
 * final sigma → `σ`), from compact generated data (case-folding-data.ts) instead of a
 * table of every code point, since it is in every page that guards text. Deterministic:
 * it never depends on the JavaScript engine's own Unicode tables.
 */

let table: Map<number, string> | undefined;

/** Decoded on first use (only text beyond ASCII needs it). */
function foldingTable(): Map<number, string> {
  if (table) return table;
  const map = new Map<number, string>();
  for (const run of caseFoldingRuns.split(' ')) {
    const [start, count, stride, delta] = run
      .split(',')
      .map((part) => Number.parseInt(part, 36)) as [number, number, number, number];
    for (let index = 0; index < count; index++) {
      const codePoint = start + index * stride;
      map.set(codePoint, String.fromCodePoint(codePoint + delta));
    }
  }
  for (const entry of caseFoldingMultiple.split(' ')) {
    const [codePoint, folded] = entry.split(':') as [string, string];
    map.set(
      Number.parseInt(codePoint, 36),
      String.fromCodePoint(...folded.split('+').map((part) => Number.parseInt(part, 36))),
    );
  }
  table = map;
  return map;
}

/** The full case folding of a text, code point by code point. */
export function caseFold(text: string): string {
  const map = foldingTable();
  let result = '';
  for (const character of text) result += map.get(character.codePointAt(0) ?? 0) ?? character;
  return result;
}
