import { createDiagnostic } from '../language/diagnostics/diagnostic.js';
import { failure, type Result, success } from '../language/result.js';
import { createSchema, type Schema } from '../language/schema-model.js';

/**
 * One schema from a toolkit and the host's states (FORMATS.md §1, LANGUAGE.md §8): the
 * tools' actions and results plus facts only the host knows (the session's user, a
 * flight's status), so that a policy can read both. A name both declare is an error
 * (`schema-duplicate`, with the path of the states' entry): one of them would silently
 * stand for the other.
 *
 * @example
 * const tools = unwrap(loadToolSchema(toolsJson, { id: 'airline' }));
 * const states = unwrap(loadStateSchema(statesJson, { id: 'host' }));
 * const schema = unwrap(mergeSchemas(tools, states)); // id 'airline+host'
 */
export function mergeSchemas(tools: Schema, states: Schema): Result<Schema> {
  const clashes = [...states.predicates.keys()].filter((name) => tools.predicates.has(name));
  if (clashes.length > 0)
    return failure(
      clashes.map((name) => createDiagnostic('schema-duplicate', { path: `$.${name}` }, { name })),
    );
  return success(
    createSchema(`${tools.id}+${states.id}`, [
      ...tools.predicates.values(),
      ...states.predicates.values(),
    ]),
  );
}
