import { createSession } from '../../src/engine/session-all-parts.js';
import { taubenchSchema } from '../../src/eval/taubench-schema.js';
import { checkSpec, type Spec } from '../../src/language/index.js';
import type { Schema } from '../../src/language/schema-model.js';
import { taubenchExample } from './taubench-example.js';

/** τ-bench's airline tools and the host's states as one schema (examples/taubench). */
export const airline: Schema = taubenchSchema(
  { text: taubenchExample('airline-tools.json'), name: 'airline-tools.json' },
  { text: taubenchExample('airline-states.json'), name: 'airline-states.json' },
);

/** A spec over the airline schema; throws on a spec error. */
export function airlineSpec(text: string): Spec {
  const checked = checkSpec(text, airline);
  if (!checked.ok) throw new Error(checked.diagnostics.map((item) => item.message).join('\n'));
  return checked.value;
}

/** A session of a spec over the airline schema, at 2024-05-15T15:00; throws on a spec error. */
export function airlineSession(text: string) {
  return createSession(airlineSpec(text), { now: '2024-05-15T15:00' });
}
