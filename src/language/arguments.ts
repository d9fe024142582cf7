import { isRecord } from '../support/is-record.js';
/**
 * Checks of what callers pass to the public entry points, so that misuse gets an
 * answer that names the parameter instead of a TypeError from deep inside
 * (`Cannot read properties of undefined (reading 'predicates')`).
 *
 * The convention (docs/language.md, "Calling the library"): entry points that report
 * diagnostics (`parse`, `checkSpec`, `analyzeSpec`, …) answer a bad argument with an
 * `invalid-argument` error diagnostic and never throw; the others (`explainSpec`,
 * `createSession`, …) throw a `TypeError` whose message names the function and the
 * parameter.
 */
import { createDiagnostic, type Diagnostic } from './diagnostics/diagnostic.js';
import { defaultLimits } from './limits.js';
import { closestNames } from './suggest.js';

/** What is wrong with one argument. */
export interface ArgumentProblem {
  /** The parameter as the documentation names it, e.g. `schema` or `options.limits.maxItems`. */
  readonly parameter: string;
  /** What it must be, e.g. `the spec text (a string)`. */
  readonly expected: string;
  /** What it was, described by kind, never by content (which may be large or secret). */
  readonly actual: string;
}

/** A short description of a value for a message: its kind, and small scalars as written. */
export function describeArgument(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length === 0 ? 'the empty string' : 'a string';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'bigint') return 'a bigint';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol') return 'a symbol';
  if (Array.isArray(value)) return 'an array';
  if (isRecord(value) && typeof value.ok === 'boolean' && 'diagnostics' in value) {
    // The most likely slip: passing the result of checkSpec instead of its value.
    return 'a result object ({ ok, value, diagnostics }); pass its value';
  }
  return 'an object of another shape';
}

function problem(parameter: string, expected: string, value: unknown): ArgumentProblem {
  return { parameter, expected, actual: describeArgument(value) };
}

/** Spec text: a string. */
export function sourceProblem(value: unknown, parameter = 'source'): ArgumentProblem | undefined {
  return typeof value === 'string'
    ? undefined
    : problem(parameter, 'the spec text (a string)', value);
}

/** A schema: an object whose `predicates` is a map (see `createSchema`, `loadStateSchema`). */
export function schemaProblem(value: unknown, parameter = 'schema'): ArgumentProblem | undefined {
  const predicates = isRecord(value) ? value.predicates : undefined;
  const mapLike =
    isRecord(predicates) &&
    typeof predicates.get === 'function' &&
    typeof predicates.keys === 'function' &&
    typeof predicates.values === 'function';
  return mapLike
    ? undefined
    : problem(parameter, 'a Schema (from loadStateSchema, loadToolSchema or createSchema)', value);
}

/** A parsed spec: what `parse` or `parseWithDiagnostics` returns as its value. */
export function parsedSpecProblem(
  value: unknown,
  parameter = 'parsed',
): ArgumentProblem | undefined {
  const valid =
    isRecord(value) &&
    isRecord(value.ast) &&
    value.ast.kind === 'spec' &&
    Array.isArray(value.ast.items) &&
    typeof value.source === 'string' &&
    isRecord(value.lines) &&
    typeof value.lines.range === 'function';
  return valid ? undefined : problem(parameter, 'a ParsedSpec (the value of parse)', value);
}

/** A checked spec: the value of a successful `checkSpec` or `check`. */
export function specProblem(value: unknown, parameter = 'spec'): ArgumentProblem | undefined {
  const valid =
    isRecord(value) &&
    schemaProblem(value.schema) === undefined &&
    Array.isArray(value.rules) &&
    Array.isArray(value.guards) &&
    Array.isArray(value.doneRules) &&
    isRecord(value.objectives) &&
    typeof value.objectives.get === 'function' &&
    typeof value.source === 'string';
  return valid
    ? undefined
    : problem(parameter, 'a checked Spec (the value of a successful checkSpec)', value);
}

const limitNames = new Set(Object.keys(defaultLimits));

/**
 * Limit overrides: known names only (a misspelt one would silently leave its limit at
 * the default), each a whole number of zero or more (NaN would switch a check off).
 */
export function limitsProblem(value: unknown, parameter = 'limits'): ArgumentProblem | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return problem(parameter, 'an object of limits', value);
  for (const [name, limit] of Object.entries(value)) {
    if (!limitNames.has(name)) {
      const [closest] = closestNames(name, limitNames);
      return {
        parameter,
        expected: 'an object of known limits (the names of defaultLimits)',
        actual: `one with the unknown limit '${name}'${closest ? ` (did you mean '${closest}'?)` : ''}`,
      };
    }
    if (limit === undefined) continue;
    if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
      return problem(`${parameter}.${name}`, 'a whole number of zero or more', limit);
    }
  }
  return undefined;
}

/** Parse and check options: `{ limits?, extract? }`. */
export function parseOptionsProblem(
  value: unknown,
  parameter = 'options',
): ArgumentProblem | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value)) return problem(parameter, 'an options object or undefined', value);
  if (value.extract !== undefined && typeof value.extract !== 'boolean') {
    return problem(`${parameter}.extract`, 'true, false or undefined', value.extract);
  }
  return limitsProblem(value.limits, `${parameter}.limits`);
}

/** The first problem of several checks, in parameter order. */
export function firstProblem(
  ...problems: readonly (ArgumentProblem | undefined)[]
): ArgumentProblem | undefined {
  return problems.find((candidate) => candidate !== undefined);
}

/** The `invalid-argument` diagnostic for an entry point that answers with diagnostics. */
export function argumentDiagnostic(entryPoint: string, found: ArgumentProblem): Diagnostic {
  return createDiagnostic(
    'invalid-argument',
    {},
    {
      function: entryPoint,
      parameter: found.parameter,
      expected: found.expected,
      actual: found.actual,
    },
  );
}

/** The `TypeError` for an entry point that does not answer with diagnostics. */
export function argumentError(entryPoint: string, found: ArgumentProblem): TypeError {
  return new TypeError(
    `${entryPoint}: '${found.parameter}' must be ${found.expected}, not ${found.actual}`,
  );
}
