import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sharedPath } from '../support/shared.js';

/**
 * The project's worked examples (`examples/`), with the schemas their specs name. They
 * are the shared test vectors with the facts the app reports marked observed (the
 * engine's examples test replays both sets).
 */

export const sharedRoot = `${sharedPath('')}/`;
export const projectRoot = fileURLToPath(new URL('../../', import.meta.url));
export const examplesRoot = `${projectRoot}examples/`;

/** The clock the examples are written for (examples/README.md). */
export const fixedNow = '2025-03-14T12:00';

export interface Example {
  readonly name: string;
  readonly spec: string;
  /** `--states FILE` or `--tools FILE`. */
  readonly schemaArgs: readonly [string, string];
  readonly traces: readonly string[];
}

export const examples: readonly Example[] = [
  {
    name: 'restaurant',
    spec: `${examplesRoot}restaurant/spec.intent`,
    schemaArgs: ['--states', `${examplesRoot}restaurant/states.json`],
    traces: ['correct.jsonl', 'not-available.jsonl', 'wrong-time.jsonl'].map(
      (trace) => `${examplesRoot}restaurant/${trace}`,
    ),
  },
  {
    name: 'clock',
    spec: `${examplesRoot}clock/spec.intent`,
    schemaArgs: ['--states', `${examplesRoot}clock/states.json`],
    traces: [`${examplesRoot}clock/trace.jsonl`],
  },
  {
    name: 'bank-transfer',
    spec: `${examplesRoot}bank-transfer/spec.intent`,
    schemaArgs: ['--tools', `${examplesRoot}bank-transfer/tools.json`],
    traces: ['trace.jsonl', 'low-balance.jsonl'].map(
      (trace) => `${examplesRoot}bank-transfer/${trace}`,
    ),
  },
  {
    name: 'todoist',
    spec: `${examplesRoot}todoist/spec.intent`,
    schemaArgs: ['--tools', `${examplesRoot}todoist/toolkits.json`],
    traces: [`${examplesRoot}todoist/trace.jsonl`],
  },
];

export function example(name: string): Example {
  const found = examples.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no example ${name}`);
  return found;
}

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

/** The restaurant example's arguments, the ones most tests start from. */
export const restaurant = example('restaurant');
export const restaurantStates = restaurant.schemaArgs[1];
export const bank = example('bank-transfer');
