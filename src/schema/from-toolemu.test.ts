import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataUrl } from '../../test/support/project-data.js';
import type { Result } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { findVariable } from '../language/schema-model.js';
import { schemaFromToolemu } from './from-toolemu.js';

const toolkitsText = readFileSync(dataUrl('toolemu/toolkits.json'), 'utf8');

function problems(result: Result<unknown>): [string, string | undefined][] {
  return result.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path]);
}

function toolkit(tools: unknown[], extra: Record<string, unknown> = {}) {
  return {
    toolkit: 'Demo',
    name_for_model: 'Demo',
    description_for_model: 'A demo.',
    tools,
    ...extra,
  };
}

describe('schemaFromToolemu on the real toolkits', () => {
  const result = schemaFromToolemu(toolkitsText);
  const schema = result.value as Schema;

  it('converts all 38 toolkits and 330 tools without diagnostics', () => {
    expect(result.diagnostics).toEqual([]);
    const predicates = [...schema.predicates.values()];
    const actions = predicates.filter((predicate) => predicate.kind === 'action');
    const results = predicates.filter((predicate) => predicate.resultOf !== undefined);
    expect(actions).toHaveLength(330);
    expect(results).toHaveLength(330);
    expect(schema.id).toBe('tools');
    for (const action of actions) {
      expect(schema.predicates.get(`${action.name}Result`)?.resultOf).toBe(action.name);
      expect(schema.predicates.get(`${action.name}Result`)?.observed).toBe(true);
      expect(action.resultPredicate).toBe(`${action.name}Result`);
    }
  });

  it('names tools name_for_model + name and keeps their types and descriptions', () => {
    const search = schema.predicates.get('TodoistSearchTasks');
    expect(search?.description).toBe('Searches tasks by keywords, due date, and priority.');
    expect(search && findVariable(search, 'keywords')).toEqual({
      name: 'keywords',
      type: { kind: 'text' },
      description: 'The keywords to search in the task name and description.',
      required: false,
    });
    expect(search && findVariable(search, 'priority')?.type).toEqual({ kind: 'number' });
    const found = schema.predicates.get('TodoistSearchTasksResult');
    expect(found?.kind).toBe('state');
    expect(found && findVariable(found, 'tasks')?.type).toEqual({ kind: 'list', element: 'text' });
    expect(found?.variables[0]).not.toHaveProperty('required');
    const execute = schema.predicates.get('TerminalExecute');
    expect(execute?.variables).toEqual([
      {
        name: 'command',
        type: { kind: 'text' },
        description: 'The command to execute in the terminal.',
        required: true,
      },
    ]);
    expect(
      schema.predicates.get('TerminalExecuteResult')?.variables.map((v) => [v.name, v.type]),
    ).toEqual([
      ['output', { kind: 'text' }],
      ['exit_code', { kind: 'number' }],
      ['command', { kind: 'text' }],
    ]);
    expect(schema.predicates.get('TerminalExecuteResult')?.keys).toEqual(['command']);
  });

  it('keeps ToolEmu objects as text', () => {
    const objectParameters = [...schema.predicates.values()].flatMap((predicate) =>
      predicate.variables.filter((variable) => variable.type.kind === 'text'),
    );
    expect(objectParameters.length).toBeGreaterThan(600);
    const send = schema.predicates.get('GmailSendEmail');
    expect(send?.variables.every((variable) => variable.sourcePath === undefined)).toBe(true);
  });

  it('keeps every published ToolEmu object and array as json: none declares its shape', () => {
    const records = [...schema.predicates.values()].flatMap((predicate) =>
      predicate.variables.filter((variable) => variable.record !== undefined),
    );
    expect(records).toEqual([]);
  });

  it('makes records of toolkit values that declare properties or object items', () => {
    const result = schemaFromToolemu(
      toolkit([
        {
          name: 'Search',
          summary: 'Searches.',
          parameters: [
            {
              name: 'filter',
              type: 'object',
              description: 'What to keep.',
              properties: { since: { type: 'string', format: 'date' } },
            },
          ],
          returns: [
            {
              name: 'hits',
              type: 'array',
              description: 'The hits.',
              items: {
                type: 'object',
                properties: { id: { type: 'string' }, score: { type: 'number' } },
              },
            },
          ],
        },
      ]),
    );
    expect(result.diagnostics).toEqual([]);
    const filter = result.value?.predicates.get('DemoSearch')?.variables[0];
    expect(filter?.record?.fields).toEqual([
      { name: 'since', type: { kind: 'date' }, required: false },
    ]);
    const hits = result.value?.predicates.get('DemoSearchResult')?.variables[0];
    expect(hits?.type).toEqual({ kind: 'list', element: 'text' });
    expect(hits?.record?.fields.map((field) => `${field.name}:${field.type.kind}`)).toEqual([
      'id:text',
      'score:number',
    ]);
  });

  it('judges criticality by the tool name without its toolkit prefix', () => {
    expect(schema.predicates.get('TodoistDeleteTask')?.critical).toBe(true);
    expect(schema.predicates.get('TodoistSearchTasks')?.critical).toBe(false);
    expect(schema.predicates.get('BankManagerTransferFunds')?.critical).toBe(true);
    // The toolkit's name contains Lock; its status check must not be critical.
    expect(schema.predicates.get('AugustSmartLockCheckLockStatus')?.critical).toBe(false);
    expect(schema.predicates.get('AugustSmartLockLockDoor')?.critical).toBe(true);
    expect(schema.predicates.get('TodoistDeleteTaskResult')?.critical).toBe(false);
  });

  it('lets options.critical decide per tool, by the full name', () => {
    const asked: string[] = [];
    const overridden = schemaFromToolemu(toolkitsText, {
      id: 'toolemu',
      critical: (name) => {
        asked.push(name);
        if (name === 'TodoistSearchTasks') return true;
        if (name === 'TodoistDeleteTask') return false;
        return undefined;
      },
    });
    expect(asked).toContain('TodoistSearchTasks');
    expect(asked).toHaveLength(330);
    expect(overridden.value?.id).toBe('toolemu');
    expect(overridden.value?.predicates.get('TodoistSearchTasks')?.critical).toBe(true);
    expect(overridden.value?.predicates.get('TodoistDeleteTask')?.critical).toBe(false);
    expect(overridden.value?.predicates.get('TodoistUpdateTask')?.critical).toBe(true);
  });
});

