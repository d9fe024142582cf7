import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Result, unwrap } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { loadStateSchema } from './load-states.js';
import { loadToolSchema } from './load-tools.js';
import { mergeSchemas } from './merge-schemas.js';

const tools = JSON.parse(readFileSync('examples/policy/tools.json', 'utf8')) as unknown;
const states = JSON.parse(readFileSync('examples/policy/states.json', 'utf8')) as unknown;

function names(result: Result<Schema>): string[] {
  return result.ok ? [...result.value.predicates.keys()].sort() : [];
}

describe('the one-file schema {tools, states} (FORMATS.md §1)', () => {
  it('reads as --tools T --states S do, through either loader, as text or parsed', () => {
    const apart = mergeSchemas(unwrap(loadToolSchema(tools)), unwrap(loadStateSchema(states)));
    const expected = names(apart);
    expect(expected).toContain('SessionUser');
    expect(expected).toContain('cancel_reservation');
    const oneFile = { tools, states };
    expect(names(loadToolSchema(oneFile))).toEqual(expected);
    expect(names(loadStateSchema(oneFile))).toEqual(expected);
    expect(names(loadToolSchema(JSON.stringify(oneFile)))).toEqual(expected);
    expect(names(loadStateSchema(JSON.stringify(oneFile)))).toEqual(expected);
    // Each half keeps what it declares: the host's fact stays observed.
    const loaded = loadToolSchema(oneFile);
    expect(loaded.ok && loaded.value.predicates.get('SessionUser')?.observed).toBe(true);
  });

  it('refuses a name both halves declare, located in the states half', () => {
    const clash = {
      tools,
      states: { cancel_reservation: { description: 'clash', variables: [] } },
    };
    const result = loadToolSchema(clash);
    expect(result.ok).toBe(false);
    expect(result.diagnostics.map((d) => [d.code, d.path])).toContainEqual([
      'schema-duplicate',
      '$.states.cancel_reservation',
    ]);
  });

  it("locates each half's problems under its own key, and fails closed", () => {
    const badStates = loadToolSchema({ tools, states: { Bad: { variables: [{ name: 'x' }] } } });
    expect(badStates.ok).toBe(false);
    expect(badStates.diagnostics.some((d) => d.path?.startsWith('$.states.Bad'))).toBe(true);
    const badTools = loadStateSchema({ tools: 42, states });
    expect(badTools.ok).toBe(false);
    expect(badTools.diagnostics.map((d) => [d.code, d.path])).toContainEqual([
      'schema-unrecognized-tools',
      '$.tools',
    ]);
  });

  it('takes each half as JSON, never as a second text to parse', () => {
    const text = loadToolSchema({ tools: JSON.stringify(tools), states });
    expect(text.ok).toBe(false);
    expect(text.diagnostics.map((d) => [d.code, d.path])).toContainEqual([
      'schema-invalid',
      '$.tools',
    ]);
  });

  it('does not nest, and leaves a states file with predicates named tools and states alone', () => {
    const nested = loadToolSchema({ tools: { tools, states }, states });
    expect(nested.ok).toBe(false);
    expect(nested.diagnostics.map((d) => [d.code, d.path])).toContainEqual([
      'schema-invalid',
      '$.tools',
    ]);
    const predicate = { description: 'a predicate', variables: [{ name: 'n', type: 'Text' }] };
    const plain = loadStateSchema({ tools: predicate, states: predicate });
    expect(names(plain)).toEqual(['states', 'tools']);
  });
});
