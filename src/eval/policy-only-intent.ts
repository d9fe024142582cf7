import type { Schema } from '../language/index.js';

/** The objective of the policy-only intent's plans; a policy that names it too cannot compose. */
export const policyOnlyObjective = 'TaskMayAct';

/**
 * The intent of the "policy only" configuration: the task may do anything and may finish,
 * so that every decision left is the policy's. Under LANGUAGE.md §8 the intent alone
 * decides the finish and refuses critical actions it does not plan, so an empty intent
 * would refuse every write the policy permits; this one plans every critical action of
 * the schema without a condition or a limit (`@repeat`; the others are allowed unplanned),
 * and `true -> Done` lets the session finish at any time. What is measured is then what the policy's guards and permissions stop.
 *
 * @example
 * const text = policyOnlyIntent(schema);
 * // "@repeat\nbook_reservation() -> TaskMayAct\n…\ntrue -> Done\n"
 */
export function policyOnlyIntent(schema: Schema): string {
  const plans = [...schema.predicates.values()]
    .filter((predicate) => predicate.kind === 'action' && predicate.critical)
    .map((predicate) => `@repeat\n${predicate.name}() -> ${policyOnlyObjective}\n`);
  return `${plans.join('')}true -> Done\n`;
}
