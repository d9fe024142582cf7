/**
 * The parts of a text a tool might read as separate values (the deny-list reading,
 * deny-list-reading.ts): the items of a list written as one text — `a@x.com, b@y.com`,
 * `a@x.com;b@y.com`, the address in `Bob <bob@x.com>`, a value in quotes or brackets —
 * each trimmed and without trailing dots (a fully qualified `x.com.`). Words are not
 * parts: "Sony Bravia 55-inch TV" is one value, and so is "+1 415 555 0123".
 */
const separators = /[,;<>"'`()[\]{}]+/;
const mayHaveParts = /[,;<>"'`()[\]{}]|\.$/;

function withoutTrailingDots(part: string): string {
  let end = part.length;
  while (end > 0 && part.charCodeAt(end - 1) === 0x2e) end--;
  return end === part.length ? part : part.slice(0, end);
}

/**
 * The parts of a normalized text, without repeats or the text itself; empty for a text
 * that is a single part.
 *
 * @example
 * valueParts('bob <bob@external.com.>') // ['bob', 'bob@external.com']
 */
export function valueParts(normalized: string): readonly string[] {
  if (!mayHaveParts.test(normalized)) return noParts;
  const parts = new Set<string>();
  for (const item of normalized.split(separators)) {
    const trimmed = withoutTrailingDots(item.trim());
    if (trimmed !== '') parts.add(trimmed);
  }
  parts.delete(normalized);
  return parts.size === 0 ? noParts : [...parts];
}

const noParts: readonly string[] = Object.freeze([]);

/** The separators of parts (`separators`), by code unit. */
function isSeparator(code: number): boolean {
  return (
    code === 0x2c || // ,
    code === 0x3b || // ;
    code === 0x3c || // <
    code === 0x3e || // >
    code === 0x22 || // "
    code === 0x27 || // '
    code === 0x60 || // `
    code === 0x28 || // (
    code === 0x29 || // )
    code === 0x5b || // [
    code === 0x5d || // ]
    code === 0x7b || // {
    code === 0x7d // }
  );
}

/** What `String.prototype.trim` removes (and `\s` matches), by code unit. */
function isTrimmed(code: number): boolean {
  return (
    (code >= 0x09 && code <= 0x0d) ||
    code === 0x20 ||
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

/**
 * `valueParts(text).includes(needle)`, found without listing the parts: a part is an
 * item between separators (or the text's ends), trimmed and without trailing dots, so
 * the needle is a part when some item is whitespace, the needle, then dots, then
 * whitespace. Listing the parts of a megabyte of short items takes ~220 ms and many
 * times its memory (S1); this takes a native search, and when the needle occurs, one
 * pass over the items, each compared at its start only (never quadratic, whatever an
 * agent makes the text and the needle).
 */
export function hasPart(text: string, needle: string): boolean {
  if (needle === '' || needle === text || !text.includes(needle)) return false;
  // No part starts with whitespace (trimmed), ends with a dot or holds a separator.
  if (isTrimmed(needle.charCodeAt(0)) || needle.charCodeAt(needle.length - 1) === 0x2e)
    return false;
  for (let index = 0; index < needle.length; index++)
    if (isSeparator(needle.charCodeAt(index))) return false;
  // Trimming would take whitespace at the needle's end unless dots follow it.
  const endsWithSpace = isTrimmed(needle.charCodeAt(needle.length - 1));
  const length = text.length;
  for (let item = 0; item <= length; ) {
    let start = item;
    while (start < length && isTrimmed(text.charCodeAt(start))) start++;
    // The comparison stops at the item's end: the needle holds no separator.
    if (text.startsWith(needle, start)) {
      const end = start + needle.length;
      let after = end;
      while (after < length && text.charCodeAt(after) === 0x2e) after++;
      const dots = after > end;
      while (after < length && isTrimmed(text.charCodeAt(after))) after++;
      const bounded = after === length || isSeparator(text.charCodeAt(after));
      // The whole text as its one item: it has parts only when it ends with a dot.
      const whole = item === 0 && after === length;
      if (bounded && (dots || !endsWithSpace) && (!whole || text.charCodeAt(length - 1) === 0x2e))
        return true;
    }
    let next = start;
    while (next < length && !isSeparator(text.charCodeAt(next))) next++;
    item = next + 1;
  }
  return false;
}

/**
 * Whether some part of a text is a phone-like text (`phoneDigits` in
 * deny-list-reading.ts) with these digits, by one regular-expression search instead of
 * listing the parts: an item that, trimmed and without trailing dots, is
 * `(tel:)?+?` then the digits with the punctuation people write between them (never
 * parentheses: they separate parts).
 */
export function hasPhonePart(text: string, digits: string): boolean {
  if (!/^\d+$/.test(digits) || !mayHaveParts.test(text)) return false;
  const gap = '[\\s./-]*';
  const item = new RegExp(
    `(?:^|[,;<>"'\`()[\\]{}])(?:\\s*(?:tel:\\+?|\\+))?${gap}${[...digits].join(gap)}${gap}(?=[,;<>"'\`()[\\]{}]|$)`,
  );
  return item.test(text);
}
