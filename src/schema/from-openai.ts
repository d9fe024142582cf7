import type { Result } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';
import { isCriticalByName } from './criticality.js';
import { readDescription } from './fields.js';
import { abbreviate, describeValue, readJsonInput } from './json-input.js';
import { childPath } from './json-path.js';
import { convertObjectSchema } from './json-schema.js';
import { type LoadContext, runLoader } from './load-context.js';
import {
  type ConvertedTool,
  contentResult,
  ToolPredicates,
  type ToolSchemaOptions,
} from './tool-predicates.js';

/**
 * Whether a value looks like one OpenAI tool: `{ type: 'function', … }`, an object with
 * a `function` object, or a legacy `functions` entry (`name` and `parameters`).
 */
export function isOpenAiTool(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (value['type'] === 'function' || isRecord(value['function'])) return true;
  return (
    typeof value['name'] === 'string' && isRecord(value['parameters']) && !('inputSchema' in value)
  );
}

/**
 * Converts OpenAI function-calling tools to a schema: the Chat Completions form
 * `[{ type: 'function', function: { name, description, parameters } }]`, the Responses
 * form `[{ type: 'function', name, description, parameters }]`, or either inside a
 * request body's `tools`. `parameters` gives the action's variables; the result
 * predicate has one text variable `content`. Criticality comes from `isCriticalByName`
 * unless `options.critical` decides.
 *
 * @example
 * const result = schemaFromOpenAiTools([{ type: 'function', function: { name: 'send_email',
 *   parameters: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] } } }]);
 * result.value?.predicates.get('send_email')?.critical; // true
 */
export function schemaFromOpenAiTools(
  input: unknown,
  options: ToolSchemaOptions = {},
): Result<Schema> {
  return runLoader(options.limits, (context) => {
    const read = readJsonInput(input, context);
    return read === undefined ? undefined : convertOpenAiTools(read.value, context, options);
  });
}

/** The conversion of an already parsed value, for `loadToolSchema`. */
export function convertOpenAiTools(
  value: unknown,
  context: LoadContext,
  options: ToolSchemaOptions,
): Schema | undefined {
  const located = Array.isArray(value)
    ? { tools: value, path: '$' }
    : isRecord(value) && Array.isArray(value['tools'])
      ? { tools: value['tools'] as readonly unknown[], path: '$.tools' }
      : undefined;
  if (located === undefined) {
    context.bag.report(
      'schema-unrecognized-tools',
      { path: '$' },
      {
        reason: `OpenAI tools are an array of { "type": "function", … }; found ${describeValue(value)}.`,
      },
    );
    return undefined;
  }
  const predicates = new ToolPredicates(context, options);
  for (const [index, tool] of located.tools.entries()) {
    const path = childPath(located.path, index);
    if (!predicates.hasRoom(path)) break;
    const converted = readOpenAiTool(tool, path, context);
    if (converted !== undefined) predicates.add(converted);
  }
  return predicates.build();
}

function readOpenAiTool(
  tool: unknown,
  path: string,
  context: LoadContext,
): ConvertedTool | undefined {
  if (!isRecord(tool)) {
    context.problem(
      'schema-wrong-type',
      path,
      `An OpenAI tool must be an object; found ${describeValue(tool)}.`,
    );
    return undefined;
  }
  const type = tool['type'];
  if (type !== undefined && type !== 'function') {
    context.problem(
      'schema-invalid',
      childPath(path, 'type'),
      `Only function tools can be converted; this tool's type is ${typeof type === 'string' ? `'${abbreviate(type)}'` : describeValue(type)}.`,
      'Built-in tools (web search, file search, …) have no schema to check arguments against; leave them out.',
    );
    return undefined;
  }
  // The Chat Completions form nests the function; the Responses form is flat.
  const nested = tool['function'];
  const functionPath = isRecord(nested) ? childPath(path, 'function') : path;
  const definition = isRecord(nested) ? nested : tool;
  const namePath = childPath(functionPath, 'name');
  const name = definition['name'];
  if (typeof name !== 'string' || name === '') {
    context.problem(
      'schema-missing-field',
      namePath,
      `A function tool needs a name; found ${describeValue(name)}.`,
    );
    return undefined;
  }
  const parametersPath = childPath(functionPath, 'parameters');
  return {
    name,
    namePath,
    description: readDescription(definition, functionPath, context),
    parameters: convertObjectSchema(definition['parameters'], parametersPath, context, {
      role: 'parameter',
    }),
    results: [contentResult(path)],
    critical: isCriticalByName(name),
  };
}
