import { describe, expect, it } from 'vitest';
import { loadToolSchema, type Schema } from '../../src/index.js';
import { sessionFor } from './support.js';

/**
 * Language v2 structured values (LANGUAGE.md §7) against an agent that shapes its JSON
 * to slip past a guard on a path: a field given as an array or object, a field left
 * out, a look-alike in a nested field, a string that imitates an object, a list that
 * mixes types. Guards on json paths err toward firing: none of these gets `allow`.
 */
const tools = JSON.stringify({
  tools: [
    {
      name: 'SendPayment',
      description: 'Sends a payment.',
      inputSchema: {
        type: 'object',
        properties: { order: { type: 'object' }, notes: { type: 'array' } },
        required: ['order'],
      },
      annotations: { destructiveHint: true },
    },
  ],
});

function schema(): Schema {
  const loaded = loadToolSchema(tools);
  if (!loaded.ok) throw new Error('the tools do not load');
  return loaded.value;
}

const spec = `
reject SendPayment(order.to = "Mallory") because "never pay Mallory"
reject SendPayment(order.amount > 500)
reject SendPayment(count(notes[it matches /wire/]) > 0)
SendPayment() -> Paid
Paid -> Done`;

function decide(args: Record<string, unknown>) {
  return sessionFor(spec, schema()).propose({ action: { name: 'SendPayment', args } }).decision;
}

describe('guards on json paths cannot be dodged by the shape of the value', () => {
  it('allows a payment the guards do not name', () => {
    expect(decide({ order: { to: 'Alice', amount: 20 }, notes: ['rent'] })).toBe('allow');
  });

  it('refuses the named payee, also as a look-alike, and an amount above the bound', () => {
    expect(decide({ order: { to: 'Mallory', amount: 20 } })).toBe('reject');
    expect(decide({ order: { to: 'МALLORY', amount: 20 } })).toBe('reject');
    expect(decide({ order: { to: 'Alice', amount: 500.01 } })).toBe('reject');
    expect(decide({ order: { to: 'Alice', amount: '501' } })).toBe('reject');
  });

  it('refuses a field given as an array or object, or missing, where the guard reads it', () => {
    expect(decide({ order: { to: ['Mallory'], amount: 20 } })).toBe('reject');
    expect(decide({ order: { to: { name: 'Mallory' }, amount: 20 } })).toBe('reject');
    expect(decide({ order: { amount: 20 } })).toBe('reject');
    expect(decide({ order: { to: 'Alice', amount: 'a lot' } })).toBe('reject');
    expect(decide({ order: ['Mallory', 20] })).toBe('reject');
    expect(decide({ order: 'Mallory' })).toBe('reject');
  });

  it('counts a filtered element whatever its shape; a list given as a string is invalid', () => {
    expect(decide({ order: { to: 'Alice', amount: 20 }, notes: ['rent', 'wire it'] })).toBe(
      'reject',
    );
    expect(decide({ order: { to: 'Alice', amount: 20 }, notes: [{ text: 'wire it' }] })).toBe(
      'reject',
    );
    // A bare string where the tool takes a list is not read at all (invalid-proposal).
    expect(decide({ order: { to: 'Alice', amount: 20 }, notes: 'wire' })).toBe('revise');
  });
});
