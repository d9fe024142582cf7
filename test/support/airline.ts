import { createSession } from '../../src/engine/session-all-parts.js';
import { checkSpec } from '../../src/language/index.js';
import type { Schema } from '../../src/language/schema-model.js';
import { loadToolSchema } from '../../src/schema/index.js';
import { taubenchExample } from './taubench-example.js';

/** τ-bench's airline tools as a schema (examples/taubench/airline-tools.json). */
function airlineSchema(): Schema {
  const loaded = loadToolSchema(JSON.parse(taubenchExample('airline-tools.json')), {
    id: 'airline',
  });
  if (!loaded.ok) throw new Error('the airline tools do not load');
  return loaded.value;
}

export const airline: Schema = airlineSchema();

/** A session of a spec over the airline tools, at 2024-05-15T15:00; throws on a spec error. */
export function airlineSession(text: string) {
  const checked = checkSpec(text, airline);
  if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
  return createSession(checked.value, { now: '2024-05-15T15:00' });
}
