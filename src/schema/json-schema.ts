import type { Result } from '../language/result.js';
import type { VariableDeclaration, VariableType } from '../language/schema-model.js';
import { abbreviate } from './json-input.js';
import {
  anyValue,
  classifySchema,
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

/** Where a property lands: its name segments as written and rewritten, and whether it is required. */
interface Site {
  readonly segments: readonly string[];
  readonly source: readonly string[];
  readonly path: string;
  readonly required: boolean | undefined;
}

class Flattener {
  readonly variables: ConvertedVariable[] = [];
  #full = false;

  constructor(
    readonly context: LoadContext,
    readonly document: SchemaDocument,
    readonly role: VariableRole,
  ) {}

  /** The properties of an object schema, each becoming one or more variables. */
  addProperties(
    properties: readonly SchemaProperty[],
    required: ReadonlySet<string>,
    parent: Site,
  ): void {
    for (const property of properties) {
      if (this.#full) return;
      const segment = sanitizeName(property.key);
      if (segment === undefined) {
        this.context.reportOnce('schema-invalid-name', property.path, {
          name: abbreviate(property.key),
          what: this.role,
        });
        continue;
      }
      this.addProperty(property.schema, {
        segments: [...parent.segments, segment],
        source: [...parent.source, property.key],
        path: property.path,
        // A property of an optional object is optional however its object declares it.
        required:
          this.role === 'parameter'
            ? parent.required !== false && required.has(property.key)
            : undefined,
      });
    }
  }

  addProperty(schema: unknown, site: Site): void {
    const resolved = resolveSchema(schema, site.path, this.document, this.context);
    if (resolved === undefined) return;
    const shape = classifySchema(resolved, this.document, this.context);
    const description = resolved.description;
    switch (shape.kind) {
      case 'invalid':
        return;
      case 'type':
        this.push(site, shape.type, description, shape.json === true);
        return;
      case 'approximate':
        this.approximate(site, shape.from, description);
        return;
      case 'object': {
        // An object without declared properties is kept whole, as its JSON text.
        if (shape.properties.length === 0) {
          this.push(site, { kind: 'text' }, description, true);
          return;
        }
        const { maxFlattenDepth } = this.context.limits;
        if (site.segments.length >= maxFlattenDepth) {
          this.approximate(
            site,
            `an object nested more than ${maxFlattenDepth} levels deep`,
            description,
          );
          return;
        }
        this.addProperties(shape.properties, shape.required, site);
      }
    }
  }

  approximate(site: Site, from: string, description: string): void {
    const name = site.segments.join('_');
    this.context.reportOnce('schema-type-approximated', site.path, { name, from, to: 'text' });
    this.push(site, { kind: 'text' }, description, true);
  }

  /** `jsonText`: the tool takes any JSON there, read as its JSON text. */
  push(site: Site, type: VariableType, description: string, jsonText = false): void {
    const { maxVariables, maxNameLength } = this.context.limits;
    if (this.variables.length >= maxVariables) {
      this.#full = true;
      this.context.reportOnce('schema-invalid', this.document.rootPath, {
        reason: `This schema has more than ${maxVariables} ${this.role}s after flattening nested objects.`,
      });
      return;
    }
    const name = site.segments.join('_');
    if (name.length > maxNameLength) {
      this.context.reportOnce('schema-invalid', site.path, {
        reason: `The ${this.role} name '${abbreviate(name)}' is ${name.length} characters long; at most ${maxNameLength} are accepted.`,
      });
      return;
    }
    const renamed = site.source.length !== 1 || site.source[0] !== name;
    const declaration: VariableDeclaration = {
      name,
      type,
      ...(description ? { description } : {}),
      ...(site.required === undefined ? {} : { required: site.required }),
      ...(jsonText ? { jsonText } : {}),
      ...(renamed ? { sourcePath: site.source } : {}),
    };
    this.variables.push({ declaration, path: site.path });
  }
}

export interface ConvertSchemaOptions {
  /** Parameters carry `required`; result fields do not. */
  readonly role: VariableRole;
}

/**
 * The variables of an object schema (an MCP `inputSchema` or `outputSchema`, OpenAI
 * `parameters`): one per property, nested objects flattened to `a_b`. The schema is
 * its own document for `$ref`s. An absent or empty schema has no variables.
 */
export function convertObjectSchema(
  schema: unknown,
  path: string,
  context: LoadContext,
  options: ConvertSchemaOptions,
): ConvertedVariable[] {
  const document: SchemaDocument = { root: schema, rootPath: path };
  const flattener = new Flattener(context, document, options.role);
  if (schema === undefined || schema === null) return [];
  const resolved = resolveSchema(schema, path, document, context);
  if (resolved === undefined) return [];
  const shape = classifySchema(resolved, document, context);
  if (shape.kind === 'object') {
    const root: Site = {
      segments: [],
      source: [],
      path,
      required: options.role === 'parameter' ? true : undefined,
    };
    flattener.addProperties(shape.properties, shape.required, root);
  } else if (shape.kind === 'type' || (shape.kind === 'approximate' && shape.from !== anyValue)) {
    const found = shape.kind === 'type' ? shape.type.kind : shape.from;
    context.reportOnce('schema-invalid', path, {
      reason: `A tool's ${options.role}s must be described by an object schema; found ${found}.`,
      hint: 'Give { "type": "object", "properties": { … } }.',
    });
  }
  return flattener.variables;
}

/**
 * One named value described by a schema (a ToolEmu parameter or return value), which
 * may flatten into several variables. `required` is given for parameters only.
 */
export function convertNamedSchema(
  name: string,
  schema: unknown,
  path: string,
  context: LoadContext,
  options: ConvertSchemaOptions & { readonly required?: boolean },
): ConvertedVariable[] {
  const document: SchemaDocument = { root: schema, rootPath: path };
  const flattener = new Flattener(context, document, options.role);
  const root: Site = { segments: [], source: [], path, required: true };
  const required = new Set(options.required ? [name] : []);
  flattener.addProperties([{ key: name, schema, path }], required, root);
  return flattener.variables;
}

/**
 * Drops variables whose (rewritten, flattened) name an earlier one already has, with a
 * `schema-duplicate` error: `a_b` and `a: { b }` cannot both be `a_b`.
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
 * declarations, with the same mapping tool schemas use: nested objects flatten to
 * `a_b`, nullable unions narrow, local `$ref`s resolve, and what has no exact type
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
