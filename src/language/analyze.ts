import {
  argumentDiagnostic,
  firstProblem,
  parseOptionsProblem,
  schemaProblem,
  sourceProblem,
} from './arguments.js';
import { checkWithDiagnostics } from './checker/check.js';
import type { Diagnostic } from './diagnostics/diagnostic.js';
import { sortDiagnostics } from './diagnostics/diagnostic.js';
import { type ParseOptions, parseWithDiagnostics } from './parser.js';
import type { Schema } from './schema-model.js';

/**
 * Every diagnostic for a spec text in one call: syntax, then — when a schema is given —
 * names, types and reachability. Used by `intentguard check`, golden tests and tooling.
 */
export function analyzeSpec(
  source: string,
  schema: Schema | undefined,
  options: ParseOptions = {},
): readonly Diagnostic[] {
  const misuse = firstProblem(
    sourceProblem(source),
    schema === undefined ? undefined : schemaProblem(schema),
    parseOptionsProblem(options),
  );
  if (misuse) return [argumentDiagnostic('analyzeSpec', misuse)];
  const parsed = parseWithDiagnostics(source, options);
  if (schema === undefined) return sortDiagnostics(parsed.diagnostics);
  const checked = checkWithDiagnostics(parsed.value, schema, options, parsed.diagnostics);
  return sortDiagnostics([...parsed.diagnostics, ...checked.diagnostics]);
}
