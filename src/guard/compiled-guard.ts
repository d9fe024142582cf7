import { type EnginePartName, loadEngineParts } from '../engine/load-parts.js';
import {
  type CheckedConstraint,
  type CheckedPattern,
  ruleStatePatterns,
  type Spec,
  scopePatterns,
  statesGivens,
} from '../language/checker/spec.js';
import type { RegexCompiler } from '../language/compiled-spec-format.js';
import { type ReadCompiledSpecOptions, readCompiledSpec } from '../language/read-compiled-spec.js';
import { declaresSettings, type Schema } from '../language/schema-model.js';
import { checkGuardOptions, IntentGuard } from './intent-guard.js';
import {
  declaresToolResults,
  type GuardParts,
  loadToolResultReader,
} from './tool-result-reader.js';
import type { Guard, GuardOptions } from './types.js';

/**
 * A guard from a compiled spec (`intentguard compile`, FORMATS.md §8), for pages and
 * services that enforce specs checked elsewhere: it carries no lexer, parser, checker or
 * diagnostics, and loads the regex engine (re2js) only when the spec has a regex, the evaluators of
 * paths and records (with the check of paths and bindings as the spec is read) only when
 * the spec or its schema has them, the lexical similarity only
 * when the spec compares by `~`, the reader of tools' outputs only when its schema declares
 * a tool's result, and the confusables table only when a guard, a rule's
 * `not P(…)` or `@repeat(per:)` compares text (or, later, when a final answer is checked:
 * `prepareAnswer`). Given `options.parts`, it loads nothing: the guard has those parts, and
 * a spec that needs another is refused.
 */

/** Whether a constraint compares text, itself or in a filter of its path: a guard's test then uses skeletons. */
function comparesText(constraint: CheckedConstraint): boolean {
  const type = constraint.variable.type;
  if (type.kind === 'text' || (type.kind === 'list' && type.element === 'text')) return true;
  return (constraint.access?.steps ?? []).some(
    (step) => step.kind === 'filter' && step.constraints.some(comparesText),
  );
}

/** The patterns the engine compiles: the rules' and the guards'. */
function patternsOf(spec: Spec): CheckedPattern[] {
  return [
    ...spec.rules.flatMap((rule) => [
      ...ruleStatePatterns(rule),
      ...(rule.action ? [rule.action] : []),
    ]),
    ...spec.guards.map((guard) => guard.pattern),
  ];
}

/** Whether the spec has a path, filter, function or binding: compiling it needs their evaluators (join.ts). */
export function usesPaths(spec: Spec): boolean {
  // `not (…)` and `forall(…)` (LANGUAGE.md §9) are judged by the join.
  if (spec.rules.some((rule) => rule.scopes !== undefined)) return true;
  return patternsOf(spec).some((pattern) =>
    pattern.constraints.some(
      (constraint) => constraint.access !== undefined || constraint.binding !== undefined,
    ),
  );
}

function comparesBySimilarity(constraint: CheckedConstraint): boolean {
  if (constraint.operator === '~' || constraint.operator === '!~') return true;
  return (constraint.access?.steps ?? []).some(
    (step) => step.kind === 'filter' && step.constraints.some(comparesBySimilarity),
  );
}

/** Whether the spec compares by `~` or `!~` anywhere, in filters too: the default measure is then needed. */
export function usesSimilarity(spec: Spec): boolean {
  return patternsOf(spec).some((pattern) => pattern.constraints.some(comparesBySimilarity));
}

/** Whether the schema declares a record: reading its arguments needs the record reader (record-values.ts). */
export function declaresRecords(spec: Spec): boolean {
  for (const predicate of spec.schema.predicates.values())
    if (predicate.variables.some((variable) => variable.record !== undefined)) return true;
  return false;
}

/**
 * Whether deciding a check may compute confusable skeletons: where the deny-list reading
 * compares text (deny-list-reading.ts) — guards, a rule's `not P(…)`, `@repeat(per:)`.
 */
export function guardsCompareText(spec: Spec): boolean {
  return (
    spec.guards.some((guard) => guard.pattern.constraints.some(comparesText)) ||
    spec.rules.some(
      (rule) =>
        rule.repeat?.per !== undefined ||
        [...(rule.negations ?? []), ...scopePatterns(rule.scopes)].some((pattern) =>
          pattern.constraints.some(comparesText),
        ),
    )
  );
}

