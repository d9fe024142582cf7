import type { VariableType } from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';
import { abbreviate, describeValue, type JsonRecord } from './json-input.js';
import { childPath, pointerPath } from './json-path.js';
import type { LoadContext } from './load-context.js';

/** One JSON Schema document: the schema that local `$ref`s point into, and where it sits. */
export interface SchemaDocument {
  readonly root: unknown;
  readonly rootPath: string;
}

/** A schema after following its `$ref`s, with the description of the first one that had one. */
export interface ResolvedSchema {
  readonly schema: unknown;
  readonly path: string;
  readonly description: string;
  /** A `$ref` outside this document, which is not fetched. */
  readonly external?: string;
}

/** One property of an object schema, with the path of its schema. */
export interface SchemaProperty {
  readonly key: string;
  readonly schema: unknown;
  readonly path: string;
}

/** What a property's schema becomes in the model. */
export type SchemaShape =
  /** `json`: a list whose items may be any JSON (no declared item type, or objects). */
  | { readonly kind: 'type'; readonly type: VariableType; readonly json?: boolean }
  | {
      readonly kind: 'object';
      readonly properties: readonly SchemaProperty[];
      readonly required: ReadonlySet<string>;
      /** `additionalProperties: false` (or `unevaluatedProperties: false`): no other field. */
      readonly closed: boolean;
    }
  /** Kept as text because the model has no exact counterpart; `from` says what it was. */
  | { readonly kind: 'approximate'; readonly from: string }
  /** Already reported as an error. */
  | { readonly kind: 'invalid' };

/** What a schema that constrains nothing (`{}`, `true`) is approximated from. */
export const anyValue = 'any value';

const numericTypes: ReadonlySet<string> = new Set(['integer', 'number']);
// A Map, not an object literal, so that `format: "constructor"` finds nothing.
const formats: ReadonlyMap<string, VariableType> = new Map<string, VariableType>([
  ['date', { kind: 'date' }],
  ['date-time', { kind: 'datetime' }],
  ['time', { kind: 'time' }],
]);

/** Follows local `$ref`s (`#/$defs/…`, `#/definitions/…`, any JSON Pointer) up to the depth limit. */
export function resolveSchema(
  schema: unknown,
  path: string,
  document: SchemaDocument,
  context: LoadContext,
): ResolvedSchema | undefined {
  let current = schema;
  let currentPath = path;
  let description = descriptionOf(schema, path, context);
  for (let depth = 0; isRecord(current) && typeof current['$ref'] === 'string'; depth++) {
    const reference = current['$ref'];
    const referencePath = childPath(currentPath, '$ref');
    if (depth >= context.limits.maxReferenceDepth) {
      context.reportOnce('schema-too-large', referencePath, {
        reason: `More than ${context.limits.maxReferenceDepth} references in a chain (or a cycle) at '${abbreviate(reference)}'.`,
      });
      return undefined;
    }
    if (!reference.startsWith('#'))
      return { schema: current, path: currentPath, description, external: reference };
    const segments = pointerSegments(reference);
    const target = segments === undefined ? undefined : lookUp(document.root, segments);
    if (segments === undefined || target === undefined) {
      context.reportOnce('schema-unknown-reference', referencePath, {
        reason: `The reference '${abbreviate(reference)}' does not point to a schema in this document.`,
        hint: 'Only local references (#/$defs/Name, #/definitions/Name) are resolved.',
      });
      return undefined;
    }
    current = target;
    currentPath = pointerPath(document.rootPath, segments);
    description ||= descriptionOf(current, currentPath, context);
  }
  return { schema: current, path: currentPath, description };
}

function pointerSegments(reference: string): string[] | undefined {
  if (reference === '#') return [];
  if (!reference.startsWith('#/')) return undefined;
  try {
    return reference
      .slice(2)
      .split('/')
      .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'));
  } catch {
    return undefined;
  }
}

