import { describe, expect, it } from 'vitest';
import type { Result } from '../language/result.js';
import { declaresSettings, type Schema } from '../language/schema-model.js';
import { loadStateSchema, loadToolSchema } from './index.js';

/** The marks of states files' variables: `"setting": true` (LANGUAGE.md §9 frame conditions). */
function problems(result: Result<Schema>): [string, string | undefined][] {
  return result.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path]);
}

const load = (value: unknown) => loadStateSchema(JSON.stringify(value));

describe('settings in states files', () => {
  it('reads setting on state variables, true or false only, and records only true', () => {
    const result = load({
      ParticipantStatus: {
        description: 'The participant in the meeting.',
        variables: [
          { name: 'participant_name', type: 'Text', setting: false },
          { name: 'audio_status', type: 'Enum', enum_values: ['Muted', 'Unmuted'], setting: true },
          { name: 'video_status', type: 'Enum', enum_values: ['On', 'Off'], setting: null },
        ],
      },
    });
    expect(result.diagnostics).toEqual([]);
    const variables = result.value?.predicates.get('ParticipantStatus')?.variables;
    expect(variables?.map((variable) => variable.setting)).toEqual([undefined, true, undefined]);
    expect(variables?.[0]).not.toHaveProperty('setting');
    expect(declaresSettings(result.value!)).toBe(true);
  });

  it('a schema without settings declares none', () => {
    const result = load({ A: { variables: [{ name: 'x', type: 'Boolean' }] } });
    expect(declaresSettings(result.value!)).toBe(false);
  });

  it('refuses a setting that is not a boolean, on an action, on a key and on a record field', () => {
    const result = load({
      A: { variables: [{ name: 'mute', type: 'Boolean', setting: 'yes' }] },
      B: { kind: 'action', variables: [{ name: 'v', type: 'Text', setting: true }] },
      C: {
        key_arg_name: 'id',
        variables: [
          { name: 'id', type: 'Text', setting: true },
          { name: 'on', type: 'Boolean', setting: true },
        ],
      },
      D: {
        variables: [
          {
            name: 'prefs',
            type: 'Record',
            fields: [{ name: 'dark', type: 'Boolean', setting: true }],
          },
        ],
      },
    });
    expect(result.ok).toBe(false);
    expect(problems(result)).toEqual([
      ['schema-wrong-type', '$.A.variables[0].setting'],
      ['schema-misplaced-field', '$.B.variables[0].setting'],
      ['schema-misplaced-field', '$.C.variables[0].setting'],
      ['schema-misplaced-field', '$.D.variables[0].fields[0].setting'],
    ]);
    expect(result.diagnostics[0]?.message).toBe("'setting' must be true or false; found a string.");
    expect(result.diagnostics[1]?.hint).toBe('Remove "setting", or make the predicate a state.');
  });

  it('survives the one-file schema of tools and states', () => {
    const result = loadToolSchema(
      JSON.stringify({
        tools: [{ name: 'tap', description: 'Taps a control.', parameters: { type: 'object' } }],
        states: { Display: { variables: [{ name: 'seconds', type: 'Boolean', setting: true }] } },
      }),
    );
    expect(result.diagnostics).toEqual([]);
    expect(result.value?.predicates.get('Display')?.variables[0]?.setting).toBe(true);
  });
});
