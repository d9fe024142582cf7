import {
  formatDate,
  formatDateTime,
  formatTime,
  type Limits,
  type Literal,
} from '../language/index.js';
import type { SessionClock } from './clock.js';
import type { CompiledSpec } from './compiled-spec.js';
import { instanceKey } from './proposal.js';
import type { StateUpdate } from './state.js';
import { parseValue, type Value } from './values.js';

/**
 * The intent's `given` facts (LANGUAGE.md §8) as updates of the state it starts with,
 * each value read by its variable's type as an observation's would be.
 */
export function givenUpdates(
  compiled: CompiledSpec,
  clock: SessionClock,
  limits: Limits,
): StateUpdate[] {
  const updates: StateUpdate[] = [];
  for (const given of compiled.spec.givens ?? []) {
    const predicate = compiled.predicates.get(given.predicate.name);
    if (!predicate) throw new Error(`internal: ${given.predicate.name} is not in the schema`);
    const values: (Value | undefined)[] = [];
    const assignments: [number, Value][] = [];
    for (const { variable, value } of given.values) {
      const index = predicate.variableIndex.get(variable.name);
      if (index === undefined) throw new Error(`internal: ${variable.name} is not a variable`);
      const parsed = parseValue(literalInput(value), variable.type, clock, {
        maxLength: limits.maxValueLength,
      });
      if (!parsed.ok)
        throw new Error(`given ${predicate.name}.${variable.name}: ${parsed.problem}`);
      values[index] = parsed.value;
      assignments.push([index, parsed.value]);
    }
    const key = instanceKey(predicate, (index) => values[index]);
    if (key === undefined) throw new Error(`internal: a key of given ${predicate.name} is missing`);
    updates.push({ predicate, operation: 'set', key, assignments });
  }
  return updates;
}

/** A checked literal as the JSON an observation would carry for it. */
function literalInput(literal: Literal): unknown {
  switch (literal.kind) {
    case 'date':
      return formatDate(literal.value);
    case 'time':
      return formatTime(literal.value);
    case 'datetime':
      return formatDateTime(literal.value);
    case 'number':
      return typeof literal.value === 'number' ? literal.value : literal.value.toString();
    case 'list':
      return literal.elements.map(literalInput);
    case 'regex':
      return literal.pattern;
    default:
      return literal.value;
  }
}
