import { describe, expect, it } from 'vitest';
import type { Result } from '../language/result.js';
import { formatVariableType, type VariableDeclaration } from '../language/schema-model.js';
import { variablesFromJsonSchema } from './json-schema.js';

function convert(properties: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return variablesFromJsonSchema({ type: 'object', properties, ...extra });
}

function types(result: Result<VariableDeclaration[]>): Record<string, unknown> {
  return Object.fromEntries((result.value ?? []).map((variable) => [variable.name, variable.type]));
}

/** Each variable's type as the language writes it, records included. */
function shapes(result: Result<VariableDeclaration[]>): Record<string, string> {
  return Object.fromEntries(
    (result.value ?? []).map((variable) => [variable.name, formatVariableType(variable)]),
  );
}

function problems(result: Result<unknown>): [string, string | undefined][] {
  return result.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path]);
}

describe('variablesFromJsonSchema: scalar types', () => {
  it('maps strings, formats, numbers, booleans and enums', () => {
    const result = convert({
      name: { type: 'string' },
      day: { type: 'string', format: 'date' },
      at: { type: 'string', format: 'date-time' },
      clock: { type: 'string', format: 'time' },
      mail: { type: 'string', format: 'email' },
      odd: { type: 'string', format: 'constructor' },
      count: { type: 'integer' },
      amount: { type: 'number' },
      flag: { type: 'boolean' },
      size: { type: 'string', enum: ['small', 'large'] },
      level: { enum: ['low', 2, true] },
      rank: { type: 'integer', enum: [1, 2, 3] },
      yes: { enum: [true, false] },
      only: { const: 'fixed' },
      three: { const: 3 },
    });
    expect(result.diagnostics).toEqual([]);
    expect(types(result)).toEqual({
      name: { kind: 'text' },
      day: { kind: 'date' },
      at: { kind: 'datetime' },
      clock: { kind: 'time' },
      mail: { kind: 'text' },
      odd: { kind: 'text' },
      count: { kind: 'number' },
      amount: { kind: 'number' },
      flag: { kind: 'boolean' },
      size: { kind: 'enum', values: ['small', 'large'] },
      level: { kind: 'enum', values: ['low', '2', 'true'] },
      rank: { kind: 'number' },
      yes: { kind: 'boolean' },
      only: { kind: 'enum', values: ['fixed'] },
      three: { kind: 'number' },
    });
  });

  it('maps arrays to lists of their scalar item type', () => {
    const result = convert({
      numbers: { type: 'array', items: { type: 'number' } },
      counts: { type: 'array', items: { type: ['integer', 'null'] } },
      words: { type: 'array', items: { type: 'string' } },
      objects: { type: 'array', items: { type: 'object', properties: { a: { type: 'number' } } } },
      anything: { type: 'array' },
      inferred: { items: { type: 'integer' } },
    });
    expect(result.diagnostics).toEqual([]);
    expect(types(result)).toEqual({
      numbers: { kind: 'list', element: 'number' },
      counts: { kind: 'list', element: 'number' },
      words: { kind: 'list', element: 'text' },
      objects: { kind: 'list', element: 'text' },
      anything: { kind: 'list', element: 'text' },
      inferred: { kind: 'list', element: 'number' },
    });
  });

  it('marks where the tool takes any JSON: objects without properties, untyped items, approximations', () => {
    const result = convert({
      words: { type: 'array', items: { type: 'string' } },
      objects: { type: 'array', items: { type: 'object', properties: { a: { type: 'number' } } } },
      anything: { type: 'array' },
      numbers: { type: 'array', items: { type: 'number' } },
      opaque: { type: 'object' },
      either: { type: ['string', 'number'] },
      name: { type: 'string' },
    });
    const json = Object.fromEntries(
      (result.value ?? []).map((variable) => [variable.name, variable.jsonText === true]),
    );
    expect(json).toEqual({
      words: false,
      objects: true,
      anything: true,
      numbers: false,
      opaque: true,
      either: true,
      name: false,
    });
  });

  it('carries descriptions (or titles) and required', () => {
    const result = convert(
      {
        to: { type: 'string', description: ' The payee. ' },
        memo: { type: 'string', title: 'Memo' },
        tag: { type: 'string' },
      },
      { required: ['to'] },
    );
    expect(result.value).toEqual([
      { name: 'to', type: { kind: 'text' }, description: 'The payee.', required: true },
      { name: 'memo', type: { kind: 'text' }, description: 'Memo', required: false },
      { name: 'tag', type: { kind: 'text' }, required: false },
    ]);
  });

  it('leaves required out for result fields', () => {
    const result = variablesFromJsonSchema(
      { type: 'object', properties: { balance: { type: 'number' } }, required: ['balance'] },
      { role: 'result field' },
    );
    expect(result.value).toEqual([{ name: 'balance', type: { kind: 'number' } }]);
  });

  it('gives no variables for an empty or property-less object schema', () => {
    for (const schema of [
      {},
      { type: 'object' },
      { type: 'object', additionalProperties: true },
      undefined,
    ]) {
      const result = variablesFromJsonSchema(schema);
      expect(result.ok).toBe(true);
      expect(result.value).toEqual([]);
    }
  });

  it('refuses a top-level schema that is not an object', () => {
    const result = variablesFromJsonSchema({ type: 'string' });
    expect(problems(result)).toEqual([['schema-wrong-type', '$']]);
    expect(problems(variablesFromJsonSchema('object'))).toEqual([['schema-wrong-type', '$']]);
  });
});

