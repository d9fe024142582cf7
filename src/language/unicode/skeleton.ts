import { IntentguardError } from '../../support/errors.js';
import { ignorableClass } from '../../support/printable-text.js';
import { collapseSpaces } from '../text.js';
import { caseFold } from './case-folding.js';

/**
 * Unicode confusable skeletons (UTS #39 §4), as guards compare text by them
 * (LANGUAGE.md §5.1): two texts that look alike — `Маllory` with a Cyrillic `М`,
 * `pаssword` with a Cyrillic `а`, `Mall0ry` — get the same skeleton.
 */

let prototypes: Map<number, string> | undefined;
/** The table (confusables.ts), once provided: at once where the checker is (confusables-eager.ts), on demand in pages. */
let prototypeTable: string | undefined;

/** Provides the confusables table (confusables.ts); the first one provided stays. */
export function provideConfusablePrototypes(table: string): void {
  prototypeTable ??= table;
}

/** Whether skeletons can be computed now. */
export function confusablesLoaded(): boolean {
  return prototypeTable !== undefined;
}

/**
 * Loads the confusables table (about 26 KB gzipped) where it was not loaded with the
 * checker: a page's guard awaits it before deciding when its guards compare text, and
 * before it checks a final answer (fabricated-action.ts).
 */
export async function loadConfusables(): Promise<void> {
  if (prototypeTable !== undefined) return;
  provideConfusablePrototypes((await import('./confusables.js')).confusablePrototypes);
}

/** Parsed on first use: only sessions whose guards compare text need it. */
function prototypeMap(): Map<number, string> {
  if (prototypes) return prototypes;
  // Never a skeleton without the table: that would let a look-alike past a guard. The
  // session turns this into an `internal-error` refusal (fail closed).
  if (prototypeTable === undefined)
    throw new IntentguardError({
      code: 'missing-part',
      message:
        'Confusable skeletons need the confusables table, which is not loaded (loadConfusables).',
    });
  const map = new Map<number, string>();
  for (const line of prototypeTable.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const prototype = String.fromCodePoint(
      ...line
        .slice(0, colon)
        .split('+')
        .map((part) => Number.parseInt(part, 16)),
    );
    for (const source of line.slice(colon + 1).split(' '))
      map.set(Number.parseInt(source, 16), prototype);
  }
  // Full stops that IDNA (UTS #46) reads as the label separator '.', so `evil。com` is
  // the domain `evil.com`; confusables.txt maps the ideographic one to a ring instead.
  for (const stop of [0x3002, 0xff0e, 0xff61]) map.set(stop, '.');
  // Small capitals read as their letters (`ʀefund` is "Refund"); confusables.txt keeps
  // most of them as prototypes of their own, and of look-alikes that map to them.
  const smallCapitals = 'ᴀaʙbᴄcᴅdᴇeꜰfɢgʜhɪiᴊjᴋkʟlᴍmɴnᴏoᴘpꞯqʀrꜱsᴛtᴜuᴠvᴡwʏyᴢz';
  const letters = new Map<string, string>();
  for (let index = 0; index < smallCapitals.length; index += 2)
    letters.set(smallCapitals[index] as string, smallCapitals[index + 1] as string);
  for (const [source, prototype] of map) {
    const letter = letters.get(prototype);
    if (letter !== undefined) map.set(source, letter);
  }
  for (const [capital, letter] of letters) map.set(capital.codePointAt(0) ?? 0, letter);
  prototypes = map;
  return map;
}

/** The prototypes of ASCII, from the map, by code (an array lookup, not a hash). */
let asciiPrototypes: (string | undefined)[] | undefined;

/** Each code point's prototype; unchanged stretches sliced and joined once (no rope, S1). */
function mapPrototypes(text: string): string {
  const map = prototypeMap();
  asciiPrototypes ??= Array.from({ length: 0x80 }, (_, code) => map.get(code));
  const ascii = asciiPrototypes;
  const decomposed = text.normalize('NFD');
  const pieces: string[] = [];
  let start = 0;
  for (let index = 0; index < decomposed.length; ) {
    const codePoint = decomposed.codePointAt(index) ?? 0;
    const width = codePoint > 0xffff ? 2 : 1;
    const prototype = codePoint < 0x80 ? ascii[codePoint] : map.get(codePoint);
    if (prototype !== undefined) {
      if (index > start) pieces.push(decomposed.slice(start, index));
      pieces.push(prototype);
      start = index + width;
    }
    index += width;
  }
  if (start < decomposed.length && start > 0) pieces.push(decomposed.slice(start));
  return (start === 0 ? decomposed : pieces.join('')).normalize('NFD');
}

const invisible = new RegExp(`[${ignorableClass}]`, 'gu');
const marks = /[\p{Mn}\p{Me}]/gu;