/** Whether some object in a (possibly hostile) document passes `test`, looked for without trusting its shape. */
function holdsObject(document: unknown, test: (value: object) => boolean): boolean {
  const pending: unknown[] = [document];
  // Bounded like the reader: a document too large for it is refused there anyway.
  for (let seen = 0; pending.length > 0 && seen < 5_000_000; seen++) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (!Array.isArray(value) && test(value)) return true;
    for (const item of Array.isArray(value) ? value : Object.values(value)) pending.push(item);
  }
  return false;
}

/** Whether a (possibly hostile) document holds a regex anywhere. */
export function compiledSpecHasRegex(document: unknown): boolean {
  return holdsObject(
    document,
    (value) => Object.hasOwn(value, 'kind') && (value as { kind: unknown }).kind === 'regex',
  );
}

/**
 * Whether a (possibly hostile) document holds a path or a binding anywhere: reading it
 * checks their types (check-compiled-paths.ts), loaded with the evaluators of paths. One
 * this misses is refused by the reader, never read unchecked.
 */
export function compiledSpecHasPaths(document: unknown): boolean {
  return holdsObject(
    document,
    (value) => Object.hasOwn(value, 'access') || Object.hasOwn(value, 'binding'),
  );
}

/**
 * Reads a compiled spec (which may come from the network: it is validated, and anything
 * malformed throws `CompiledSpecError` with its JSONPath) and starts a guard over it,
 * once the parts the spec needs are loaded. Decides exactly as `createGuard(specText,
 * schema, options)` on the spec it was compiled from.
 *
 * @example
 * const compiled = await (await fetch('/task.compiled.json')).json();
 * const guard = await loadCompiledGuard(compiled, { finishWaitsForResults: false });
 * // With the host's own schema, the document's must be that one (criticality included):
 * const pinned = await loadCompiledGuard(compiled, {}, schema);
 */
export async function loadCompiledGuard(
  document: unknown,
  options?: GuardOptions,
  schema?: Schema,
): Promise<Guard> {
  const checked = checkGuardOptions(options);
  const { early, read } = await readerFor(document, checked.parts, schema);
  const spec = readCompiledSpec(document, read);
  const parts = checked.parts ?? (await partsFor(spec, checked, early));
  return new IntentGuard(spec, { ...checked, parts });
}

/**
 * What reading a (possibly hostile) document needs, loaded before it is read: the regex
 * engine for a document with a regex, the check of paths and bindings (with the part that
 * evaluates them) for one with paths; `schema`, the host's own, which the document's must
 * be (criticality included). `early`: the parts loaded (the host's own, if given).
 */
export async function readerFor(
  document: unknown,
  given: GuardParts | undefined,
  schema: Schema | undefined,
): Promise<{ readonly early: GuardParts; readonly read: ReadCompiledSpecOptions }> {
  let regex: RegexCompiler | undefined;
  // Loaded on demand: a page whose spec has no regex never downloads the engine.
  if (compiledSpecHasRegex(document)) regex = (await import('../language/regex.js')).compileRegex;
  const early: GuardParts =
    given ?? (compiledSpecHasPaths(document) ? await loadEngineParts(['paths']) : {});
  const pathCheck = early.paths?.compiledChecks;
  return {
    early,
    read: {
      ...(regex ? { regex } : {}),
      ...(schema ? { schema } : {}),
      ...(pathCheck ? { pathCheck } : {}),
    },
  };
}

/** The parts a spec needs (the ones already loaded kept), loaded for a page's guard given none. */
export async function partsFor(
  spec: Spec,
  options: GuardOptions,
  loaded: GuardParts,
): Promise<GuardParts> {
  const needs: EnginePartName[] = [];
  if (guardsCompareText(spec)) needs.push('confusables');
  if ((usesPaths(spec) || declaresRecords(spec)) && loaded.paths === undefined) needs.push('paths');
  if (usesSimilarity(spec) && options.similarity === undefined) needs.push('lexicalSimilarity');
  // A guard given the operator's policy composes it with the spec (LANGUAGE.md §8).
  if (options.policy !== undefined) needs.push('policy');
  // Settings' frame conditions (LANGUAGE.md §9): a page whose schema marks none loads nothing more.
  if (declaresSettings(spec.schema) && loaded.frame === undefined) needs.push('frame');
  // The intent's `given` facts (LANGUAGE.md §8): only a composed document has them.
  if (statesGivens(spec) && loaded.givens === undefined) needs.push('givens');
  const [engine, toolResults] = await Promise.all([
    loadEngineParts(needs),
    declaresToolResults(spec.schema) ? loadToolResultReader() : undefined,
  ]);
  return { ...loaded, ...engine, ...(toolResults ? { toolResults } : {}) };
}