describe('variablesFromJsonSchema: objects', () => {
  it('keeps nested objects as records, with the required fields of each level', () => {
    const result = convert(
      {
        address: {
          type: 'object',
          description: 'Where to ship.',
          properties: {
            city: { type: 'string', description: 'The city.' },
            zip: { type: 'string' },
          },
          required: ['city'],
        },
        note: {
          type: 'object',
          properties: { text: { type: 'string' } },
          required: ['text'],
          additionalProperties: false,
        },
      },
      { required: ['address'] },
    );
    expect(result.value).toEqual([
      {
        name: 'address',
        type: { kind: 'text' },
        description: 'Where to ship.',
        required: true,
        jsonText: true,
        record: {
          fields: [
            { name: 'city', type: { kind: 'text' }, description: 'The city.', required: true },
            { name: 'zip', type: { kind: 'text' }, required: false },
          ],
          // JSON Schema objects take undeclared fields unless they say otherwise (T4).
          open: true,
        },
      },
      // A field required in its object: an argument giving the object must give it; a
      // closed object (`additionalProperties: false`) takes no other field.
      {
        name: 'note',
        type: { kind: 'text' },
        required: false,
        jsonText: true,
        record: { fields: [{ name: 'text', type: { kind: 'text' }, required: true }] },
      },
    ]);
    expect(shapes(result)).toEqual({
      address: 'record{city: text, zip: text}',
      note: 'record{text: text}',
    });
  });

  it('keeps arrays of declared objects as lists of records, typed per field', () => {
    const result = convert({
      results: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            born: { type: 'string', format: 'date' },
            tags: { type: 'array', items: { type: 'string' } },
            extra: { type: 'object' },
            status: { enum: ['open', 'closed'] },
            address: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      },
      plain: { type: 'array', items: { type: 'object' } },
      anything: { type: 'array' },
    });
    expect(result.diagnostics).toEqual([]);
    expect(shapes(result)).toEqual({
      results:
        'list<record{name: text, born: date, tags: list<text>, extra: json, status: enum[open, closed], address: record{city: text}}>',
      plain: 'list<json>',
      anything: 'list<json>',
    });
  });

  it('keeps an object without declared properties as text, silently', () => {
    const result = convert({
      metadata: { type: 'object' },
      extra: { type: 'object', properties: {} },
    });
    expect(result.diagnostics).toEqual([]);
    expect(types(result)).toEqual({ metadata: { kind: 'text' }, extra: { kind: 'text' } });
  });

  it('keeps objects deeper than the nesting limit as json, with a warning', () => {
    const deep = {
      a: {
        type: 'object',
        properties: {
          b: {
            type: 'object',
            properties: {
              c: { type: 'object', properties: { d: { type: 'number' } } },
              n: { type: 'number' },
            },
          },
        },
      },
    };
    const result = convert(deep);
    expect(result.ok).toBe(true);
    expect(shapes(result)).toEqual({ a: 'record{b: record{c: json, n: number}}' });
    expect(problems(result)).toEqual([
      ['schema-type-approximated', '$.properties.a.properties.b.properties.c'],
    ]);
    expect(result.diagnostics[0]?.severity).toBe('warning');
    const shallower = variablesFromJsonSchema(
      { type: 'object', properties: deep },
      { limits: { maxFlattenDepth: 1 } },
    );
    expect(shapes(shallower)).toEqual({ a: 'json' });
  });

  it('rewrites property names that are not identifiers and records where they came from', () => {
    const result = convert({
      'first-name': { type: 'string' },
      '2fa': { type: 'boolean' },
      'user.info': { type: 'object', properties: { 'e-mail': { type: 'string' } } },
    });
    expect(result.value).toEqual([
      { name: 'first_name', type: { kind: 'text' }, required: false, sourcePath: ['first-name'] },
      { name: '_2fa', type: { kind: 'boolean' }, required: false, sourcePath: ['2fa'] },
      {
        name: 'user_info',
        type: { kind: 'text' },
        required: false,
        jsonText: true,
        sourcePath: ['user.info'],
        record: {
          fields: [
            { name: 'e_mail', type: { kind: 'text' }, required: false, sourcePath: ['e-mail'] },
          ],
          open: true,
        },
      },
    ]);
  });

  it('reports names that collide after rewriting, among variables and among fields', () => {
    const result = convert({
      a_b: { type: 'string' },
      a: { type: 'object', properties: { b: { type: 'number' }, 'b-c': {}, b_c: {} } },
      'x-y': { type: 'string' },
      x_y: { type: 'string' },
    });
    expect(problems(result).filter(([code]) => code === 'schema-duplicate')).toEqual([
      ['schema-duplicate', '$.properties.a.properties.b_c'],
      ['schema-duplicate', '$.properties.x_y'],
    ]);
  });

  it('refuses property names with nothing to keep', () => {
    const result = convert({ '***': { type: 'string' } });
    expect(problems(result)).toEqual([['schema-invalid-name', "$.properties['***']"]]);
  });

  it('reports malformed properties and required', () => {
    expect(problems(variablesFromJsonSchema({ type: 'object', properties: [] }))).toEqual([
      ['schema-wrong-type', '$.properties'],
    ]);
    expect(
      problems(variablesFromJsonSchema({ type: 'object', properties: {}, required: 'a' })),
    ).toEqual([['schema-wrong-type', '$.required']]);
    expect(problems(convert({ a: 'string' }))).toEqual([['schema-wrong-type', '$.properties.a']]);
  });

  it('merges allOf of objects and unwraps allOf of one schema', () => {
    const result = convert({
      both: {
        allOf: [
          { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
          { type: 'object', properties: { b: { type: 'number' } } },
        ],
      },
      wrapped: { allOf: [{ type: 'string', format: 'date' }] },
      mixed: { allOf: [{ type: 'string' }, { type: 'object', properties: {} }] },
    });
    expect(shapes(result)).toEqual({
      both: 'record{a: text, b: number}',
      wrapped: 'date',
      mixed: 'json',
    });
    expect(problems(result)).toEqual([['schema-type-approximated', '$.properties.mixed']]);
  });
});

