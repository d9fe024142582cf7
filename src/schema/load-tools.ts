import type { Result } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';
import { convertMcpTools, isMcpTool } from './from-mcp.js';
import { convertOpenAiTools, isOpenAiTool } from './from-openai.js';
import { convertToolemu, isToolemuToolkit } from './from-toolemu.js';
import { abbreviate, describeValue, readJsonInput } from './json-input.js';
import { type LoadContext, runLoader } from './load-context.js';
import { loadStateSchema } from './load-states.js';
import type { ToolSchemaOptions } from './tool-predicates.js';
import { isToolsAndStates, loadToolsAndStates } from './tools-and-states.js';

export type ToolSchemaFormat = 'toolemu' | 'mcp' | 'openai';

/** Options of `loadToolSchema`: those of every converter. */
export type LoadToolSchemaOptions = ToolSchemaOptions;

const converters: Readonly<
  Record<
    ToolSchemaFormat,
    (value: unknown, context: LoadContext, options: ToolSchemaOptions) => Schema | undefined
  >
> = {
  toolemu: convertToolemu,
  mcp: convertMcpTools,
  openai: convertOpenAiTools,
};

/**
 * Which tool-schema format a parsed value is in, judged by its outer shape and its
 * first tool, or why it is none. An empty list is taken as OpenAI's (any format
 * would give the same empty schema).
 *
 * @example
 * detectToolSchemaFormat({ tools: [] }); // { format: 'mcp' }
 * detectToolSchemaFormat('tools'); // { reason: 'found a string …' }
 */
export function detectToolSchemaFormat(
  value: unknown,
): { readonly format: ToolSchemaFormat } | { readonly reason: string } {
  if (Array.isArray(value)) {
    if (value.length === 0) return { format: 'openai' };
    return detectByElement(value[0], 'the first element');
  }
  if (!isRecord(value)) return { reason: `found ${describeValue(value)}, not a list of tools.` };
  if (isToolemuToolkit(value)) return { format: 'toolemu' };
  const tools = value['tools'];
  if (Array.isArray(tools)) {
    if (tools.length === 0) return { format: 'mcp' };
    const detected = detectByElement(tools[0], 'the first tool');
    // ToolEmu toolkits come as an array or alone, never under `tools`.
    if ('format' in detected && detected.format === 'toolemu') {
      return { reason: "found toolkits under 'tools'; give the array of toolkits itself." };
    }
    return detected;
  }
  // A JSON-RPC response to tools/list, saved whole.
  const result = value['result'];
  if (isRecord(result) && Array.isArray(result['tools'])) return { format: 'mcp' };
  if (isMcpTool(value) || isOpenAiTool(value)) {
    return { reason: 'found a single tool; give a list ({ "tools": [...] } or an array).' };
  }
  const keys = Object.keys(value)
    .slice(0, 8)
    .map((key) => abbreviate(key, 30));
  return {
    reason: `found an object without a 'tools' array (its keys: ${keys.join(', ') || 'none'}).`,
  };
}

function detectByElement(
  element: unknown,
  described: string,
): { readonly format: ToolSchemaFormat } | { readonly reason: string } {
  if (isToolemuToolkit(element)) return { format: 'toolemu' };
  if (isMcpTool(element)) return { format: 'mcp' };
  if (isOpenAiTool(element)) return { format: 'openai' };
  return {
    reason:
      `${described} (${describeValue(element)}) is neither a ToolEmu toolkit (name_for_model, tools), ` +
      'an MCP tool (name, inputSchema) nor an OpenAI tool (type: "function").',
  };
}

/**
 * Loads tool schemas as a schema, detecting the format: ToolEmu toolkits, an MCP
 * `tools/list` result, or OpenAI function-calling tools. Each tool `T` becomes an
 * action predicate `T(params…)` and a state predicate `TResult(returns…)` holding its
 * last observed result. Takes JSON text or an already parsed value; never throws.
 *
 * @example
 * const result = loadToolSchema(readFileSync('tools.json', 'utf8'), {
 *   critical: (name) => (name === 'BankCheckBalance' ? false : undefined),
 * });
 * if (result.ok) result.value.predicates.get('BankTransfer')?.resultPredicate; // 'BankTransferResult'
 */
export function loadToolSchema(
  input: unknown,
  options: LoadToolSchemaOptions = {},
): Result<Schema> {
  return runLoader(options.limits, (context) => {
    const read = readJsonInput(input, context);
    if (read === undefined) return undefined;
    if (isToolsAndStates(read.value))
      return loadToolsAndStates(read.value, context, {
        tools: (tools) => loadToolSchema(tools, options),
        states: (states) => loadStateSchema(states, { id: 'states', limits: context.limits }),
      });
    const detected = detectToolSchemaFormat(read.value);
    if ('reason' in detected) {
      context.bag.report('schema-unrecognized-tools', { path: '$' }, { reason: detected.reason });
      return undefined;
    }
    return converters[detected.format](read.value, context, options);
  });
}
