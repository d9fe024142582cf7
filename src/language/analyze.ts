import {
  argumentDiagnostic,
  firstProblem,
  parseOptionsProblem,
  schemaProblem,
  sourceProblem,
} from './arguments.js';
import { checkWithDiagnostics } from './checker/check.js';
import {
  checkGrounding,
  type GroundingSources,
  groundingSourcesProblem,
} from './checker/grounding.js';
import type { Diagnostic } from './diagnostics/diagnostic.js';
import { hasErrors, sortDiagnostics } from './diagnostics/diagnostic.js';
import { type ParseOptions, parseWithDiagnostics } from './parser.js';
import type { Schema } from './schema-model.js';

/**
 * Every diagnostic for a spec text in one call: syntax, then — when a schema is given —
 * names, types and reachability, and — when `grounding` gives the instruction — whether
 * the spec's values come from it (`checkGrounding`, on a spec without errors). Used by
 * `intentguard check`, golden tests and tooling.
 */
export function analyzeSpec(
  source: string,
  schema: Schema | undefined,
  options: ParseOptions = {},
  grounding?: GroundingSources,
): readonly Diagnostic[] {
  const misuse = firstProblem(
    sourceProblem(source),
    schema === undefined ? undefined : schemaProblem(schema),
    parseOptionsProblem(options),
    grounding === undefined ? undefined : groundingSourcesProblem(grounding, 'grounding'),
  );
  if (misuse) return [argumentDiagnostic('analyzeSpec', misuse)];
  const parsed = parseWithDiagnostics(source, options);
  if (schema === undefined) return sortDiagnostics(parsed.diagnostics);
  const checked = checkWithDiagnostics(parsed.value, schema, options, parsed.diagnostics);
  const diagnostics = [...parsed.diagnostics, ...checked.diagnostics];
  if (grounding !== undefined && !hasErrors(diagnostics))
    diagnostics.push(...checkGrounding(checked.spec, grounding));
  return sortDiagnostics(diagnostics);
}