describe('variablesFromJsonSchema: unions', () => {
  it('narrows nullable unions to the non-null type', () => {
    const result = convert({
      a: { type: ['string', 'null'] },
      b: { anyOf: [{ type: 'number' }, { type: 'null' }] },
      c: { oneOf: [{ type: 'null' }, { type: 'string', format: 'date' }] },
      d: { type: ['null', 'string'], enum: ['x', 'y', null] },
      e: { type: ['integer', 'number'] },
      f: { anyOf: [{ type: 'integer' }, { type: 'number' }] },
      g: {
        anyOf: [
          { type: 'string', maxLength: 3 },
          { type: 'string', pattern: 'x' },
        ],
      },
    });
    expect(result.diagnostics).toEqual([]);
    expect(types(result)).toEqual({
      a: { kind: 'text' },
      b: { kind: 'number' },
      c: { kind: 'date' },
      d: { kind: 'enum', values: ['x', 'y'] },
      e: { kind: 'number' },
      f: { kind: 'number' },
      g: { kind: 'text' },
    });
  });

  it('keeps other unions, null and untyped values as text with a warning naming the union', () => {
    const result = convert({
      a: { type: ['string', 'number'] },
      b: { anyOf: [{ type: 'string' }, { type: 'boolean' }, { type: 'null' }] },
      c: { type: 'null' },
      d: {},
    });
    expect(types(result)).toEqual({
      a: { kind: 'text' },
      b: { kind: 'text' },
      c: { kind: 'text' },
      d: { kind: 'text' },
    });
    expect(result.ok).toBe(true);
    expect(result.diagnostics.map((diagnostic) => diagnostic.message)).toEqual([
      "'a' has the type string | number, kept as text.",
      "'b' has the type string | boolean, kept as text.",
      "'c' has the type null, kept as text.",
      "'d' has the type any value, kept as text.",
    ]);
  });

  it('approximates enums that cannot be one: empty values, structured values, too many', () => {
    const result = variablesFromJsonSchema(
      {
        type: 'object',
        properties: {
          a: { enum: ['', 'x'] },
          b: { enum: [{ x: 1 }] },
          c: { enum: ['1', '2', '3'] },
        },
      },
      { limits: { maxEnumValues: 2 } },
    );
    expect(types(result)).toEqual({
      a: { kind: 'text' },
      b: { kind: 'text' },
      c: { kind: 'text' },
    });
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual([
      'schema-type-approximated',
      'schema-type-approximated',
      'schema-type-approximated',
    ]);
  });

  it('reports unknown type names and malformed types at the type', () => {
    const result = convert({ a: { type: 'str' }, b: { type: 5 }, c: { enum: 'x' } });
    expect(problems(result)).toEqual([
      ['schema-unknown-type', '$.properties.a.type'],
      ['schema-wrong-type', '$.properties.b.type'],
      ['schema-wrong-type', '$.properties.c.enum'],
    ]);
  });
});