function lookUp(root: unknown, segments: readonly string[]): unknown {
  let current = root;
  for (const segment of segments) {
    if (Array.isArray(current) && /^(0|[1-9][0-9]*)$/.test(segment))
      current = current[Number(segment)];
    else if (isRecord(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

/** JSON Schema annotations are advisory, so a description of the wrong type is skipped, not an error. */
function descriptionOf(schema: unknown, path: string, context: LoadContext): string {
  if (!isRecord(schema)) return '';
  const text = typeof schema['description'] === 'string' ? schema['description'] : schema['title'];
  if (typeof text !== 'string') return '';
  const { maxDescriptionLength } = context.limits;
  if (text.length > maxDescriptionLength) {
    context.reportOnce('schema-too-large', childPath(path, 'description'), {
      reason: `This description is ${text.length} characters long; at most ${maxDescriptionLength} are accepted.`,
    });
    return text.slice(0, maxDescriptionLength);
  }
  return text.trim();
}

/**
 * Maps a resolved schema to a shape: the type it declares (`type`, `format`, `enum`,
 * `const`), with nullable unions narrowed to their one non-null member and numeric
 * unions to number; anything the model cannot say exactly is approximated as text.
 */
export function classifySchema(
  resolved: ResolvedSchema,
  document: SchemaDocument,
  context: LoadContext,
  depth = 0,
): SchemaShape {
  const { schema, path } = resolved;
  if (resolved.external !== undefined) {
    return { kind: 'approximate', from: `a reference to '${abbreviate(resolved.external)}'` };
  }
  if (schema === true) return { kind: 'approximate', from: anyValue };
  if (!isRecord(schema)) {
    context.reportOnce('schema-wrong-type', path, {
      reason: `A JSON Schema must be an object; found ${describeValue(schema)}.`,
    });
    return { kind: 'invalid' };
  }
  if (depth > context.limits.maxReferenceDepth) {
    return { kind: 'approximate', from: 'unions nested too deeply' };
  }
  if (schema['const'] !== undefined) return constShape(schema['const']);
  if (schema['enum'] !== undefined) return enumShape(schema, path, context);
  const type = schema['type'];
  if (type === undefined) {
    const keyword = schema['anyOf'] !== undefined ? 'anyOf' : 'oneOf';
    const members = schema[keyword];
    if (Array.isArray(members)) {
      return unionShape(members, childPath(path, keyword), document, context, depth);
    }
    const parts = schema['allOf'];
    if (Array.isArray(parts)) {
      return allOfShape(parts, childPath(path, 'allOf'), document, context, depth);
    }
    if (schema['properties'] !== undefined) return objectShape(schema, path, context);
    if (schema['items'] !== undefined) return typeShape('array', schema, path, document, context);
    return { kind: 'approximate', from: anyValue };
  }
  if (typeof type === 'string') return typeShape(type, schema, path, document, context);
  if (Array.isArray(type) && type.every((name) => typeof name === 'string')) {
    const names = (type as string[]).filter((name) => name !== 'null');
    const [only] = names;
    if (only === undefined) return { kind: 'approximate', from: 'null' };
    if (names.length === 1) return typeShape(only, schema, path, document, context);
    if (names.every((name) => numericTypes.has(name)))
      return { kind: 'type', type: { kind: 'number' } };
    return { kind: 'approximate', from: names.join(' | ') };
  }
  context.reportOnce('schema-wrong-type', childPath(path, 'type'), {
    reason: `'type' must be a type name or an array of type names; found ${describeValue(type)}.`,
  });
  return { kind: 'invalid' };
}

function typeShape(
  name: string,
  schema: JsonRecord,
  path: string,
  document: SchemaDocument,
  context: LoadContext,
): SchemaShape {
  switch (name) {
    case 'string': {
      const format = schema['format'];
      const type = typeof format === 'string' ? formats.get(format) : undefined;
      return { kind: 'type', type: type ?? { kind: 'text' } };
    }
    case 'integer':
    case 'number':
      return { kind: 'type', type: { kind: 'number' } };
    case 'boolean':
      return { kind: 'type', type: { kind: 'boolean' } };
    case 'array': {
      const { element, json } = listElement(schema, path, document, context);
      return { kind: 'type', type: { kind: 'list', element }, ...(json ? { json } : {}) };
    }
    case 'object':
      return objectShape(schema, path, context);
    case 'null':
      return { kind: 'approximate', from: 'null' };
    default:
      context.reportOnce('schema-unknown-type', childPath(path, 'type'), {
        type: abbreviate(name),
      });
      return { kind: 'invalid' };
  }
}

function objectShape(schema: JsonRecord, path: string, context: LoadContext): SchemaShape {
  const properties = schema['properties'] ?? {};
  const propertiesPath = childPath(path, 'properties');
  if (!isRecord(properties)) {
    context.reportOnce('schema-wrong-type', propertiesPath, {
      reason: `'properties' must be an object; found ${describeValue(properties)}.`,
    });
    return { kind: 'invalid' };
  }
  const required = schema['required'] ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === 'string')) {
    context.reportOnce('schema-wrong-type', childPath(path, 'required'), {
      reason: "'required' must be an array of property names.",
    });
    return { kind: 'invalid' };
  }
  return {
    kind: 'object',
    properties: Object.entries(properties).map(([key, property]) => ({
      key,
      schema: property,
      path: childPath(propertiesPath, key),
    })),
    required: new Set(required as string[]),
    closed: schema['additionalProperties'] === false || schema['unevaluatedProperties'] === false,
  };
}

/**
 * A list's element type: number when its items are numbers, otherwise text — and
 * whether its elements may be any JSON (read as their JSON text) rather than strings
 * only: so unless the items are declared strings.
 */
function listElement(
  schema: JsonRecord,
  path: string,
  document: SchemaDocument,
  context: LoadContext,
): { readonly element: 'text' | 'number'; readonly json: boolean } {
  const items = schema['items'];
  if (!isRecord(items)) return { element: 'text', json: true };
  const resolved = resolveSchema(items, childPath(path, 'items'), document, context);
  if (resolved === undefined || resolved.external !== undefined)
    return { element: 'text', json: true };
  const names = typeNames(resolved.schema, resolved.path, document, context);
  if (names.length > 0 && names.every((name) => numericTypes.has(name)))
    return { element: 'number', json: false };
  return { element: 'text', json: !(names.length > 0 && names.every((name) => name === 'string')) };
}

/** The non-null type names a schema allows, looking one level into unions; for labels and lists. */
function typeNames(
  schema: unknown,
  path: string,
  document: SchemaDocument,
  context: LoadContext,
): string[] {
  if (!isRecord(schema)) return [];
  const type = schema['type'];
  if (typeof type === 'string') return type === 'null' ? [] : [type];
  if (Array.isArray(type))
    return type.filter((name): name is string => typeof name === 'string' && name !== 'null');
  const keyword = schema['anyOf'] !== undefined ? 'anyOf' : 'oneOf';
  const members = schema[keyword];
  if (Array.isArray(members)) {
    return members.flatMap((member: unknown, index) => {
      const memberPath = childPath(childPath(path, keyword), index);
      const resolved = resolveSchema(member, memberPath, document, context);
      const inner = resolved?.schema;
      return isRecord(inner) && typeof inner['type'] === 'string' && inner['type'] !== 'null'
        ? [inner['type']]
        : [];
    });
  }
  if (schema['properties'] !== undefined) return ['object'];
  if (schema['items'] !== undefined) return ['array'];
  return [];
}

function isNullSchema(schema: unknown): boolean {
  if (!isRecord(schema)) return false;
  if (schema['type'] === 'null' || schema['const'] === null) return true;
  const values = schema['enum'];
  return Array.isArray(values) && values.length > 0 && values.every((value) => value === null);
}

function unionShape(
  members: readonly unknown[],
  membersPath: string,
  document: SchemaDocument,
  context: LoadContext,
  depth: number,
): SchemaShape {
  const present: ResolvedSchema[] = [];
  for (const [index, member] of members.entries()) {
    const inner = resolveSchema(member, childPath(membersPath, index), document, context);
    if (inner === undefined) return { kind: 'invalid' };
    if (!isNullSchema(inner.schema)) present.push(inner);
  }
  const [only] = present;
  if (only === undefined) return { kind: 'approximate', from: 'null' };
  if (present.length === 1) return classifySchema(only, document, context, depth + 1);
  const labels = present.map((member) => {
    if (member.external !== undefined) return `'${abbreviate(member.external)}'`;
    return typeNames(member.schema, member.path, document, context).join(' | ') || 'any';
  });
  if (labels.every((label) => numericTypes.has(label)))
    return { kind: 'type', type: { kind: 'number' } };
  if (labels.every((label) => label === 'string')) return { kind: 'type', type: { kind: 'text' } };
  return { kind: 'approximate', from: labels.join(' | ') };
}

/** `allOf` of one schema is that schema (a common wrapper around a `$ref`); of objects, their merge. */
function allOfShape(
  parts: readonly unknown[],
  partsPath: string,
  document: SchemaDocument,
  context: LoadContext,
  depth: number,
): SchemaShape {
  const shapes: SchemaShape[] = [];
  for (const [index, part] of parts.entries()) {
    const inner = resolveSchema(part, childPath(partsPath, index), document, context);
    if (inner === undefined) return { kind: 'invalid' };
    shapes.push(classifySchema(inner, document, context, depth + 1));
  }
  const [only] = shapes;
  if (only !== undefined && shapes.length === 1) return only;
  if (shapes.some((shape) => shape.kind === 'invalid')) return { kind: 'invalid' };
  const objects = shapes.filter((shape) => shape.kind === 'object');
  if (objects.length === 0 || objects.length !== shapes.length) {
    return { kind: 'approximate', from: 'allOf of several schemas' };
  }
  return {
    kind: 'object',
    properties: objects.flatMap((shape) => shape.properties),
    required: new Set(objects.flatMap((shape) => [...shape.required])),
    // One part that allows no other field closes the whole.
    closed: objects.some((shape) => shape.closed),
  };
}

function constShape(value: unknown): SchemaShape {
  if (typeof value === 'string' && value !== '') {
    return { kind: 'type', type: { kind: 'enum', values: [value] } };
  }
  if (typeof value === 'number') return { kind: 'type', type: { kind: 'number' } };
  if (typeof value === 'boolean') return { kind: 'type', type: { kind: 'boolean' } };
  return {
    kind: 'approximate',
    from: `the constant ${abbreviate(JSON.stringify(value) ?? 'undefined')}`,
  };
}

function enumShape(schema: JsonRecord, path: string, context: LoadContext): SchemaShape {
  const values = schema['enum'];
  if (!Array.isArray(values)) {
    context.reportOnce('schema-wrong-type', childPath(path, 'enum'), {
      reason: `'enum' must be an array; found ${describeValue(values)}.`,
    });
    return { kind: 'invalid' };
  }
  const present = values.filter((value) => value !== null);
  if (present.length > 0 && present.every((value) => typeof value === 'number')) {
    return { kind: 'type', type: { kind: 'number' } };
  }
  if (present.length > 0 && present.every((value) => typeof value === 'boolean')) {
    return { kind: 'type', type: { kind: 'boolean' } };
  }
  const { maxEnumValues, maxEnumValueLength } = context.limits;
  if (present.length > maxEnumValues) {
    return { kind: 'approximate', from: `an enum of ${present.length} values` };
  }
  const texts: string[] = [];
  for (const value of present) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return { kind: 'approximate', from: 'an enum with structured values' };
    }
    const text = String(value);
    if (text.trim() === '' || text.length > maxEnumValueLength) {
      return { kind: 'approximate', from: 'an enum with an empty or very long value' };
    }
    if (!texts.includes(text)) texts.push(text);
  }
  if (texts.length === 0) return { kind: 'approximate', from: 'an enum with no values' };
  return { kind: 'type', type: { kind: 'enum', values: texts } };
}
