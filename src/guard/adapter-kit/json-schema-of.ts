import { isRecord } from '../../support/is-record.js';

/**
 * JSON Schema of a schema an agent framework hands over for a tool's arguments or result:
 * zod 4 (or any Standard Schema that converts to JSON Schema), or JSON Schema as given.
 * LangChain and OpenAI Agents tools take both; a zod 3 schema (its objects carry `_def`)
 * has no conversion here and is a `TypeError` naming the caller and the schema.
 */
export function jsonSchemaOf(schema: unknown, caller: string, where: string): unknown {
  if (schema === undefined || schema === null) return { type: 'object', properties: {} };
  const standard = isRecord(schema) ? schema['~standard'] : undefined;
  if (isRecord(standard) && isRecord(standard.jsonSchema)) {
    const input = standard.jsonSchema.input;
    if (typeof input === 'function') return input({ target: 'draft-07' });
  }
  if (isRecord(schema) && !('_def' in schema) && !('_zod' in schema)) return schema;
  throw new TypeError(
    `${caller}: the ${where} is neither JSON Schema nor a zod 4 schema; convert a zod 3 schema to JSON Schema first`,
  );
}