describe('variablesFromJsonSchema: references', () => {
  it('resolves local references to $defs, definitions and any pointer', () => {
    const result = variablesFromJsonSchema({
      type: 'object',
      properties: {
        to: { $ref: '#/$defs/Account' },
        when: { $ref: '#/definitions/Day', description: 'When to pay.' },
        cc: { $ref: '#/properties/to' },
        optional: { anyOf: [{ $ref: '#/$defs/Money' }, { type: 'null' }] },
        escaped: { $ref: '#/$defs/a~1b' },
      },
      $defs: {
        Account: {
          type: 'object',
          properties: { iban: { type: 'string' }, owner: { $ref: '#/$defs/Name' } },
        },
        Name: { type: 'string', description: 'A name.' },
        Money: { type: 'number' },
        'a/b': { type: 'boolean' },
      },
      definitions: { Day: { type: 'string', format: 'date', description: 'A day.' } },
    });
    expect(result.diagnostics).toEqual([]);
    expect(shapes(result)).toEqual({
      to: 'record{iban: text, owner: text}',
      when: 'date',
      cc: 'record{iban: text, owner: text}',
      optional: 'number',
      escaped: 'boolean',
    });
    const when = result.value?.find((variable) => variable.name === 'when');
    expect(when?.description).toBe('When to pay.');
    const to = result.value?.find((variable) => variable.name === 'to');
    const owner = to?.record?.fields.find((field) => field.name === 'owner');
    expect(owner?.description).toBe('A name.');
  });

  it('stops recursive schemas at the nesting limit', () => {
    const result = variablesFromJsonSchema({
      type: 'object',
      properties: { node: { $ref: '#/$defs/Node' } },
      $defs: {
        Node: {
          type: 'object',
          properties: { value: { type: 'number' }, next: { $ref: '#/$defs/Node' } },
        },
      },
    });
    expect(shapes(result)).toEqual({
      node: 'record{value: number, next: record{value: number, next: json}}',
    });
    expect(result.diagnostics.map((diagnostic) => diagnostic.code)).toEqual([
      'schema-type-approximated',
    ]);
  });

  it('reports references that do not resolve, and reference cycles, once each', () => {
    const result = variablesFromJsonSchema({
      type: 'object',
      properties: {
        a: { $ref: '#/$defs/Missing' },
        b: { $ref: '#/$defs/Loop' },
        c: { $ref: '#/$defs/Loop' },
        d: { $ref: '#Anchor' },
      },
      $defs: { Loop: { $ref: '#/$defs/Loop' } },
    });
    expect(problems(result)).toEqual([
      ['schema-unknown-reference', '$.properties.a.$ref'],
      ['schema-too-large', '$.$defs.Loop.$ref'],
      ['schema-unknown-reference', '$.properties.d.$ref'],
    ]);
  });

  it('keeps references to other documents as text with a warning', () => {
    const result = convert({ a: { $ref: 'https://example.com/schema.json#/Thing' } });
    expect(types(result)).toEqual({ a: { kind: 'text' } });
    expect(problems(result)).toEqual([['schema-type-approximated', '$.properties.a']]);
  });
});

