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