function visibleText(text: string): string {
  return text
    .replace(invisible, (character) => (/[\t\n\v\f\r\x85]/.test(character) ? ' ' : ''))
    .normalize('NFKC');
}

/** Prototypes, then marks dropped and whitespace collapsed (not trimmed). */
function finish(text: string): string {
  // Marks are dropped: an accent an agent adds (`Mallóry`, a combining acute) does not
  // hide a name from a guard.
  // A replacement function, not '': V8 builds that result flat instead of as a rope.
  const unmarked = mapPrototypes(text).replace(marks, () => '');
  return collapseSpaces(unmarked, false, false);
}

/** Prototypes first, then case folding, then prototypes again. */
function slowCased(text: string): string {
  return finish(caseFold(mapPrototypes(visibleText(text))));
}

/** Case folding first, then as `slowCased`. */
function slowFolded(text: string): string {
  return slowCased(caseFold(visibleText(text)));
}

let asciiTables: { cased: string[]; folded: string[]; differ: RegExp } | undefined;

/**
 * ASCII maps character by character; tables make the common case cheap. A control is
 * what `visibleText` makes of it: a space for those that separate words, else nothing.
 */
function asciiSkeletons(text: string, keepEdges: boolean): ConfusableSkeletons {
  if (!asciiTables) {
    const cased: string[] = [];
    const folded: string[] = [];
    for (const code of [...Array(0x20).keys(), 0x7f]) {
      cased[code] = code >= 0x09 && code <= 0x0d ? ' ' : '';
      folded[code] = cased[code] as string;
    }
    for (let code = 0x20; code < 0x7f; code++) {
      cased[code] = slowCased(String.fromCharCode(code));
      folded[code] = slowFolded(String.fromCharCode(code));
    }
    // The characters the two orders map apart (only `I`: `l` when mapped first, `i`
    // when folded first); a text without them has one skeleton, computed once.
    let differ = '';
    for (let code = 0; code < 0x80; code++)
      if (cased[code] !== folded[code]) differ += `\\x${code.toString(16).padStart(2, '0')}`;
    asciiTables = { cased, folded, differ: new RegExp(differ === '' ? '(?!)' : `[${differ}]`) };
  }
  const { cased: casedTable, folded: foldedTable, differ } = asciiTables;
  // No ASCII prototype holds a space: the spaces are the text's own (or a control's).
  const tidy = (skeleton: string) => collapseSpaces(skeleton, !keepEdges, false);
  const cased = tidy(mapAscii(text, casedTable));
  return { cased, folded: differ.test(text) ? tidy(mapAscii(text, foldedTable)) : cased };
}

/**
 * Each character through the table; the stretches it leaves as they are sliced and the
 * whole joined once (appending per character builds a rope a cached skeleton keeps, S1).
 */
function mapAscii(text: string, table: readonly string[]): string {
  const pieces: string[] = [];
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const mapped = table[code] ?? '';
    if (mapped.length === 1 && mapped.charCodeAt(0) === code) continue;
    if (index > start) pieces.push(text.slice(start, index));
    pieces.push(mapped);
    start = index + 1;
  }
  if (start === 0) return text;
  if (start < text.length) pieces.push(text.slice(start));
  return pieces.join('');
}

/**
 * A text's two confusable skeletons. confusables.txt maps capitals and small letters
 * apart (`М` → `M` but `m` → `rn`; `I` → `l` but `i` stays), so no one order of case
 * folding and prototypes catches every look-alike: `cased` maps prototypes before
 * folding (a Cyrillic capital `М` becomes the Latin `M`, then `m`), `folded` folds first
 * (a Cyrillic `І` in `ALІCE` becomes `і`, whose prototype is `i`). Two texts look alike
 * when either skeleton is equal.
 */
export interface ConfusableSkeletons {
  readonly cased: string;
  readonly folded: string;
}

/**
 * The confusable skeletons of a text (UTS #39, case-insensitive): invisible characters
 * and controls removed, NFKC, confusable prototypes and full case folding, combining
 * marks removed, whitespace collapsed; trimmed unless `keepEdges` (a `contains`
 * needle keeps a space at either end). Not meant to be read — `m` becomes `rn` — only
 * compared.
 *
 * @example
 * confusableSkeletons('Маllory').cased === confusableSkeletons('mallory').cased // Cyrillic М
 */
export function confusableSkeletons(text: string, keepEdges = false): ConfusableSkeletons {
  // ASCII with line breaks too: a page of plain text must not take the Unicode path.
  if (/^[\x00-\x7f]*$/.test(text)) return asciiSkeletons(text, keepEdges);
  const cased = slowCased(text);
  const folded = slowFolded(text);
  return keepEdges ? { cased, folded } : { cased: cased.trim(), folded: folded.trim() };
}
