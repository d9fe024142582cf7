import { describe, expect, it } from 'vitest';
import type { Result } from '../language/result.js';
import { schemaFromOpenAiTools } from './from-openai.js';

function problems(result: Result<unknown>): [string, string | undefined][] {
  return result.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path]);
}

const parameters = {
  type: 'object',
  properties: {
    to: { type: 'string', description: 'Recipient address.' },
    subject: { type: ['string', 'null'] },
  },
  required: ['to'],
  additionalProperties: false,
};

const expectedVariables = [
  { name: 'to', type: { kind: 'text' }, description: 'Recipient address.', required: true },
  { name: 'subject', type: { kind: 'text' }, required: false },
];

describe('schemaFromOpenAiTools', () => {
  it('converts the Chat Completions form', () => {
    const result = schemaFromOpenAiTools([
      {
        type: 'function',
        function: { name: 'send_email', description: 'Sends an email.', parameters, strict: true },
      },
      { type: 'function', function: { name: 'list_emails' } },
    ]);
    expect(result.diagnostics).toEqual([]);
    const send = result.value?.predicates.get('send_email');
    expect(send).toMatchObject({
      kind: 'action',
      description: 'Sends an email.',
      critical: true,
      resultPredicate: 'send_emailResult',
    });
    expect(send?.variables).toEqual(expectedVariables);
    expect(result.value?.predicates.get('send_emailResult')?.variables).toEqual([
      { name: 'content', type: { kind: 'text' }, description: "The tool's text output." },
      // The call's arguments, keying the result (without `required`).
      { name: 'to', type: { kind: 'text' }, description: 'Recipient address.' },
      { name: 'subject', type: { kind: 'text' } },
    ]);
    expect(result.value?.predicates.get('send_emailResult')?.keys).toEqual(['to', 'subject']);
    expect(result.value?.predicates.get('send_emailResult')).toMatchObject({
      resultOf: 'send_email',
      observed: true,
    });
    expect(result.value?.predicates.get('list_emails')).toMatchObject({
      critical: false,
      variables: [],
    });
  });

  it('converts the Responses form, a request body and legacy functions', () => {
    const flat = { type: 'function', name: 'send_email', description: 'Sends.', parameters };
    const responses = schemaFromOpenAiTools([flat]);
    expect(responses.diagnostics).toEqual([]);
    expect(responses.value?.predicates.get('send_email')?.variables).toEqual(expectedVariables);
    const body = schemaFromOpenAiTools({ model: 'gpt', tools: [flat] });
    expect(body.value?.predicates.has('send_email')).toBe(true);
    const legacy = schemaFromOpenAiTools([{ name: 'send_email', parameters }]);
    expect(legacy.value?.predicates.get('send_email')?.critical).toBe(true);
  });

  it('uses the name heuristic unless options.critical decides', () => {
    const tools = [
      { type: 'function', name: 'getWeather', parameters: {} },
      { type: 'function', name: 'deleteFile', parameters: {} },
    ];
    const byName = schemaFromOpenAiTools(tools);
    expect(byName.value?.predicates.get('getWeather')?.critical).toBe(false);
    expect(byName.value?.predicates.get('deleteFile')?.critical).toBe(true);
    const overridden = schemaFromOpenAiTools(tools, {
      critical: (name) => name === 'getWeather',
    });
    expect(overridden.value?.predicates.get('getWeather')?.critical).toBe(true);
    expect(overridden.value?.predicates.get('deleteFile')?.critical).toBe(false);
  });

  it('refuses tools that are not functions and functions without a name', () => {
    const result = schemaFromOpenAiTools([
      { type: 'web_search' },
      { type: 'function', function: { description: 'No name.' } },
      { type: 'function', name: '' },
      42,
    ]);
    expect(problems(result)).toEqual([
      ['schema-invalid', '$[0].type'],
      ['schema-missing-field', '$[1].function.name'],
      ['schema-missing-field', '$[2].name'],
      ['schema-wrong-type', '$[3]'],
    ]);
    expect(result.diagnostics[0]?.message).toContain("'web_search'");
  });

  it('reports problems inside parameters with their paths', () => {
    const result = schemaFromOpenAiTools([
      {
        type: 'function',
        function: {
          name: 'f',
          parameters: { type: 'object', properties: { a: { $ref: '#/$defs/Nope' } } },
        },
      },
    ]);
    expect(problems(result)).toEqual([
      ['schema-unknown-reference', '$[0].function.parameters.properties.a.$ref'],
    ]);
  });

  it('refuses a value that is not a tool array', () => {
    expect(problems(schemaFromOpenAiTools({ functions: [] }))).toEqual([
      ['schema-unrecognized-tools', '$'],
    ]);
  });
});