describe('schemaFromToolemu on small inputs', () => {
  it('accepts one toolkit object', () => {
    const result = schemaFromToolemu(
      toolkit([
        {
          name: 'Ping',
          summary: 'Pings.',
          parameters: [{ name: 'host', type: 'string', description: 'Host.', required: true }],
          returns: [{ name: 'ok', type: 'boolean', description: 'Reachable.' }],
        },
      ]),
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.value?.predicates.get('DemoPing')).toMatchObject({
      kind: 'action',
      description: 'Pings.',
      critical: false,
    });
    expect(result.value?.predicates.get('DemoPingResult')?.variables).toEqual([
      { name: 'ok', type: { kind: 'boolean' }, description: 'Reachable.' },
      { name: 'host', type: { kind: 'text' }, description: 'Host.' },
    ]);
  });

  it('reports toolkits, tools and values of the wrong shape', () => {
    const result = schemaFromToolemu([
      'Demo',
      { tools: [] },
      { name_for_model: 'A', tools: {} },
      toolkit([
        7,
        { summary: 'No name.' },
        { name: 'P', parameters: {}, returns: [{ type: 'string' }] },
        { name: 'Q', parameters: [{ name: 'x', type: 'str', required: 'yes' }] },
      ]),
    ]);
    expect(problems(result)).toEqual([
      ['schema-wrong-type', '$[0]'],
      ['schema-missing-field', '$[1].name_for_model'],
      ['schema-wrong-type', '$[2].tools'],
      ['schema-wrong-type', '$[3].tools[0]'],
      ['schema-missing-field', '$[3].tools[1].name'],
      ['schema-wrong-type', '$[3].tools[2].parameters'],
      ['schema-wrong-type', '$[3].tools[2].returns[0]'],
      ['schema-wrong-type', '$[3].tools[3].parameters[0].required'],
      ['schema-unknown-type', '$[3].tools[3].parameters[0].type'],
    ]);
  });

  it('reports duplicate tools, result-name collisions and parameter duplicates', () => {
    const result = schemaFromToolemu(
      toolkit([
        { name: 'Task', parameters: [], returns: [] },
        { name: 'TaskResult', parameters: [], returns: [] },
        { name: 'Task', parameters: [], returns: [] },
        {
          name: 'Other',
          parameters: [
            { name: 'x', type: 'string' },
            { name: 'x', type: 'number' },
          ],
        },
      ]),
    );
    expect(problems(result)).toEqual([
      ['schema-duplicate', '$.tools[1].name'],
      ['schema-duplicate', '$.tools[2].name'],
      ['schema-duplicate', '$.tools[3].parameters[1]'],
    ]);
  });

  it('refuses what is not a toolkit list', () => {
    expect(problems(schemaFromToolemu({ tools: [] }))).toEqual([
      ['schema-unrecognized-tools', '$'],
    ]);
    expect(problems(schemaFromToolemu('not json'))).toEqual([['schema-invalid-json', '$']]);
  });

  it('bounds the number of tools', () => {
    const tools = Array.from({ length: 4 }, (_, index) => ({ name: `T${index}`, parameters: [] }));
    const result = schemaFromToolemu(toolkit(tools), { limits: { maxTools: 2 } });
    expect(problems(result)).toEqual([['schema-too-large', '$.tools[2]']]);
    expect(result.diagnostics[0]?.message).toBe('More than 2 tools; the rest were not read.');
  });
});
