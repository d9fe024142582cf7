import { readFileSync } from 'node:fs';
import { loadTaubench, taubenchFiles } from '../../src/eval/taubench.js';
import { taubenchSchema } from '../../src/eval/taubench-schema.js';
import { readData } from './project-data.js';

/** A file of examples/taubench (its schema, policy and intents). */
export function taubenchExample(file: string): string {
  return readFileSync(new URL(`../../examples/taubench/${file}`, import.meta.url), 'utf8');
}

/**
 * τ-bench's airline domain as the project evaluates it: the shipped schema (tools and the
 * host's states) and the 200 recorded runs with the database they read.
 */
export function loadTaubenchExample() {
  const schema = taubenchSchema(
    { text: taubenchExample('airline-tools.json'), name: 'airline-tools.json' },
    { text: taubenchExample('airline-states.json'), name: 'airline-states.json' },
  );
  const data = loadTaubench(
    {
      trajectories: readData(`taubench/airline/${taubenchFiles.trajectories}`),
      users: readData(`taubench/airline/${taubenchFiles.users}`),
      reservations: readData(`taubench/airline/${taubenchFiles.reservations}`),
      flights: readData(`taubench/airline/${taubenchFiles.flights}`),
    },
    schema,
  );
  return { schema, data };
}
