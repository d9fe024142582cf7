/**
 * Text equality in the language is exact up to presentation: Unicode compatibility
 * forms, case, surrounding and repeated whitespace (LANGUAGE.md §5.1). It is never
 * fuzzy — "Hello Wor" is not "Hello World"; `~` is the fuzzy operator.
 */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().trim().replace(/\s+/g, ' ');
}
