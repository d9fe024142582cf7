import { jsonSchema, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { checkSpec, type Result, type Schema } from '../../src/index.js';
import { schemaFromAiSdkTools } from '../../src/integrations/ai-sdk/index.js';
import { schemaFromLangChainTools } from '../../src/integrations/langchain/index.js';
import { schemaFromOpenAiAgentsTools } from '../../src/integrations/openai-agents/index.js';
import {
  loadToolSchema,
  schemaFromMcpTools,
  schemaFromOpenAiTools,
} from '../../src/schema/index.js';

/**
 * A spec that reads a result field of a tool that declares no output schema gets a hint
 * that says so — from every schema source — instead of "Its variables are: content".
 */

const quotaInput = { type: 'object', properties: {} } as const;

const sources: ReadonlyArray<readonly [string, () => Promise<Result<Schema>> | Result<Schema>]> = [
  [
    'MCP tools/list',
    () => schemaFromMcpTools({ tools: [{ name: 'GetQuota', inputSchema: quotaInput }] }),
  ],
  [
    'loadToolSchema (MCP, a name that is not an identifier)',
    () => loadToolSchema({ tools: [{ name: 'get-quota', inputSchema: quotaInput }] }),
  ],
  [
    'OpenAI functions',
    () => schemaFromOpenAiTools([{ type: 'function', name: 'GetQuota', parameters: quotaInput }]),
  ],
  [
    'the AI SDK',
    () =>
      schemaFromAiSdkTools({
        GetQuota: tool({
          description: 'Read the storage quota.',
          inputSchema: jsonSchema(quotaInput),
          execute: async () => ({ freeGb: 12 }),
        }),
      }),
  ],
  ['LangChain', () => schemaFromLangChainTools([{ name: 'GetQuota', schema: quotaInput }])],
  [
    'OpenAI Agents',
    () =>
      schemaFromOpenAiAgentsTools([{ type: 'function', name: 'GetQuota', parameters: quotaInput }]),
  ],
];

describe('a result field of a tool without an output schema', () => {
  for (const [source, load] of sources) {
    it(`${source}: the hint says the tool declares no outputSchema`, async () => {
      const schema = (await load()).value;
      if (schema === undefined) throw new Error('the schema did not load');
      const name = schema.predicates.has('GetQuota') ? 'GetQuota' : 'get_quota';
      const checked = checkSpec(
        `${name}() -> Known\nKnown & ${name}Result(freeGb > 5) -> Done\n`,
        schema,
      );
      const diagnostic = checked.diagnostics.find((d) => d.code === 'unknown-variable');
      const tool = name === 'GetQuota' ? 'GetQuota' : 'get-quota';
      expect(diagnostic?.hint).toBe(
        `${tool} declares no outputSchema; add one to read result fields (its result is only its text, 'content').`,
      );
    });
  }

  it('a tool that declares result fields keeps the list of its variables', () => {
    const schema = schemaFromMcpTools({
      tools: [
        {
          name: 'GetQuota',
          inputSchema: quotaInput,
          outputSchema: { type: 'object', properties: { freeGb: { type: 'number' } } },
        },
      ],
    }).value;
    if (schema === undefined) throw new Error('the schema did not load');
    const checked = checkSpec(
      'GetQuota() -> Known\nKnown & GetQuotaResult(usedGb > 5) -> Done\n',
      schema,
    );
    expect(checked.diagnostics.find((d) => d.code === 'unknown-variable')?.hint).toBe(
      'Its variables are: freeGb.',
    );
  });
});
