import { ignorableClass } from '../support/printable-text.js';
import { caseFold } from './unicode/case-folding.js';

/**
 * Printable ASCII with no space at either end and none doubled: NFKC leaves it as it
 * is and case folding is lowering, so it skips the Unicode work (the common case).
 */
const plainAscii = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const asciiOnly = /^[\x00-\x7f]*$/;

/**
 * What an agent can slip into text without changing how it looks: default-ignorable
 * code points (zero-width characters, joiners, soft hyphen, variation selectors, tag
 * characters, bidi controls, the BOM, Hangul fillers) and control characters. The
 * controls that separate words (tab, line breaks, NEL) become a space; the rest go.
 */
const invisible = new RegExp(`[${ignorableClass}]`, 'gu');
const separatingControl = /[\t\n\v\f\r\x85]/;

function dropInvisible(text: string): string {
  return text.replace(invisible, (character) => (separatingControl.test(character) ? ' ' : ''));
}

/** `\s` of JavaScript regular expressions, by code unit. */
function isSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** ASCII controls that `dropInvisible` removes (the ones that separate words are spaces). */
function isDroppedControl(code: number): boolean {
  return code < 0x09 || (code > 0x0d && code < 0x20) || code === 0x7f;
}

/**
 * Runs of whitespace collapsed to one space, trimmed at both ends if `trim`; with
 * `dropControls`, ASCII controls go as `dropInvisible` would drop them. One pass that
 * copies the text once (`join`): `replace(/\s+/g, ' ')` leaves V8 a rope of a piece per
 * run, which a session would keep — ~17 MB for a 1 MB page (S1).
 */
export function collapseSpaces(text: string, trim: boolean, dropControls: boolean): string {
  const length = text.length;
  const pieces: string[] = [];
  let start = 0;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (!isSpace(code) && !(dropControls && isDroppedControl(code))) {
      index++;
      continue;
    }
    // A gap: whitespace and dropped controls until the next kept character.
    let end = index;
    let space = false;
    let plain = true;
    while (end < length) {
      const next = text.charCodeAt(end);
      if (isSpace(next)) {
        plain &&= !space && next === 0x20;
        space = true;
      } else if (dropControls && isDroppedControl(next)) plain = false;
      else break;
      end++;
    }
    const edge = index === 0 || end === length;
    // A single plain space between words stays where it is, in the current piece.
    if (!(space && plain && !(trim && edge))) {
      if (index > start) pieces.push(text.slice(start, index));
      if (space && !(trim && edge)) pieces.push(' ');
      start = end;
    }
    index = end;
  }
  if (start === 0) return text;
  if (start < length) pieces.push(text.slice(start));
  return pieces.join('');
}

/**
 * Unicode NFKC_Casefold without the whitespace step: invisible characters removed,
 * compatibility forms folded (fullwidth, ligatures, math letters), full case folding
 * (`ß` → `ss`, final sigma → `σ`, `İ` → `i̇`). Folding can leave a sequence that NFKC
 * composes again, so the two alternate until the text is stable (at most a few rounds).
 */
function foldText(text: string): string {
  let current = dropInvisible(text).normalize('NFKC');
  for (let round = 0; round < 4; round++) {
    const next = dropInvisible(caseFold(current).normalize('NFKC'));
    if (next === current) break;
    current = next;
  }
  return current;
}

/** Up to this length a loop over the code units tells plain text faster than `plainAscii`. */
const shortText = 32;

/**
 * A short text that `plainAscii` matches with no space doubled, lowered — the text itself
 * when it has no capital letter — or undefined when it is not such a text. Arguments are
 * mostly short identifiers, read at every proposal.
 */
function shortPlainAscii(text: string): string | undefined {
  const last = text.length - 1;
  let capitals = false;
  for (let index = 0; index <= last; index++) {
    const code = text.charCodeAt(index);
    // A space: not at either end, not after another (the one before is checked, so 0x20).
    if (
      code === 0x20
        ? index === 0 || index === last || text.charCodeAt(index - 1) === 0x20
        : code < 0x21 || code > 0x7e
    )
      return undefined;
    if (code >= 0x41 && code <= 0x5a) capitals = true;
  }
  return last < 0 ? undefined : capitals ? text.toLowerCase() : text;
}

/**
 * Text in the language is compared as the user reads it (LANGUAGE.md §5.1): Unicode
 * NFKC_Casefold — compatibility forms, full case folding, default-ignorable code
 * points and controls removed — with surrounding whitespace trimmed and inner runs
 * collapsed to one space. `=`, `in`, `contains` and `matches` all see this form. It is
 * never fuzzy: "Hello Wor" is not "Hello World" (`~` is the fuzzy operator), and a
 * Cyrillic `а` stays distinct from a Latin `a` (guards add confusables on top).
 *
 * @example
 * normalizeText('  STRAẞE\u200b ') // 'strasse'
 */
export function normalizeText(text: string): string {
  if (text.length <= shortText) {
    const plain = shortPlainAscii(text);
    if (plain !== undefined) return plain;
  } else if (plainAscii.test(text) && !text.includes('  ')) return text.toLowerCase();
  // ASCII needs no Unicode tables: NFKC leaves it, folding is lowering, and the
  // controls are dropped (or read as a space) in the same pass that collapses spaces.
  if (asciiOnly.test(text)) return collapseSpaces(text.toLowerCase(), true, true);
  return collapseSpaces(foldText(text), true, false);
}

/**
 * A `contains` needle normalized like the text it is searched in, except that a space
 * at either end is kept (collapsed to one): `contains " rm "` looks for the word.
 */
export function normalizeNeedle(text: string): string {
  if (asciiOnly.test(text)) return collapseSpaces(text.toLowerCase(), false, true);
  return collapseSpaces(foldText(text), false, false);
}
