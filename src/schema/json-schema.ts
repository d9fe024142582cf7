import type { Result } from '../language/result.js';
import type { RecordShape, VariableDeclaration, VariableType } from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';
import { abbreviate } from './json-input.js';
import { childPath } from './json-path.js';
import {
  anyValue,
  classifySchema,
  type ResolvedSchema,
  resolveSchema,
  type SchemaDocument,
  type SchemaProperty,
} from './json-schema-shape.js';
import type { SchemaLimits } from './limits.js';
import { type LoadContext, runLoader } from './load-context.js';
import { sanitizeName } from './names.js';

/** A variable converted from a schema, with the JSONPath of the schema it came from. */
export interface ConvertedVariable {
  readonly declaration: VariableDeclaration;
  readonly path: string;
}

/** Whether the variables are a tool's parameters (which carry `required`) or its results. */
export type VariableRole = 'parameter' | 'result field';

/** Where a property lands: its key as written and rewritten, and whether it is required. */
interface Site {
  readonly name: string;
  readonly key: string;
  readonly path: string;
  readonly required: boolean | undefined;
  /** Records it sits in: 0 for a variable, 1 for a field of a variable's record. */
  readonly depth: number;
}

/**
 * Converts properties to declarations (LANGUAGE.md §7): an object with declared
 * properties becomes a record, an array of such objects a list of records, and what
 * declares no shape `json`. Nesting is bounded by `maxFlattenDepth` and the declarations
 * made (variables and every field of their records) by `maxVariables`.
 */
class Converter {
  readonly variables: ConvertedVariable[] = [];
  #count = 0;
  #full = false;

  constructor(
    readonly context: LoadContext,
    readonly document: SchemaDocument,
    readonly role: VariableRole,
  ) {}

