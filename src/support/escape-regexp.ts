/**
 * `text` as a literal inside a JavaScript `RegExp` source, with or without the `u` flag:
 * every syntax character (and `/`, which both modes accept escaped) gets a backslash.
 */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
