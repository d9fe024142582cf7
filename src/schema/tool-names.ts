import { createSchema, type PredicateDeclaration, type Schema } from '../language/index.js';
import { isRecord } from '../support/is-record.js';
import { unprintableClass } from '../support/printable-text.js';
import { defaultSchemaLimits } from './limits.js';

const unprintableOrSpace = new RegExp(`[${unprintableClass}\\s]`, 'u');

/**
 * The schema with the names an agent's framework calls some actions by, where they differ
 * from the names the spec uses: a tools file that says `BankCheckBalance` for an SDK tool
 * `bank_check_balance`. The name becomes the action's `sourceName`, as for a tool whose
 * name the schema rewrote (`get-sum` → `get_sum`): feedback, roadmaps and prompts name the
 * tool so, and calls by either name are found. The spec keeps the predicate's name.
 *
 * Throws a `TypeError` for a name that is not an action of the schema, an empty,
 * over-long or unprintable name, or a name another predicate already answers to: two
 * tools with one name would make a call ambiguous.
 *
 * @example
 * const schema = withToolNames(unwrap(loadToolSchema(toolsJson)), {
 *   BankCheckBalance: 'bank_check_balance',
 *   BankTransfer: 'bank_transfer',
 * });
 */
export function withToolNames(schema: Schema, names: Readonly<Record<string, string>>): Schema {
  if (!isRecord(names)) throw new TypeError("withToolNames: 'names' must be an object");
  const renamed = new Map<string, string>();
  for (const [action, name] of Object.entries(names)) {
    const predicate = schema.predicates.get(action);
    if (predicate?.kind !== 'action')
      throw new TypeError(`withToolNames: '${action}' is not an action of the schema`);
    if (
      typeof name !== 'string' ||
      name === '' ||
      name.length > defaultSchemaLimits.maxNameLength ||
      unprintableOrSpace.test(name)
    )
      throw new TypeError(
        `withToolNames: the name for '${action}' must be printable text without spaces, 1 to ${defaultSchemaLimits.maxNameLength} characters`,
      );
    renamed.set(action, name);
  }
  const taken = new Map<string, string>();
  for (const predicate of schema.predicates.values()) {
    const names = new Set([predicate.name, renamed.get(predicate.name) ?? predicate.sourceName]);
    for (const name of names) {
      if (name === undefined) continue;
      const other = taken.get(name);
      if (other !== undefined)
        throw new TypeError(
          `withToolNames: '${name}' would name both '${other}' and '${predicate.name}'`,
        );
      taken.set(name, predicate.name);
    }
  }
  return createSchema(
    schema.id,
    [...schema.predicates.values()].map(
      (predicate): PredicateDeclaration =>
        renamed.has(predicate.name)
          ? { ...predicate, sourceName: renamed.get(predicate.name) as string }
          : predicate,
    ),
  );
}
