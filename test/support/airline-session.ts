import { readFileSync } from 'node:fs';
import { createSession } from '../../src/engine/session-all-parts.js';
import { taubenchSchema } from '../../src/eval/taubench-schema.js';
import { checkSpec } from '../../src/language/index.js';

/** The τ-bench airline tools and states as one schema, for tests of the scope forms. */
export const airlineSchema = taubenchSchema(
  { text: example('airline-tools.json'), name: 'airline-tools.json' },
  { text: example('airline-states.json'), name: 'airline-states.json' },
);

function example(file: string): string {
  return readFileSync(new URL(`../../examples/taubench/${file}`, import.meta.url), 'utf8');
}

/** A session of `text` checked against the airline schema; throws on a spec error. */
export function airlineSession(text: string) {
  const checked = checkSpec(text, airlineSchema);
  if (!checked.ok) throw new Error(checked.diagnostics.map((item) => item.message).join('\n'));
  return createSession(checked.value, { now: '2024-05-15T15:00' });
}
