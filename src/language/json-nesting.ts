/**
 * The deepest nesting of `{` and `[` in a JSON text, outside `"` strings: one linear
 * pass with no recursion, so that a text can be refused for its depth before anything
 * walks the parsed value recursively (a 300,000-deep array overflows the stack of
 * every recursive walk: `JSON.stringify`, copies, validation).
 */
export function jsonNesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (quoted) {
      if (code === 0x5c) index++;
      else if (code === 0x22) quoted = false;
    } else if (code === 0x22) quoted = true;
    else if (code === 0x7b || code === 0x5b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x7d || code === 0x5d) depth--;
  }
  return deepest;
}
