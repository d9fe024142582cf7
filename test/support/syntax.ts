import type { Diagnostic } from '../../src/language/diagnostics/diagnostic.js';
import type { SourceRange } from '../../src/language/source-range.js';

/** `line:column-line:column`, the form the tests compare ranges in. */
export function span(range: SourceRange | undefined): string {
  if (!range) return '-';
  return `${range.start.line}:${range.start.column}-${range.end.line}:${range.end.column}`;
}

/** A diagnostic as `code line:column-line:column`, easy to compare in bulk. */
export function spot(diagnostic: Diagnostic): string {
  return `${diagnostic.code} ${span(diagnostic.range)}`;
}

export function spots(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map(spot);
}

export function codes(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((diagnostic) => diagnostic.code);
}

/**
 * A copy of a syntax tree without its `range` fields, so that trees parsed from
 * different spellings of the same spec can be compared.
 */
export function stripRanges<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stripRanges) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(value)) {
      if (key !== 'range') copy[key] = stripRanges(field);
    }
    return copy as T;
  }
  return value;
}
