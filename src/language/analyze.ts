import type { Diagnostic } from './diagnostics/diagnostic.js';
import { sortDiagnostics } from './diagnostics/diagnostic.js';
import { parseWithDiagnostics, type ParseOptions } from './parser.js';
import type { Schema } from './schema-model.js';

/**
 * Every diagnostic for a spec text in one call: syntax, and (once the type checker is
 * wired in) names and types against the schema. Used by golden tests and tooling.
 */
export function analyzeSpec(
  source: string,
  _schema: Schema | undefined,
  options: ParseOptions = {},
): readonly Diagnostic[] {
  return sortDiagnostics(parseWithDiagnostics(source, options).diagnostics);
}
