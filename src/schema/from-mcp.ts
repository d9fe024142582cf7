import type { Result } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';
import { isCriticalByAnnotations } from './criticality.js';
import { readDescription } from './fields.js';
import { describeValue, readJsonInput } from './json-input.js';
import { childPath } from './json-path.js';
import { convertObjectSchema } from './json-schema.js';
import { type LoadContext, runLoader } from './load-context.js';
import {
  type ConvertedTool,
  contentResult,
  ToolPredicates,
  type ToolSchemaOptions,
} from './tool-predicates.js';

/** Whether a value looks like one MCP tool: an object with an `inputSchema`. */
export function isMcpTool(value: unknown): boolean {
  return isRecord(value) && 'inputSchema' in value;
}

/** Where the tool array is: a `tools/list` result, its JSON-RPC response, or a bare array. */
function locateTools(value: unknown): { tools: readonly unknown[]; path: string } | undefined {
  if (Array.isArray(value)) return { tools: value, path: '$' };
  if (!isRecord(value)) return undefined;
  if (Array.isArray(value['tools'])) return { tools: value['tools'], path: '$.tools' };
  const result = value['result'];
  if (isRecord(result) && Array.isArray(result['tools'])) {
    return { tools: result['tools'], path: '$.result.tools' };
  }
  return undefined;
}

/**
 * Converts an MCP `tools/list` result (`{ tools: [...] }`, the JSON-RPC response that
 * carries it, or a bare array of tools) to a schema. `inputSchema` gives the action's
 * variables; `outputSchema` the result predicate's, or, without one, a single text
 * variable `content`. A tool is critical unless its annotations say `readOnlyHint:
 * true` or `destructiveHint: false` (the MCP defaults), or `options.critical` decides.
 *
 * @example
 * const result = schemaFromMcpTools({ tools: [{ name: 'BankTransfer',
 *   inputSchema: { type: 'object', properties: { amount: { type: 'number' } } },
 *   annotations: { destructiveHint: true } }] });
 * result.value?.predicates.get('BankTransfer')?.critical; // true
 * result.value?.predicates.get('BankTransferResult')?.variables[0]?.name; // 'content'
 */
export function schemaFromMcpTools(
  input: unknown,
  options: ToolSchemaOptions = {},
): Result<Schema> {
  return runLoader(options.limits, (context) => {
    const read = readJsonInput(input, context);
    return read === undefined ? undefined : convertMcpTools(read.value, context, options);
  });
}

/** The conversion of an already parsed value, for `loadToolSchema`. */
export function convertMcpTools(
  value: unknown,
  context: LoadContext,
  options: ToolSchemaOptions,
): Schema | undefined {
  const located = locateTools(value);
  if (located === undefined) {
    context.bag.report(
      'schema-unrecognized-tools',
      { path: '$' },
      { reason: `an MCP tools/list result is { "tools": [...] }; found ${describeValue(value)}.` },
    );
    return undefined;
  }
  const predicates = new ToolPredicates(context, options);
  for (const [index, tool] of located.tools.entries()) {
    const path = childPath(located.path, index);
    if (!predicates.hasRoom(path)) break;
    const converted = readMcpTool(tool, path, context);
    if (converted !== undefined) predicates.add(converted);
  }
  return predicates.build();
}

function readMcpTool(tool: unknown, path: string, context: LoadContext): ConvertedTool | undefined {
  if (!isRecord(tool)) {
    context.problem(
      'schema-wrong-type',
      path,
      `An MCP tool must be an object with a name and an inputSchema; found ${describeValue(tool)}.`,
    );
    return undefined;
  }
  const namePath = childPath(path, 'name');
  const name = tool['name'];
  if (typeof name !== 'string' || name === '') {
    context.problem(
      'schema-missing-field',
      namePath,
      `An MCP tool needs a name; found ${describeValue(name)}.`,
    );
    return undefined;
  }
  const inputPath = childPath(path, 'inputSchema');
  if (tool['inputSchema'] === undefined) {
    context.problem(
      'schema-missing-field',
      inputPath,
      `The MCP tool '${name}' has no inputSchema.`,
      'Give { "type": "object", "properties": { … } }.',
    );
  }
  const outputPath = childPath(path, 'outputSchema');
  const output = tool['outputSchema'];
  return {
    name,
    namePath,
    description: readDescription(tool, path, context),
    parameters: convertObjectSchema(tool['inputSchema'], inputPath, context, { role: 'parameter' }),
    results:
      output === undefined || output === null
        ? [contentResult(path)]
        : convertObjectSchema(output, outputPath, context, { role: 'result field' }),
    critical: isCriticalByAnnotations(tool['annotations']),
  };
}
