import type { Diagnostic } from '../language/diagnostics/diagnostic.js';
import type { Result } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';
import type { LoadContext } from './load-context.js';
import { mergeSchemas } from './merge-schemas.js';

/**
 * The one-file schema of FORMATS.md §1: `{"tools": …, "states": …}`, the tools' actions and
 * results and the host's states in one JSON file, read as `--tools T --states S` are.
 *
 * An object with exactly these two keys, whose `states` is not itself a predicate
 * declaration (an object with `variables`): a states file that happens to declare
 * predicates named `tools` and `states` still reads as before.
 */
export function isToolsAndStates(
  value: unknown,
): value is { readonly tools: unknown; readonly states: unknown } {
  if (!isRecord(value)) return false;
  const keys = Object.keys(value);
  if (keys.length !== 2 || !('tools' in value) || !('states' in value)) return false;
  const states = value['states'];
  return !(isRecord(states) && 'variables' in states);
}

/** Loaders of each half, given by the caller so that this file imports neither loader. */
export interface HalfLoaders {
  readonly tools: (value: unknown) => Result<Schema>;
  readonly states: (value: unknown) => Result<Schema>;
}

/**
 * Loads both halves and merges them with `mergeSchemas` (a name both declare is
 * `schema-duplicate`). Each half's diagnostics keep their JSONPath, under `$.tools` or
 * `$.states`; undefined when either half fails.
 */
export function loadToolsAndStates(
  value: { readonly tools: unknown; readonly states: unknown },
  context: LoadContext,
  loaders: HalfLoaders,
): Schema | undefined {
  // One level only: a half that is itself a one-file schema is a mistake, not a third schema.
  for (const half of ['tools', 'states'] as const) {
    // The halves are JSON values: a string would otherwise be parsed as a second JSON text.
    if (typeof value[half] === 'string') {
      context.problem('schema-invalid', `$.${half}`, `Expected ${half} as JSON, found a string.`);
      return undefined;
    }
    if (isToolsAndStates(value[half])) {
      context.problem(
        'schema-invalid',
        `$.${half}`,
        'A one-file schema ({"tools", "states"}) cannot hold another one.',
      );
      return undefined;
    }
  }
  const tools = loaders.tools(value.tools);
  const states = loaders.states(value.states);
  report(context, tools.diagnostics, '$.tools');
  report(context, states.diagnostics, '$.states');
  if (!tools.ok || !states.ok) return undefined;
  const merged = mergeSchemas(tools.value, states.value);
  report(context, merged.diagnostics, '$.states');
  return merged.ok ? merged.value : undefined;
}

function report(context: LoadContext, diagnostics: readonly Diagnostic[], under: string): void {
  for (const diagnostic of diagnostics) {
    const path = diagnostic.path;
    context.bag.add(
      path === undefined ? diagnostic : { ...diagnostic, path: `${under}${path.slice(1)}` },
    );
  }
}