  /** The properties of an object schema, each becoming one declaration (fields at depth > 0). */
  properties(
    properties: readonly SchemaProperty[],
    required: ReadonlySet<string>,
    depth: number,
  ): ConvertedVariable[] {
    const converted: ConvertedVariable[] = [];
    const seen = new Set<string>();
    for (const property of properties) {
      if (this.#full) break;
      const name = sanitizeName(property.key);
      if (name === undefined) {
        this.context.reportOnce('schema-invalid-name', property.path, {
          name: abbreviate(property.key),
          what: this.role,
        });
        continue;
      }
      const declaration = this.property(property.schema, {
        name,
        key: property.key,
        path: property.path,
        required: this.role === 'parameter' ? required.has(property.key) : undefined,
        depth,
      });
      if (declaration === undefined) continue;
      // Fields colliding after rewriting (`a-b` and `a_b`); variables are checked by the caller.
      if (depth > 0 && seen.has(name)) {
        this.context.reportOnce('schema-duplicate', property.path, { name });
        continue;
      }
      seen.add(name);
      converted.push({ declaration, path: property.path });
    }
    return converted;
  }

  property(schema: unknown, site: Site): VariableDeclaration | undefined {
    const resolved = resolveSchema(schema, site.path, this.document, this.context);
    if (resolved === undefined) return undefined;
    const shape = classifySchema(resolved, this.document, this.context);
    const description = resolved.description;
    switch (shape.kind) {
      case 'invalid':
        return undefined;
      case 'type': {
        if (shape.type.kind === 'list' && shape.json === true) {
          const record = this.itemRecord(resolved, site);
          if (record !== undefined)
            return this.declare(site, shape.type, description, true, record);
        }
        return this.declare(site, shape.type, description, shape.json === true);
      }
      case 'approximate':
        return this.approximate(site, shape.from, description);
      case 'object': {
        // An object without declared properties is json: paths into it are checked at run time.
        if (shape.properties.length === 0)
          return this.declare(site, { kind: 'text' }, description, true);
        const { maxFlattenDepth } = this.context.limits;
        if (site.depth + 1 >= maxFlattenDepth)
          return this.approximate(
            site,
            `an object nested more than ${maxFlattenDepth} levels deep`,
            description,
          );
        const head = this.declare(site, { kind: 'text' }, description, true);
        if (head === undefined) return undefined;
        const fields = this.properties(shape.properties, shape.required, site.depth + 1);
        if (fields.length === 0) return head;
        return { ...head, record: recordShape(fields, shape.closed) };
      }
    }
  }

  /** The record an array's items declare (objects with properties), if any and not too deep. */
  itemRecord(resolved: ResolvedSchema, site: Site): RecordShape | undefined {
    const items = isRecord(resolved.schema) ? resolved.schema['items'] : undefined;
    if (!isRecord(items) || site.depth + 1 >= this.context.limits.maxFlattenDepth) return undefined;
    const itemsPath = childPath(resolved.path, 'items');
    const item = resolveSchema(items, itemsPath, this.document, this.context);
    if (item === undefined || item.external !== undefined) return undefined;
    const shape = classifySchema(item, this.document, this.context);
    if (shape.kind !== 'object' || shape.properties.length === 0) return undefined;
    const fields = this.properties(shape.properties, shape.required, site.depth + 1);
    return fields.length === 0 ? undefined : recordShape(fields, shape.closed);
  }

  approximate(site: Site, from: string, description: string): VariableDeclaration | undefined {
    this.context.reportOnce('schema-type-approximated', site.path, {
      name: site.name,
      from,
      to: 'text',
    });
    return this.declare(site, { kind: 'text' }, description, true);
  }

  /** `jsonText`: the value is JSON data (a record when `record` declares its fields). */
  declare(
    site: Site,
    type: VariableType,
    description: string,
    jsonText = false,
    record?: RecordShape,
  ): VariableDeclaration | undefined {
    const { maxVariables, maxNameLength } = this.context.limits;
    if (this.#count >= maxVariables) {
      this.#full = true;
      this.context.reportOnce('schema-too-large', this.document.rootPath, {
        reason: `This schema has more than ${maxVariables} ${this.role}s and record fields.`,
      });
      return undefined;
    }
    const name = site.name;
    if (name.length > maxNameLength) {
      this.context.reportOnce('schema-too-large', site.path, {
        reason: `The ${this.role} name '${abbreviate(name)}' is ${name.length} characters long; at most ${maxNameLength} are accepted.`,
      });
      return undefined;
    }
    this.#count += 1;
    return {
      name,
      type,
      ...(description ? { description } : {}),
      ...(site.required === undefined ? {} : { required: site.required }),
      ...(jsonText ? { jsonText } : {}),
      ...(site.key !== name ? { sourcePath: [site.key] } : {}),
      ...(record ? { record } : {}),
    };
  }
}

/** A record of these fields; open (undeclared fields allowed) unless the schema closes it. */
function recordShape(fields: readonly ConvertedVariable[], closed: boolean): RecordShape {
  return {
    fields: fields.map((field) => field.declaration),
    ...(closed ? {} : { open: true }),
  };
}

export interface ConvertSchemaOptions {
  /** Parameters carry `required`; result fields do not. */
  readonly role: VariableRole;
}

/**
 * The variables of an object schema (an MCP `inputSchema` or `outputSchema`, OpenAI
 * `parameters`): one per property, nested objects kept as records. The schema is
 * its own document for `$ref`s. An absent or empty schema has no variables.
 */
export function convertObjectSchema(
  schema: unknown,
  path: string,
  context: LoadContext,
  options: ConvertSchemaOptions,
): ConvertedVariable[] {
  const document: SchemaDocument = { root: schema, rootPath: path };
  const converter = new Converter(context, document, options.role);
  if (schema === undefined || schema === null) return [];
  const resolved = resolveSchema(schema, path, document, context);
  if (resolved === undefined) return [];
  const shape = classifySchema(resolved, document, context);
  if (shape.kind === 'object') {
    return converter.properties(shape.properties, shape.required, 0);
  } else if (shape.kind === 'type' || (shape.kind === 'approximate' && shape.from !== anyValue)) {
    const found = shape.kind === 'type' ? shape.type.kind : shape.from;
    context.reportOnce('schema-wrong-type', path, {
      reason: `A tool's ${options.role}s must be described by an object schema; found ${found}.`,
      hint: 'Give { "type": "object", "properties": { … } }.',
    });
  }
  return [];
}

/**
 * One named value described by a schema (a ToolEmu parameter or return value), which
 * is one variable (a record when it is an object with declared properties). `required`
 * is given for parameters only.
 */
export function convertNamedSchema(
  name: string,
  schema: unknown,
  path: string,
  context: LoadContext,
  options: ConvertSchemaOptions & { readonly required?: boolean },
): ConvertedVariable[] {
  const document: SchemaDocument = { root: schema, rootPath: path };
  const converter = new Converter(context, document, options.role);
  const required = new Set(options.required ? [name] : []);
  return converter.properties([{ key: name, schema, path }], required, 0);
}

/**
 * Drops variables whose (rewritten) name an earlier one already has, with a
 * `schema-duplicate` error: `a-b` and `a_b` cannot both be `a_b`.
 */
export function withoutDuplicates(
  variables: readonly ConvertedVariable[],
  context: LoadContext,
): ConvertedVariable[] {
  const seen = new Set<string>();
  return variables.filter((variable) => {
    const { name } = variable.declaration;
    if (!seen.has(name)) {
      seen.add(name);
      return true;
    }
    context.reportOnce('schema-duplicate', variable.path, { name });
    return false;
  });
}

export interface VariablesFromJsonSchemaOptions {
  /** `'parameter'` (default) records `required`; `'result field'` does not. */
  readonly role?: VariableRole;
  readonly limits?: Partial<SchemaLimits>;
}

/**
 * Converts a JSON Schema object (such as a tool's input schema) to variable
 * declarations, with the same mapping tool schemas use: nested objects are records
 * (`record{...}`, arrays of them `list<record{...}>`), nullable unions narrow, local `$ref`s resolve, and what has no exact type
 * becomes text with a `schema-type-approximated` warning.
 *
 * @example
 * const result = variablesFromJsonSchema({
 *   type: 'object',
 *   properties: { to: { type: 'string' }, when: { type: 'string', format: 'date' } },
 *   required: ['to'],
 * });
 * // result.value: [{ name: 'to', type: { kind: 'text' }, required: true },
 * //                { name: 'when', type: { kind: 'date' }, required: false }]
 */
export function variablesFromJsonSchema(
  schema: unknown,
  options: VariablesFromJsonSchemaOptions = {},
): Result<VariableDeclaration[]> {
  return runLoader(options.limits, (context) => {
    const variables = convertObjectSchema(schema, '$', context, {
      role: options.role ?? 'parameter',
    });
    return withoutDuplicates(variables, context).map((variable) => variable.declaration);
  });
}
