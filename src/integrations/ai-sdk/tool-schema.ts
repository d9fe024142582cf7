import { argumentError, describeArgument } from '../../language/arguments.js';
import type { Result, Schema } from '../../language/index.js';
import { type LoadToolSchemaOptions, loadToolSchema } from '../../schema/index.js';
import { isRecord } from '../../support/is-record.js';
import { isFinishTool } from './finish.js';

/**
 * The guard's schema from an AI SDK tool set: each tool's input schema (and output
 * schema, when it has one) as JSON Schema, read the way the SDK reads it, without
 * importing `ai`.
 */

/** The SDK's mark on `jsonSchema()` / `zodSchema()` values (`Symbol.for`, shared by v6 and v7). */
const aiSdkSchemaMarker = Symbol.for('vercel.ai.schema');

/** JSON Schema of an SDK `FlexibleSchema`: an SDK schema, a lazy one, or a Standard Schema. */
async function jsonSchemaOf(schema: unknown, parameter: string): Promise<unknown> {
  if (schema === undefined || schema === null)
    return { type: 'object', properties: {}, additionalProperties: false };
  // A lazy schema (`lazySchema(() => jsonSchema(…))`): a function returning an SDK schema.
  const value = typeof schema === 'function' ? (schema as () => unknown)() : schema;
  if (isRecord(value) && Reflect.get(value, aiSdkSchemaMarker) === true && 'jsonSchema' in value)
    return await (value.jsonSchema as unknown);
  const standard = isRecord(value) ? value['~standard'] : undefined;
  if (isRecord(standard) && isRecord(standard.jsonSchema)) {
    const input = standard.jsonSchema.input;
    if (typeof input === 'function') return input({ target: 'draft-07' });
  }
  throw argumentError('schemaFromAiSdkTools', {
    parameter,
    expected:
      "an AI SDK schema (jsonSchema(), zodSchema()) or a Standard Schema that converts to JSON Schema (zod 4); wrap a zod 3 schema in zodSchema() from 'ai'",
    actual: isRecord(standard)
      ? `a Standard Schema of '${String(standard.vendor).slice(0, 40)}' without JSON Schema`
      : describeArgument(value),
  });
}

/**
 * Builds the schema a guard checks a spec against from the AI SDK tools the agent will
 * call: the tool names and input fields become action predicates, output schemas become
 * the `<Tool>Result` fields later calls may depend on. The tools are read as an MCP
 * `tools/list` would list them, so the options (criticality, limits) are
 * `loadToolSchema`'s. Tools made by `finishTool` are left out: they are not actions.
 * Rejects with a `TypeError` naming the tool for a schema it cannot read as JSON Schema.
 *
 * @example
 * const schema = unwrap(await schemaFromAiSdkTools(tools));
 * const guard = createGuard(specText, schema, { now: new Date() });
 */
export async function schemaFromAiSdkTools(
  tools: Readonly<Record<string, object>>,
  options: LoadToolSchemaOptions = {},
): Promise<Result<Schema>> {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    throw argumentError('schemaFromAiSdkTools', {
      parameter: 'tools',
      expected: 'a tool set (an object of tools by name)',
      actual: describeArgument(tools),
    });
  const listed: Record<string, unknown>[] = [];
  for (const [name, tool] of Object.entries(tools)) {
    if (isFinishTool(tool)) continue;
    const record = tool as Record<string, unknown>;
    const description = typeof record.description === 'string' ? record.description : undefined;
    listed.push({
      name,
      ...(description !== undefined ? { description } : {}),
      inputSchema: await jsonSchemaOf(record.inputSchema, `tools.${name}.inputSchema`),
      ...(record.outputSchema !== undefined
        ? { outputSchema: await jsonSchemaOf(record.outputSchema, `tools.${name}.outputSchema`) }
        : {}),
    });
  }
  return loadToolSchema({ tools: listed }, options);
}
