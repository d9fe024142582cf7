import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { taubenchSchema } from '../../src/eval/index.js';
import { taubenchWriteTools } from '../../src/eval/taubench-labels.js';
import { checkSpec } from '../../src/language/index.js';

/*
 * examples/taubench: the airline's policy and the task intents check against the
 * airline's tools and the host's states.
 */

const folder = new URL('../../examples/taubench/', import.meta.url);
const read = (file: string) => readFileSync(new URL(file, folder), 'utf8');
const schema = taubenchSchema(
  { text: read('airline-tools.json'), name: 'airline-tools.json' },
  { text: read('airline-states.json'), name: 'airline-states.json' },
);

describe('examples/taubench', () => {
  it('the schema holds the 14 tools, their results and the host facts', () => {
    expect(schema.predicates.get('SessionUser')).toMatchObject({ kind: 'state', observed: true });
    expect(schema.predicates.get('FlightStatus')?.keys).toEqual(['flight_number', 'date']);
    const writes = [...schema.predicates.values()]
      .filter((predicate) => predicate.kind === 'action' && predicate.critical)
      .map((predicate) => predicate.name)
      .sort();
    // The writes the labels count are exactly the tools the schema marks critical.
    expect(writes).toEqual([...taubenchWriteTools].sort());
    // Reads give structured results: a policy can read a reservation's cabin.
    const reservation = schema.predicates.get('get_reservation_detailsResult');
    expect(reservation?.variables.map((variable) => variable.name)).toContain('cabin');
  });

  it('every intent checks, with no warning', () => {
    const files = readdirSync(new URL('intents/', folder)).filter((file) =>
      file.endsWith('.intent'),
    );
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const file of files) {
      const checked = checkSpec(read(`intents/${file}`), schema);
      expect(
        checked.diagnostics.map(
          (diagnostic) => `${file}: ${diagnostic.code} ${diagnostic.message}`,
        ),
      ).toEqual([]);
    }
  });

  it('the policy has no Done, and every one of its rules and guards checks', () => {
    const checked = checkSpec(read('airline.policy'), schema);
    // Its only diagnostic is the one §8 makes it: no Done rule.
    expect(checked.diagnostics.map((diagnostic) => diagnostic.code)).toEqual(['missing-done']);
    // Checked as rules (a Done added), nothing is wrong: its objectives are permissions,
    // which lead to no Done, and that is all the checker notes.
    const asRules = checkSpec(`${read('airline.policy')}\ntrue -> Done\n`, schema);
    expect(asRules.ok).toBe(true);
    expect(new Set(asRules.diagnostics.map((diagnostic) => diagnostic.code))).toEqual(
      new Set(['unused-branch']),
    );
    // Each write has its permission.
    const named = new Set(
      asRules.ok
        ? asRules.value.rules.flatMap((rule) => (rule.action ? [rule.action.predicate.name] : []))
        : [],
    );
    expect([...named].sort()).toEqual([...taubenchWriteTools].sort());
  });
});