describe('variablesFromJsonSchema: limits', () => {
  it('bounds the variables and record fields', () => {
    const properties = Object.fromEntries(
      Array.from({ length: 5 }, (_, index) => [`p${index}`, { type: 'string' }]),
    );
    const result = variablesFromJsonSchema(
      { type: 'object', properties },
      { limits: { maxVariables: 3 } },
    );
    expect(problems(result)).toEqual([['schema-too-large', '$']]);
    expect(result.diagnostics[0]?.message).toContain('more than 3 parameters');
    // Fields count too: one wide record is as costly as many variables.
    const wide = variablesFromJsonSchema(
      { type: 'object', properties: { r: { type: 'object', properties } } },
      { limits: { maxVariables: 3 } },
    );
    expect(problems(wide)).toEqual([['schema-too-large', '$']]);
    expect(wide.diagnostics[0]?.message).toContain('record fields');
  });

  it('bounds hostile schemas: huge property counts in records of lists, recursion through items', () => {
    const huge = Object.fromEntries(
      Array.from({ length: 5000 }, (_, index) => [`f${index}`, { type: 'string' }]),
    );
    const wide = variablesFromJsonSchema({
      type: 'object',
      properties: { rows: { type: 'array', items: { type: 'object', properties: huge } } },
    });
    expect(wide.ok).toBe(false);
    expect(problems(wide)).toEqual([['schema-too-large', '$']]);
    const recursive = variablesFromJsonSchema({
      type: 'object',
      properties: { tree: { $ref: '#/$defs/Tree' } },
      $defs: {
        Tree: {
          type: 'object',
          properties: {
            label: { type: 'string' },
            children: { type: 'array', items: { $ref: '#/$defs/Tree' } },
          },
        },
      },
    });
    expect(recursive.ok).toBe(true);
    expect(shapes(recursive)).toEqual({
      tree: 'record{label: text, children: list<record{label: text, children: list<json>}>}',
    });
  });

  it('keeps __proto__ and constructor as ordinary field names', () => {
    const result = variablesFromJsonSchema(
      JSON.parse(
        '{"type":"object","properties":{"r":{"type":"object","properties":{"__proto__":{"type":"number"},"constructor":{"type":"string","format":"date"}}}}}',
      ),
    );
    expect(result.diagnostics).toEqual([]);
    expect(shapes(result)).toEqual({ r: 'record{__proto__: number, constructor: date}' });
  });

  it('bounds description lengths', () => {
    const result = variablesFromJsonSchema(
      { type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(20) } } },
      { limits: { maxDescriptionLength: 10 } },
    );
    expect(problems(result)).toEqual([['schema-too-large', '$.properties.a.description']]);
  });
});
