import { readFileSync } from 'node:fs';
import { jsonSchema, tool } from 'ai';
import { jsonSchema as jsonSchemaV7, tool as toolV7, zodSchema as zodSchemaV7 } from 'ai-v7';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { createGuard, type Guard, type ToolCall } from '../../guard/index.js';
import { type Schema, unwrap } from '../../language/index.js';
import { loadToolSchema } from '../../schema/index.js';
import { finishTool } from './finish.js';
import { schemaFromAiSdkTools } from './tool-schema.js';

const examples = new URL('../../../examples/', import.meta.url);
const specText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const reference = unwrap(
  loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8')),
);

const calls: ToolCall[] = [
  { id: 't0', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } },
  { id: 'b1', name: 'BankCheckBalance', args: {} },
  { id: 't1', name: 'BankTransfer', args: { to: 'Alice', amount: 900 } },
  { id: 't2', name: 'BankTransfer', args: { to: 'Bob', amount: 500 } },
  { id: 't4', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } },
];

/** The decisions of a fixed run, to compare two schemas by what the guard does with them. */
function decisions(schema: Schema): string[] {
  const guard: Guard = createGuard(specText, schema, { now: '2025-03-14T12:00' });
  return calls.map((call) => {
    const decision = guard.check(call);
    if (call.id === 'b1') guard.result('b1', { output: { balance: 1500 } });
    return `${call.id} ${decision.action} ${decision.verdict.reasons[0]?.code ?? ''}`;
  });
}

describe('schemaFromAiSdkTools', () => {
  it('reads v6 tools (jsonSchema and zod) into a schema the guard decides with as with tools.json', async () => {
    const tools = {
      BankCheckBalance: tool({
        description: "Returns the balance of the user's checking account.",
        inputSchema: jsonSchema({ type: 'object', properties: {} }),
        outputSchema: z.object({ balance: z.number() }),
        execute: async () => ({ balance: 1500 }),
      }),
      BankTransfer: tool({
        description: 'Transfers money to a payee.',
        inputSchema: z.object({ to: z.string(), amount: z.number() }),
        execute: async () => ({ ok: true }),
      }),
      finish: finishTool(createGuard(undefined)),
    };
    const schema = unwrap(await schemaFromAiSdkTools(tools));
    expect(schema.predicates.has('finish')).toBe(false);
    expect(schema.predicates.get('BankCheckBalance')?.resultPredicate).toBe(
      'BankCheckBalanceResult',
    );
    expect(decisions(schema)).toEqual(decisions(reference));
    expect(decisions(schema)).toEqual([
      't0 refuse unmet-conditions',
      'b1 run ',
      't1 refuse guard-reject',
      't2 refuse unmet-conditions',
      't4 ask rule-confirm',
    ]);
  });

  it('reads v7 tools, lazy schemas and the loader options', async () => {
    const tools = {
      BankCheckBalance: toolV7({
        inputSchema: () => jsonSchemaV7({ type: 'object', properties: {} }),
        outputSchema: zodSchemaV7(z.object({ balance: z.number() })),
        execute: async () => ({ balance: 1500 }),
      }),
      BankTransfer: toolV7({
        inputSchema: z.object({ to: z.string(), amount: z.number() }),
        execute: async () => ({ ok: true }),
      }),
    };
    const schema = unwrap(await schemaFromAiSdkTools(tools));
    expect(decisions(schema)).toEqual(decisions(reference));
    const relaxed = unwrap(
      await schemaFromAiSdkTools(tools, {
        critical: (name) => (name === 'BankTransfer' ? false : undefined),
      }),
    );
    expect(schema.predicates.get('BankTransfer')?.critical).toBe(true);
    expect(relaxed.predicates.get('BankTransfer')?.critical).toBe(false);
  });

  it('throws for a schema it cannot turn into JSON Schema', async () => {
    const tools = { Old: { inputSchema: z3.object({ to: z3.string() }), execute: () => 1 } };
    await expect(schemaFromAiSdkTools(tools)).rejects.toThrow(
      /^schemaFromAiSdkTools: 'tools\.Old\.inputSchema' must be .*zodSchema\(\).*, not a Standard Schema of 'zod' without JSON Schema$/,
    );
    await expect(schemaFromAiSdkTools(null as never)).rejects.toThrow(/'tools' must be a tool set/);
  });
});
