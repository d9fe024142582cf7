import { readFileSync } from 'node:fs';
import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { createAgent, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuard } from '../../guard/index.js';
import { unwrap } from '../../language/index.js';
import { intentguardMiddleware, schemaFromLangChainTools } from './index.js';

const bankText = readFileSync(
  new URL('../../../examples/bank-transfer/spec.intent', import.meta.url),
  'utf8',
);

const balance = tool(async () => JSON.stringify({ balance: 1500 }), {
  name: 'BankCheckBalance',
  description: 'The balance.',
  schema: z.object({}),
});
const transfer = tool(async () => 'sent', {
  name: 'BankTransfer',
  description: 'Sends money.',
  schema: z.object({ to: z.string(), amount: z.number() }),
});

describe('schemaFromLangChainTools', () => {
  it('reads zod tool schemas and result schemas, so the bank spec checks against them', () => {
    const schema = unwrap(
      schemaFromLangChainTools([balance, transfer], {
        results: { BankCheckBalance: z.object({ balance: z.number() }) },
      }),
    );
    expect(schema.predicates.get('BankTransfer')?.resultPredicate).toBe('BankTransferResult');
    const fields = (name: string) =>
      schema.predicates.get(name)?.variables.map((variable) => variable.name);
    expect(fields('BankTransfer')).toEqual(['to', 'amount']);
    expect(fields('BankCheckBalanceResult')).toEqual(['balance']);
    // `balance > 1000` needs the result's number field: the spec checks.
    const guard = createGuard(bankText, schema, { now: '2025-03-14T12:00' });
    expect(guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} }).action).toBe('run');
  });

  it('fails the spec when a result schema is missing', () => {
    const schema = unwrap(schemaFromLangChainTools([balance, transfer]));
    expect(() => createGuard(bankText, schema)).toThrow(/balance/);
  });

  it('takes JSON Schema as given, and refuses a schema it cannot read', () => {
    const json = {
      name: 'Lookup',
      schema: { type: 'object', properties: { q: { type: 'string' } } },
    };
    const lookup = unwrap(schemaFromLangChainTools([json])).predicates.get('Lookup');
    expect(lookup?.variables.map((variable) => variable.name)).toEqual(['q']);
    expect(() => schemaFromLangChainTools([{ name: 'Old', schema: { _def: {} } }])).toThrow(
      /schema of 'Old' is neither JSON Schema nor a zod 4 schema/,
    );
  });

  it('gives a schema a real agent run is guarded by', async () => {
    const schema = unwrap(
      schemaFromLangChainTools([balance, transfer], {
        results: {
          BankCheckBalance: { type: 'object', properties: { balance: { type: 'number' } } },
        },
      }),
    );
    const guard = createGuard(bankText, schema, { now: '2025-03-14T12:00' });
    const model = fakeModel()
      .respondWithTools([{ name: 'BankCheckBalance', args: {}, id: 'b1' }])
      .respondWithTools([{ name: 'BankTransfer', args: { to: 'Bob', amount: 500 }, id: 't1' }])
      .respond(new AIMessage('Done.'));
    const agent = createAgent({
      model,
      tools: [balance, transfer],
      middleware: [intentguardMiddleware(guard, { maxFinishRefusals: 0 })],
    });
    await expect(agent.invoke({ messages: [{ role: 'user', content: 'go' }] })).rejects.toThrow(
      /stopped 1 times/,
    );
    expect(guard.status().achieved).toEqual({ BalanceKnown: 1 });
    expect(guard.journal().events).toContainEqual({
      observe: { updates: { BankCheckBalanceResult: { balance: 1500 } } },
      id: 'b1',
    });
  });
});
