import { ignorableClass } from '../../support/printable-text.js';
import { collapseSpaces } from '../text.js';
import { caseFold } from './case-folding.js';

/**
 * Unicode confusable skeletons (UTS #39 §4), as guards compare text by them
 * (LANGUAGE.md §5.1): two texts that look alike — `Маllory` with a Cyrillic `М`,
 * `pаssword` with a Cyrillic `а`, `Mall0ry` — get the same skeleton.
 */

/** The table parsed, with what it adds to confusables.txt. */
function prototypeMap(table: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const line of table.split('\n')) {
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
  return map;
}

/** A parsed table: the map, and the prototypes of ASCII by code (an array lookup, not a hash). */
interface Prototypes {
  readonly map: Map<number, string>;
  readonly ascii: readonly (string | undefined)[];
}

/** Each code point's prototype; unchanged stretches sliced and joined once (no rope, S1). */
function mapPrototypes(text: string, { map, ascii }: Prototypes): string {
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
function finish(text: string, prototypes: Prototypes): string {
  // Marks are dropped: an accent an agent adds (`Mallóry`, a combining acute) does not
  // hide a name from a guard.
  // A replacement function, not '': V8 builds that result flat instead of as a rope.
  const unmarked = mapPrototypes(text, prototypes).replace(marks, () => '');
  return collapseSpaces(unmarked, false, false);
}

/** Prototypes first, then case folding, then prototypes again. */
function slowCased(text: string, prototypes: Prototypes): string {
  return finish(caseFold(mapPrototypes(visibleText(text), prototypes)), prototypes);
}

/** Case folding first, then as `slowCased`. */
function slowFolded(text: string, prototypes: Prototypes): string {
  return slowCased(caseFold(visibleText(text)), prototypes);
}

/** How each ASCII character maps in either order, and which characters the orders map apart. */
interface AsciiTables {
  readonly cased: readonly string[];
  readonly folded: readonly string[];
  readonly differ: RegExp;
}

/**
 * ASCII maps character by character; tables make the common case cheap. A control is
 * what `visibleText` makes of it: a space for those that separate words, else nothing.
 */
function asciiTablesOf(prototypes: Prototypes): AsciiTables {
  const cased: string[] = [];
  const folded: string[] = [];
  for (const code of [...Array(0x20).keys(), 0x7f]) {
    cased[code] = code >= 0x09 && code <= 0x0d ? ' ' : '';
    folded[code] = cased[code] as string;
  }
  for (let code = 0x20; code < 0x7f; code++) {
    cased[code] = slowCased(String.fromCharCode(code), prototypes);
    folded[code] = slowFolded(String.fromCharCode(code), prototypes);
  }
  // The characters the two orders map apart (only `I`: `l` when mapped first, `i`
  // when folded first); a text without them has one skeleton, computed once.
  let differ = '';
  for (let code = 0; code < 0x80; code++)
    if (cased[code] !== folded[code]) differ += `\\x${code.toString(16).padStart(2, '0')}`;
  return { cased, folded, differ: new RegExp(differ === '' ? '(?!)' : `[${differ}]`) };
}

function asciiSkeletons(
  text: string,
  keepEdges: boolean,
  tables: AsciiTables,
): ConfusableSkeletons {
  const { cased: casedTable, folded: foldedTable, differ } = tables;
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
 * The confusables table as an engine part (`EngineParts.confusables`): the skeletons of
 * texts by the table it was made from (`confusablesFrom`). Node entry points pass the one
 * made from confusables.ts; a page's guard loads the table (about 26 KB gzipped) only
 * when its guards compare text or it checks a final answer. Without it, a skeleton is
 * never computed: the session refuses (fail closed), and a look-alike never passes.
 */
export interface Confusables {
  /**
   * The confusable skeletons of a text (UTS #39, case-insensitive): invisible characters
   * and controls removed, NFKC, confusable prototypes and full case folding, combining
   * marks removed, whitespace collapsed; trimmed unless `keepEdges` (a `contains`
   * needle keeps a space at either end). Not meant to be read — `m` becomes `rn` — only
   * compared.
   *
   * @example
   * confusables.skeletons('Маllory').cased === confusables.skeletons('mallory').cased // Cyrillic М
   */
  skeletons(text: string, keepEdges?: boolean): ConfusableSkeletons;
}

/** The confusables of a table (confusables.ts), parsed on first use: only sessions whose guards compare text need it. */
export function confusablesFrom(table: string): Confusables {
  let prototypes: Prototypes | undefined;
  let asciiTables: AsciiTables | undefined;
  const parsed = (): Prototypes => {
    if (prototypes !== undefined) return prototypes;
    const map = prototypeMap(table);
    prototypes = { map, ascii: Array.from({ length: 0x80 }, (_, code) => map.get(code)) };
    return prototypes;
  };
  return {
    skeletons(text, keepEdges = false) {
      // ASCII with line breaks too: a page of plain text must not take the Unicode path.
      if (/^[\x00-\x7f]*$/.test(text)) {
        asciiTables ??= asciiTablesOf(parsed());
        return asciiSkeletons(text, keepEdges, asciiTables);
      }
      const cased = slowCased(text, parsed());
      const folded = slowFolded(text, parsed());
      return keepEdges ? { cased, folded } : { cased: cased.trim(), folded: folded.trim() };
    },
  };
}
