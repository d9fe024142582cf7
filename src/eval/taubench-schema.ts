import type { Schema } from '../language/index.js';
import { loadStateSchema, loadToolSchema, mergeSchemas } from '../schema/index.js';
import { EvalInputError, parseDataJson } from './errors.js';

/**
 * The schema of a τ-bench evaluation: the airline's tools and, where given, the host's
 * states (`SessionUser`, `FlightStatus`: facts no tool shows) as one schema. A name both
 * declare is an error, as is anything either file cannot load as.
 *
 * @example
 * const schema = taubenchSchema(
 *   { text: readFileSync('examples/taubench/airline-tools.json', 'utf8'), name: 'airline-tools.json' },
 *   { text: readFileSync('examples/taubench/airline-states.json', 'utf8'), name: 'airline-states.json' },
 * );
 * schema.predicates.has('SessionUser'); // true
 */
export function taubenchSchema(
  tools: { readonly text: string; readonly name: string },
  states?: { readonly text: string; readonly name: string },
): Schema {
  const parse = (file: { text: string; name: string }): unknown =>
    parseDataJson(file.text, file.name);
  const loadedTools = loadToolSchema(parse(tools), { id: 'airline' });
  if (!loadedTools.ok) {
    throw new EvalInputError(
      'invalid-data',
      `${tools.name}: not a tool schema: ${loadedTools.diagnostics[0]?.message ?? ''}`,
    );
  }
  if (states === undefined) return loadedTools.value;
  const loadedStates = loadStateSchema(parse(states), { id: 'host' });
  if (!loadedStates.ok) {
    throw new EvalInputError(
      'invalid-data',
      `${states.name}: not a states file: ${loadedStates.diagnostics[0]?.message ?? ''}`,
    );
  }
  const merged = mergeSchemas(loadedTools.value, loadedStates.value);
  if (!merged.ok) {
    throw new EvalInputError(
      'invalid-data',
      `${states.name}: ${merged.diagnostics[0]?.message ?? ''} (the tools, ${tools.name}, declare it too)`,
    );
  }
  return merged.value;
}
