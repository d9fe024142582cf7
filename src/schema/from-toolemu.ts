import type { Result } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';
import { isCriticalByName } from './criticality.js';
import { readDescription } from './fields.js';
import { describeValue, type JsonRecord, readJsonInput } from './json-input.js';
import { childPath } from './json-path.js';
import { type ConvertedVariable, convertNamedSchema, type VariableRole } from './json-schema.js';
import { type LoadContext, runLoader } from './load-context.js';
import { type ConvertedTool, ToolPredicates, type ToolSchemaOptions } from './tool-predicates.js';

/** Whether a value looks like one ToolEmu toolkit: `name_for_model` and a `tools` array. */
export function isToolemuToolkit(value: unknown): boolean {
  return (
    isRecord(value) && typeof value['name_for_model'] === 'string' && Array.isArray(value['tools'])
  );
}

/**
 * Converts ToolEmu toolkits (an array of toolkits, or one toolkit) to a schema. A tool
 * is named as agents call it, `name_for_model + name` (`TodoistDeleteTask`); its
 * `parameters` become the action's variables and its `returns` the result
 * predicate's. ToolEmu has no hints, so criticality comes from `isCriticalByName` on
 * the tool's own name (`DeleteTask`: a toolkit name such as `AugustSmartLock` must
 * not make its read-only tools critical), unless `options.critical` decides.
 *
 * @example
 * const result = schemaFromToolemu(toolkitsJsonText);
 * result.value?.predicates.get('TodoistDeleteTask')?.critical; // true
 * result.value?.predicates.get('TodoistSearchTasksResult')?.resultOf; // 'TodoistSearchTasks'
 */
export function schemaFromToolemu(input: unknown, options: ToolSchemaOptions = {}): Result<Schema> {
  return runLoader(options.limits, (context) => {
    const read = readJsonInput(input, context);
    return read === undefined ? undefined : convertToolemu(read.value, context, options);
  });
}

/** The conversion of an already parsed value, for `loadToolSchema`. */
export function convertToolemu(
  value: unknown,
  context: LoadContext,
  options: ToolSchemaOptions,
): Schema | undefined {
  const toolkits = Array.isArray(value)
    ? value.map((toolkit: unknown, index) => ({ toolkit, path: childPath('$', index) }))
    : isToolemuToolkit(value)
      ? [{ toolkit: value, path: '$' }]
      : undefined;
  if (toolkits === undefined) {
    context.bag.report(
      'schema-unrecognized-tools',
      { path: '$' },
      {
        reason: `ToolEmu toolkits are an array of toolkits or one toolkit; found ${describeValue(value)}.`,
      },
    );
    return undefined;
  }
  const predicates = new ToolPredicates(context, options);
  for (const { toolkit, path } of toolkits) {
    readToolkit(toolkit, path, context, predicates);
  }
  return predicates.build();
}

function readToolkit(
  toolkit: unknown,
  path: string,
  context: LoadContext,
  predicates: ToolPredicates,
): void {
  if (!isRecord(toolkit)) {
    context.problem(
      'schema-wrong-type',
      path,
      `A toolkit must be an object with name_for_model and tools; found ${describeValue(toolkit)}.`,
    );
    return;
  }
  const prefix = toolkit['name_for_model'];
  const tools = toolkit['tools'];
  if (typeof prefix !== 'string') {
    context.problem(
      'schema-missing-field',
      childPath(path, 'name_for_model'),
      `A toolkit needs its name_for_model (the prefix of its tool names); found ${describeValue(prefix)}.`,
    );
  }
  if (!Array.isArray(tools)) {
    context.problem(
      'schema-wrong-type',
      childPath(path, 'tools'),
      `A toolkit's tools must be an array; found ${describeValue(tools)}.`,
    );
    return;
  }
  if (typeof prefix !== 'string') return;
  const toolsPath = childPath(path, 'tools');
  for (const [index, tool] of tools.entries()) {
    const toolPath = childPath(toolsPath, index);
    if (!predicates.hasRoom(toolPath)) return;
    const converted = readTool(tool, toolPath, prefix, context);
    if (converted !== undefined) predicates.add(converted);
  }
}

function readTool(
  tool: unknown,
  path: string,
  prefix: string,
  context: LoadContext,
): ConvertedTool | undefined {
  if (!isRecord(tool)) {
    context.problem(
      'schema-wrong-type',
      path,
      `A tool must be an object with a name, parameters and returns; found ${describeValue(tool)}.`,
    );
    return undefined;
  }
  const namePath = childPath(path, 'name');
  const name = tool['name'];
  if (typeof name !== 'string' || name === '') {
    context.problem(
      'schema-missing-field',
      namePath,
      `A tool needs a name; found ${describeValue(name)}.`,
    );
    return undefined;
  }
  return {
    name: prefix + name,
    namePath,
    description: readDescription(tool, path, context, 'summary'),
    parameters: readValues(tool, 'parameters', path, context),
    results: readValues(tool, 'returns', path, context),
    critical: isCriticalByName(name),
  };
}

/** `parameters` or `returns`: `{ name, type, description, required? }` with JSON Schema's plain type names. */
function readValues(
  tool: JsonRecord,
  field: 'parameters' | 'returns',
  toolPath: string,
  context: LoadContext,
): ConvertedVariable[] {
  const values = tool[field];
  const path = childPath(toolPath, field);
  if (values === undefined || values === null) return [];
  if (!Array.isArray(values)) {
    context.problem(
      'schema-wrong-type',
      path,
      `'${field}' must be an array; found ${describeValue(values)}.`,
    );
    return [];
  }
  const role: VariableRole = field === 'parameters' ? 'parameter' : 'result field';
  // More than the limit is reported when the predicate is built; reading stops there.
  return values.slice(0, context.limits.maxVariables + 1).flatMap((value: unknown, index) => {
    const valuePath = childPath(path, index);
    if (!isRecord(value) || typeof value['name'] !== 'string') {
      context.problem(
        'schema-wrong-type',
        valuePath,
        `Each of a tool's ${field} must be an object with a name and a type.`,
      );
      return [];
    }
    const required = value['required'];
    if (required !== undefined && typeof required !== 'boolean') {
      context.problem(
        'schema-wrong-type',
        childPath(valuePath, 'required'),
        `'required' must be true or false; found ${describeValue(required)}.`,
      );
    }
    // Only these are schema keywords; `required` here is ToolEmu's own flag. Declared
    // `properties` / `items` (not in the published toolkits) make records (LANGUAGE.md §7).
    const schema = {
      type: value['type'],
      description: value['description'],
      ...(value['properties'] === undefined ? {} : { properties: value['properties'] }),
      ...(value['items'] === undefined ? {} : { items: value['items'] }),
    };
    return convertNamedSchema(value['name'], schema, valuePath, context, {
      role,
      required: required === true,
    });
  });
}
