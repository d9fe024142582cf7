import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedUrl } from '../../test/support/shared.js';
import type { Result } from '../language/result.js';
import { detectToolSchemaFormat, loadToolSchema } from './load-tools.js';

function problems(result: Result<unknown>): [string, string | undefined][] {
  return result.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path]);
}

function shared(path: string): string {
  return readFileSync(sharedUrl(path), 'utf8');
}

describe('detectToolSchemaFormat', () => {
  it('tells the formats apart by their shape', () => {
    const mcpTool = { name: 'a', inputSchema: {} };
    const openAiTool = { type: 'function', function: { name: 'a' } };
    const toolkit = { name_for_model: 'A', tools: [] };
    expect(detectToolSchemaFormat([toolkit])).toEqual({ format: 'toolemu' });
    expect(detectToolSchemaFormat(toolkit)).toEqual({ format: 'toolemu' });
    expect(detectToolSchemaFormat({ tools: [mcpTool] })).toEqual({ format: 'mcp' });
    expect(detectToolSchemaFormat([mcpTool])).toEqual({ format: 'mcp' });
    expect(detectToolSchemaFormat({ tools: [] })).toEqual({ format: 'mcp' });
    expect(detectToolSchemaFormat({ result: { tools: [mcpTool] } })).toEqual({ format: 'mcp' });
    expect(detectToolSchemaFormat([openAiTool])).toEqual({ format: 'openai' });
    expect(detectToolSchemaFormat({ tools: [openAiTool] })).toEqual({ format: 'openai' });
    expect(detectToolSchemaFormat([])).toEqual({ format: 'openai' });
  });

  it('says why a value is none of them', () => {
    expect(detectToolSchemaFormat('tools')).toEqual({
      reason: 'found a string, not a list of tools.',
    });
    expect(detectToolSchemaFormat({ name: 'a', inputSchema: {} })).toEqual({
      reason: 'found a single tool; give a list ({ "tools": [...] } or an array).',
    });
    expect(detectToolSchemaFormat({ Alarm: {}, Clock: {} })).toEqual({
      reason: "found an object without a 'tools' array (its keys: Alarm, Clock).",
    });
    expect(detectToolSchemaFormat({ tools: [{ name_for_model: 'A', tools: [] }] })).toEqual({
      reason: "found toolkits under 'tools'; give the array of toolkits itself.",
    });
    const array = detectToolSchemaFormat([1, 2]);
    expect('reason' in array && array.reason).toContain('the first element (a number) is neither');
  });
});

describe('loadToolSchema', () => {
  it('loads the ToolEmu toolkits', () => {
    const result = loadToolSchema(shared('data/toolemu/toolkits.json'), { id: 'toolemu' });
    expect(result.diagnostics).toEqual([]);
    expect(result.value?.id).toBe('toolemu');
    expect(result.value?.predicates.size).toBe(660);
    expect(result.value?.predicates.get('TodoistDeleteTask')?.critical).toBe(true);
  });

  it('loads the MCP example', () => {
    const result = loadToolSchema(shared('examples/bank-transfer/tools.json'));
    expect(result.value?.id).toBe('tools');
    expect(result.value?.predicates.get('BankTransfer')?.critical).toBe(true);
    expect(result.value?.predicates.get('BankCheckBalance')?.critical).toBe(false);
  });

  it('loads OpenAI tools, applying options to the detected format', () => {
    const result = loadToolSchema(
      JSON.stringify([{ type: 'function', name: 'remove_user', parameters: {} }]),
      { critical: () => false },
    );
    expect(result.value?.predicates.get('remove_user')?.critical).toBe(false);
  });

  it('reports unrecognised input, invalid JSON and missing input', () => {
    expect(problems(loadToolSchema('{"Alarm": {"variables": []}}'))).toEqual([
      ['schema-unrecognized-tools', '$'],
    ]);
    const states = loadToolSchema(shared('examples/restaurant/states.json'));
    expect(states.diagnostics[0]?.message).toMatch(
      /^Not a recognised tool schema: found an object/,
    );
    expect(problems(loadToolSchema('[1,'))).toEqual([['schema-invalid-json', '$']]);
    expect(problems(loadToolSchema(undefined))).toEqual([['schema-invalid', '$']]);
  });

  it('never throws when a critical callback throws', () => {
    const result = loadToolSchema(shared('examples/bank-transfer/tools.json'), {
      critical: () => {
        throw new Error('policy unavailable');
      },
    });
    expect(result.ok).toBe(false);
    expect(result.diagnostics.at(-1)?.message).toContain('policy unavailable');
  });
});
