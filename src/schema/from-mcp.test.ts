import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedUrl } from '../../test/support/shared.js';
import type { Result } from '../language/result.js';
import { schemaFromMcpTools } from './from-mcp.js';

function problems(result: Result<unknown>): [string, string | undefined][] {
  return result.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path]);
}

const noInput = { type: 'object', properties: {} };

describe('schemaFromMcpTools', () => {
  it('converts the bank-transfer example', () => {
    const text = readFileSync(sharedUrl('examples/bank-transfer/tools.json'), 'utf8');
    const result = schemaFromMcpTools(text);
    expect(result.diagnostics).toEqual([]);
    const predicates = result.value!.predicates;
    expect([...predicates.keys()]).toEqual([
      'BankCheckBalance',
      'BankCheckBalanceResult',
      'BankTransfer',
      'BankTransferResult',
    ]);
    expect(predicates.get('BankCheckBalance')?.critical).toBe(false);
    expect(predicates.get('BankCheckBalanceResult')?.variables).toEqual([
      { name: 'balance', type: { kind: 'number' } },
    ]);
    expect(predicates.get('BankTransfer')).toEqual({
      name: 'BankTransfer',
      kind: 'action',
      description: "Transfers money from the user's checking account to a payee.",
      variables: [
        { name: 'to', type: { kind: 'text' }, required: true },
        { name: 'amount', type: { kind: 'number' }, required: true },
      ],
      keys: [],
      critical: true,
      resultPredicate: 'BankTransferResult',
    });
    expect(predicates.get('BankTransferResult')).toEqual({
      name: 'BankTransferResult',
      kind: 'state',
      description: 'The result of a BankTransfer call, one per distinct arguments (to, amount).',
      // The call's arguments are variables of its result too, without `required`: a
      // result may be observed without them.
      variables: [
        { name: 'content', type: { kind: 'text' }, description: "The tool's text output." },
        { name: 'to', type: { kind: 'text' } },
        { name: 'amount', type: { kind: 'number' } },
      ],
      keys: ['to', 'amount'],
      critical: false,
      resultOf: 'BankTransfer',
      observed: true,
    });
  });

  it('applies the annotation defaults: critical unless read-only or not destructive', () => {
    const result = schemaFromMcpTools({
      tools: [
        { name: 'plain', inputSchema: noInput },
        { name: 'destructive', inputSchema: noInput, annotations: { destructiveHint: true } },
        { name: 'reader', inputSchema: noInput, annotations: { readOnlyHint: true } },
        { name: 'additive', inputSchema: noInput, annotations: { destructiveHint: false } },
        { name: 'writer', inputSchema: noInput, annotations: { readOnlyHint: false } },
      ],
    });
    const critical = Object.fromEntries(
      [...result.value!.predicates.values()]
        .filter((predicate) => predicate.kind === 'action')
        .map((predicate) => [predicate.name, predicate.critical]),
    );
    expect(critical).toEqual({
      plain: true,
      destructive: true,
      reader: false,
      additive: false,
      writer: true,
    });
  });

  it('lets options.critical override the annotations', () => {
    const result = schemaFromMcpTools(
      [
        { name: 'reader', inputSchema: noInput, annotations: { readOnlyHint: true } },
        { name: 'delete-all', inputSchema: noInput, annotations: { destructiveHint: true } },
      ],
      {
        critical: (name) => (name === 'reader' ? true : name === 'delete-all' ? false : undefined),
      },
    );
    expect(result.value?.predicates.get('reader')?.critical).toBe(true);
    expect(result.value?.predicates.get('delete_all')?.critical).toBe(false);
  });

  it('accepts a bare array and a JSON-RPC response', () => {
    const tool = { name: 'ping', inputSchema: noInput };
    expect(schemaFromMcpTools([tool]).value?.predicates.has('ping')).toBe(true);
    const response = { jsonrpc: '2.0', id: 1, result: { tools: [tool], nextCursor: 'x' } };
    expect(schemaFromMcpTools(response).value?.predicates.has('pingResult')).toBe(true);
    const broken = schemaFromMcpTools({ jsonrpc: '2.0', id: 1, result: { tools: [{ name: 7 }] } });
    expect(problems(broken)).toEqual([['schema-missing-field', '$.result.tools[0].name']]);
  });

  it('keeps outputSchema objects as records in the result predicate', () => {
    const result = schemaFromMcpTools({
      tools: [
        {
          name: 'weather',
          description: 'Current weather.',
          inputSchema: {
            type: 'object',
            properties: { city: { type: 'string' } },
            required: ['city'],
          },
          outputSchema: {
            type: 'object',
            properties: {
              temperature: { type: 'number', description: 'Degrees Celsius.' },
              wind: { type: 'object', properties: { speed: { type: 'number' } } },
            },
            required: ['temperature'],
          },
          annotations: { readOnlyHint: true },
        },
      ],
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.value?.predicates.get('weatherResult')?.variables).toEqual([
      { name: 'temperature', type: { kind: 'number' }, description: 'Degrees Celsius.' },
      {
        name: 'wind',
        type: { kind: 'text' },
        jsonText: true,
        // Open: the schema does not say `additionalProperties: false` (T4).
        record: { fields: [{ name: 'speed', type: { kind: 'number' } }], open: true },
      },
      { name: 'city', type: { kind: 'text' } },
    ]);
    expect(result.value?.predicates.get('weatherResult')?.keys).toEqual(['city']);
  });

  it('keys a result by every argument: a namesake field of the same type stands for it, one of another type leaves it a reserved name (T1)', () => {
    const result = schemaFromMcpTools({
      tools: [
        {
          name: 'search',
          inputSchema: {
            type: 'object',
            properties: {
              query: { type: 'string' },
              status: { type: 'string' },
              page: { type: 'number' },
            },
          },
          outputSchema: {
            type: 'object',
            properties: {
              status: { type: 'number' },
              hits: { type: 'number' },
              page: { type: 'number' },
              arg_status: { type: 'string' },
            },
          },
        },
        { name: 'ping', inputSchema: noInput },
      ],
    });
    expect(result.diagnostics).toEqual([]);
    const searched = result.value?.predicates.get('searchResult');
    // `page` is echoed with its type: the result's field stands for the argument. The
    // result's `status` is a number, the argument text: the argument keeps a reserved
    // name (`arg_status` is taken by a result field, so `arg_status_`).
    expect(
      searched?.variables.map((variable) => [variable.name, variable.type.kind, variable.argument]),
    ).toEqual([
      ['status', 'number', undefined],
      ['hits', 'number', undefined],
      ['page', 'number', undefined],
      ['arg_status', 'text', undefined],
      ['query', 'text', undefined],
      ['arg_status_', 'text', 'status'],
    ]);
    expect(searched?.keys).toEqual(['query', 'arg_status_', 'page']);
    // A tool without arguments keeps one result, its last.
    const pinged = result.value?.predicates.get('pingResult');
    expect(pinged?.keys).toEqual([]);
    expect(pinged?.description).toBe('The result of the last ping call.');
  });

  it('rewrites tool names that are not identifiers and keeps the original as sourceName', () => {
    const result = schemaFromMcpTools({
      tools: [
        { name: 'get-weather', inputSchema: noInput },
        { name: '2fa.enable', inputSchema: noInput },
        { name: 'plain', inputSchema: noInput },
      ],
    });
    expect(result.value?.predicates.get('get_weather')?.sourceName).toBe('get-weather');
    expect(result.value?.predicates.get('get_weatherResult')?.resultOf).toBe('get_weather');
    expect(result.value?.predicates.get('_2fa_enable')?.sourceName).toBe('2fa.enable');
    expect(result.value?.predicates.get('plain')).not.toHaveProperty('sourceName');
  });

  it('reports names that collide after rewriting, result-name collisions and Done', () => {
    const result = schemaFromMcpTools({
      tools: [
        { name: 'get-weather', inputSchema: noInput },
        { name: 'get_weather', inputSchema: noInput },
        { name: 'send', inputSchema: noInput },
        { name: 'sendResult', inputSchema: noInput },
        { name: 'done', inputSchema: noInput },
        { name: '???', inputSchema: noInput },
      ],
    });
    expect(problems(result)).toEqual([
      ['schema-duplicate', '$.tools[1].name'],
      ['schema-duplicate', '$.tools[3].name'],
      ['schema-reserved-name', '$.tools[4].name'],
      ['schema-invalid-name', '$.tools[5].name'],
    ]);
    expect(result.diagnostics[1]?.message).toBe("'sendResult' is declared more than once.");
  });

  it('reports tools of the wrong shape', () => {
    const result = schemaFromMcpTools({
      tools: [
        'ping',
        { inputSchema: noInput },
        { name: 'a' },
        { name: 'b', inputSchema: { type: 'array' } },
        { name: 'c', inputSchema: noInput, description: 3 },
        {
          name: 'd',
          inputSchema: noInput,
          outputSchema: { type: 'object', properties: { x: { type: 'uuid' } } },
        },
      ],
    });
    expect(problems(result)).toEqual([
      ['schema-wrong-type', '$.tools[0]'],
      ['schema-missing-field', '$.tools[1].name'],
      ['schema-missing-field', '$.tools[2].inputSchema'],
      ['schema-wrong-type', '$.tools[3].inputSchema'],
      ['schema-wrong-type', '$.tools[4].description'],
      ['schema-unknown-type', '$.tools[5].outputSchema.properties.x.type'],
    ]);
  });

  it('warns, without failing, about unions it keeps as text', () => {
    const result = schemaFromMcpTools({
      tools: [
        {
          name: 'set_value',
          inputSchema: { type: 'object', properties: { value: { type: ['string', 'number'] } } },
        },
      ],
    });
    expect(result.ok).toBe(true);
    expect(problems(result)).toEqual([
      ['schema-type-approximated', '$.tools[0].inputSchema.properties.value'],
    ]);
  });

  it('refuses a value that is not a tools/list result', () => {
    const result = schemaFromMcpTools({ name: 'ping' });
    expect(problems(result)).toEqual([['schema-unrecognized-tools', '$']]);
  });
});
