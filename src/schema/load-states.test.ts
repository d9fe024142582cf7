import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sharedUrl } from '../../test/support/shared.js';
import type { Result } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { loadStateSchema } from './load-states.js';

const predicatesFolder = sharedUrl('data/verisafe/predicates/');

function readPredicates(file: string): string {
  return readFileSync(new URL(file, predicatesFolder), 'utf8');
}

function problems(result: Result<Schema>): [string, string | undefined][] {
  return result.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.path]);
}

function load(value: unknown): Result<Schema> {
  return loadStateSchema(typeof value === 'string' ? value : JSON.stringify(value));
}

describe('loadStateSchema on the VeriSafe predicate files', () => {
  const files = readdirSync(predicatesFolder).filter((file) => file.endsWith('.json'));

  it('loads all 19 files with no errors: 517 predicates, 1,387 variables', () => {
    expect(files).toHaveLength(19);
    let predicates = 0;
    let variables = 0;
    for (const file of files) {
      const result = loadStateSchema(readPredicates(file), { id: file });
      expect(result.diagnostics, file).toEqual([]);
      if (!result.ok) throw new Error(file);
      expect(result.value.id).toBe(file);
      for (const predicate of result.value.predicates.values()) {
        predicates++;
        variables += predicate.variables.length;
      }
    }
    expect(predicates).toBe(517);
    expect(variables).toBe(1387);
  });

  it('reads enums, keys and plain types as declared', () => {
    const clock = loadStateSchema(readPredicates('com.google.android.deskclock.json'));
    const selection = clock.value?.predicates.get('AlarmTimeSelection');
    const period = selection?.variables.find((variable) => variable.name === 'selected_period');
    expect(period?.type).toEqual({ kind: 'enum', values: ['AM', 'PM'] });
    expect(clock.value?.predicates.get('NextAlarm')?.variables).toEqual([
      { name: 'next_alarm_day', type: { kind: 'text' } },
      { name: 'next_alarm_time', type: { kind: 'time' } },
    ]);
    const maps = loadStateSchema(readPredicates('GoogleMaps.json'));
    expect(maps.value?.predicates.get('MyListDetails')?.keys).toEqual(['list_name']);
    expect(maps.value?.predicates.get('SearchedPlacesDetails')?.keys).toEqual(['place_name']);
    expect(maps.value?.predicates.get('MyListDetails')?.kind).toBe('state');
    expect(maps.value?.predicates.get('MyListDetails')?.critical).toBe(false);
  });

  it('rewrites the two variable names that are not identifiers, keeping the original as sourcePath', () => {
    const maps = loadStateSchema(readPredicates('GoogleMaps.json'));
    const details = maps.value?.predicates.get('MapDetailsSelection');
    expect(details?.variables.find((variable) => variable.name === '_3d_enabled')).toMatchObject({
      sourcePath: ['3d_enabled'],
      type: { kind: 'boolean' },
    });
    const quora = loadStateSchema(readPredicates('Quora.json'));
    const rules = quora.value?.predicates.get('SpaceSubmissionRules');
    expect(rules?.variables.map((variable) => variable.name)).toContain(
      'submission_rule_description',
    );
  });

  it('ignores unknown fields such as detail', () => {
    const maps = loadStateSchema(readPredicates('GoogleMaps.json'));
    expect(maps.value?.predicates.get('SelectedKeyword')?.variables).toEqual([
      { name: 'keyword', type: { kind: 'text' } },
    ]);
  });
});

describe('loadStateSchema on the formats of FORMATS.md §1', () => {
  const example = {
    RestaurantInfo: {
      description: 'Information about the restaurant you want to reserve.',
      variables: [{ name: 'name', type: 'Text' }],
    },
    ReserveInfo: {
      description: 'Reservation details being filled in.',
      variables: [
        { name: 'date', type: 'Date' },
        { name: 'time', type: 'Time' },
        { name: 'available', type: 'Boolean' },
        { name: 'party', type: 'Enum', enum_values: ['1', '2', '3', '4+'] },
      ],
    },
    Reserve: {
      kind: 'action',
      critical: true,
      description: 'Presses the Reserve button.',
      variables: [],
    },
    Alarm: {
      description: 'One alarm.',
      key_arg_name: 'id',
      variables: [
        { name: 'id', type: 'Text' },
        { name: 'time', type: 'Time' },
      ],
    },
  };

  it('loads the example, with kinds, criticality, keys and enums', () => {
    const result = load(example);
    expect(result.diagnostics).toEqual([]);
    const schema = result.value!;
    expect(schema.id).toBe('states');
    expect([...schema.predicates.keys()]).toEqual([
      'RestaurantInfo',
      'ReserveInfo',
      'Reserve',
      'Alarm',
    ]);
    expect(schema.predicates.get('Reserve')).toEqual({
      name: 'Reserve',
      kind: 'action',
      description: 'Presses the Reserve button.',
      variables: [],
      keys: [],
      critical: true,
    });
    expect(schema.predicates.get('Alarm')?.keys).toEqual(['id']);
    expect(schema.predicates.get('ReserveInfo')?.variables[3]?.type).toEqual({
      kind: 'enum',
      values: ['1', '2', '3', '4+'],
    });
  });

  it('loads the restaurant example states file', () => {
    const text = readFileSync(sharedUrl('examples/restaurant/states.json'), 'utf8');
    const result = loadStateSchema(text);
    expect(result.ok).toBe(true);
    expect(result.value?.predicates.get('ReserveResult')?.variables).toEqual([
      { name: 'success', type: { kind: 'boolean' } },
    ]);
  });

  it('accepts the array form, with names inside', () => {
    const result = load([
      { name: 'Alarm', description: 'One alarm.', variables: [{ name: 'time', type: 'Time' }] },
      { name: 'Save', kind: 'Action', variables: [] },
    ]);
    expect(result.diagnostics).toEqual([]);
    expect(result.value?.predicates.get('Alarm')?.variables[0]?.type).toEqual({ kind: 'time' });
    expect(result.value?.predicates.get('Save')?.kind).toBe('action');
    expect(result.value?.predicates.get('Save')?.description).toBe('');
  });

  it('reads type names case-insensitively, with lenient spacing in lists', () => {
    const spellings: [string, unknown][] = [
      ['String', { kind: 'text' }],
      ['TEXT', { kind: 'text' }],
      ['Integer', { kind: 'number' }],
      ['float', { kind: 'number' }],
      ['boolean', { kind: 'boolean' }],
      ['DATE', { kind: 'date' }],
      ['time', { kind: 'time' }],
      ['DateTime', { kind: 'datetime' }],
      ['List<Text>', { kind: 'list', element: 'text' }],
      ['list< text >', { kind: 'list', element: 'text' }],
      ['LIST<NUMBER>', { kind: 'list', element: 'number' }],
      ['List<Integer>', { kind: 'list', element: 'number' }],
    ];
    const result = load({
      Types: { variables: spellings.map(([type], index) => ({ name: `v${index}`, type })) },
    });
    expect(result.diagnostics).toEqual([]);
    expect(
      result.value?.predicates.get('Types')?.variables.map((variable) => variable.type),
    ).toEqual(spellings.map(([, type]) => type));
  });

  it('converts numbers in enum_values to strings', () => {
    const result = load({
      Party: { variables: [{ name: 'size', type: 'enum', enum_values: [1, 2, '3+'] }] },
    });
    expect(result.value?.predicates.get('Party')?.variables[0]?.type).toEqual({
      kind: 'enum',
      values: ['1', '2', '3+'],
    });
  });

  it('finds keys by the name as written, and stores the rewritten name', () => {
    const result = load({
      Map: { key_arg_name: ['3d'], variables: [{ name: '3d', type: 'Boolean' }] },
    });
    expect(result.value?.predicates.get('Map')?.keys).toEqual(['_3d']);
  });

  it('takes already parsed values, bytes and text with a byte order mark', () => {
    const value = { A: { variables: [] } };
    expect(loadStateSchema(value).ok).toBe(true);
    expect(loadStateSchema(new TextEncoder().encode(JSON.stringify(value))).ok).toBe(true);
    expect(loadStateSchema(`\uFEFF${JSON.stringify(value)}`).ok).toBe(true);
  });
});

describe('loadStateSchema validation', () => {
  it('reports invalid JSON with the position the parser gives', () => {
    const result = loadStateSchema('{\n  "A": {"variables": []\n');
    expect(result.ok).toBe(false);
    expect(problems(result)).toEqual([['schema-invalid-json', '$']]);
    expect(result.diagnostics[0]?.data).toMatchObject({ line: 3, column: 1 });
    expect(result.diagnostics[0]?.message).toContain('line 3, column 1');
  });

  it('reports invalid JSON without a position when the parser gives none', () => {
    const result = loadStateSchema('{"A": }');
    expect(problems(result)).toEqual([['schema-invalid-json', '$']]);
    expect(result.diagnostics[0]?.message).toMatch(/^The schema is not valid JSON: /);
  });

  it('refuses a top level that is neither an object nor an array', () => {
    for (const value of ['"Alarm"', '42', 'null']) {
      const result = loadStateSchema(value);
      expect(problems(result)).toEqual([['schema-wrong-type', '$']]);
    }
    expect(loadStateSchema(undefined).diagnostics[0]?.message).toBe('No schema was given.');
  });

  it('points tool schemas to the tool loader', () => {
    const result = load({ tools: [] });
    expect(problems(result)).toEqual([['schema-wrong-format', '$']]);
    expect(result.diagnostics[0]?.hint).toContain('--tools');
    expect(problems(load([{ type: 'function', function: { name: 'f' } }]))).toEqual([
      ['schema-wrong-format', '$'],
    ]);
  });

  it('reports predicates and variables of the wrong shape, with their paths', () => {
    const result = load({
      A: 'text',
      B: {},
      C: { variables: {} },
      D: { variables: [7, {}, { name: 3, type: 'Text' }, { name: 'x' }, { name: 'y', type: 5 }] },
    });
    expect(problems(result)).toEqual([
      ['schema-wrong-type', '$.A'],
      ['schema-missing-field', '$.B.variables'],
      ['schema-wrong-type', '$.C.variables'],
      ['schema-wrong-type', '$.D.variables[0]'],
      ['schema-missing-field', '$.D.variables[1].name'],
      ['schema-wrong-type', '$.D.variables[2].name'],
      ['schema-missing-field', '$.D.variables[3].type'],
      ['schema-wrong-type', '$.D.variables[4].type'],
    ]);
    expect(result.diagnostics[1]?.hint).toContain('[] for none');
  });

  it('reports array-form entries without a usable name', () => {
    const result = load([{ variables: [] }, 'B', { name: 4 }]);
    expect(problems(result)).toEqual([
      ['schema-missing-field', '$[0].name'],
      ['schema-wrong-type', '$[1]'],
      ['schema-wrong-type', '$[2].name'],
    ]);
  });

  it('reports unknown types at the type', () => {
    const result = load({
      Alarm: {
        variables: [
          { name: 'id', type: 'Text' },
          { name: 'time', type: 'Clock' },
        ],
      },
    });
    expect(problems(result)).toEqual([['schema-unknown-type', '$.Alarm.variables[1].type']]);
    expect(result.diagnostics[0]?.message).toBe("Unknown variable type 'Clock'.");
    expect(problems(load({ A: { variables: [{ name: 'v', type: 'List<Date>' }] } }))).toEqual([
      ['schema-unknown-type', '$.A.variables[0].type'],
    ]);
  });

  it('refuses predicate names that are not identifiers, and variable names with nothing to keep', () => {
    const result = load({
      'Alarm clock': { variables: [] },
      '1st': { variables: [] },
      Ok: {
        variables: [
          { name: '', type: 'Text' },
          { name: '!!', type: 'Text' },
        ],
      },
    });
    expect(problems(result)).toEqual([
      ['schema-invalid-name', "$['Alarm clock']"],
      ['schema-invalid-name', "$['1st']"],
      ['schema-invalid-name', '$.Ok.variables[0].name'],
      ['schema-invalid-name', '$.Ok.variables[1].name'],
    ]);
    expect(result.diagnostics[0]?.message).toBe("'Alarm clock' is not a valid predicate name.");
  });

  it('still reports the type of a variable whose name is refused', () => {
    const result = load({ A: { variables: [{ name: '', type: 'Strin' }] } });
    expect(problems(result)).toEqual([
      ['schema-invalid-name', '$.A.variables[0].name'],
      ['schema-unknown-type', '$.A.variables[0].type'],
    ]);
  });

  it('reserves Done in any case', () => {
    for (const name of ['Done', 'done', 'DONE']) {
      const result = load({ [name]: { variables: [] } });
      expect(problems(result)).toEqual([['schema-reserved-name', `$.${name}`]]);
      expect(result.diagnostics[0]?.message).toContain('reserved');
    }
    expect(problems(load([{ name: 'done', variables: [] }]))).toEqual([
      ['schema-reserved-name', '$[0].name'],
    ]);
  });

  it('reports duplicates of predicates, variables, rewritten variables and enum values', () => {
    const result = load([
      { name: 'A', variables: [] },
      { name: 'A', variables: [] },
      {
        name: 'B',
        variables: [
          { name: 'x', type: 'Text' },
          { name: 'x', type: 'Number' },
          { name: 'a b', type: 'Text' },
          { name: 'a_b', type: 'Text' },
          { name: 'e', type: 'Enum', enum_values: ['on', 'off', 'on'] },
        ],
      },
    ]);
    expect(problems(result)).toEqual([
      ['schema-duplicate', '$[1].name'],
      ['schema-duplicate', '$[2].variables[1].name'],
      ['schema-duplicate', '$[2].variables[3].name'],
      ['schema-duplicate', '$[2].variables[4].enum_values[2]'],
    ]);
    expect(result.diagnostics[2]?.data).toEqual({ name: 'a_b' });
  });

  it('requires non-empty string values for enums', () => {
    const result = load({
      A: {
        variables: [
          { name: 'none', type: 'Enum' },
          { name: 'empty', type: 'Enum', enum_values: [] },
          { name: 'object', type: 'Enum', enum_values: 'on, off' },
          { name: 'bad', type: 'Enum', enum_values: ['ok', '', true, null, { a: 1 }] },
          { name: 'text', type: 'Text', enum_values: ['a'] },
        ],
      },
    });
    expect(problems(result)).toEqual([
      ['schema-missing-field', '$.A.variables[0].enum_values'],
      ['schema-invalid', '$.A.variables[1].enum_values'],
      ['schema-wrong-type', '$.A.variables[2].enum_values'],
      ['schema-invalid', '$.A.variables[3].enum_values[1]'],
      ['schema-wrong-type', '$.A.variables[3].enum_values[2]'],
      ['schema-wrong-type', '$.A.variables[3].enum_values[3]'],
      ['schema-wrong-type', '$.A.variables[3].enum_values[4]'],
      ['schema-misplaced-field', '$.A.variables[4].enum_values'],
    ]);
  });

  it('checks kind, critical and keys', () => {
    const result = load({
      A: { kind: 'event', variables: [] },
      B: { critical: 'yes', kind: 'action', variables: [] },
      C: { critical: true, variables: [] },
      D: { key_arg_name: 'idd', variables: [{ name: 'id', type: 'Text' }] },
      E: { kind: 'action', key_arg_name: 'id', variables: [{ name: 'id', type: 'Text' }] },
      F: { key_arg_name: ['id', 'id'], variables: [{ name: 'id', type: 'Text' }] },
      G: { key_arg_name: 3, variables: [] },
      H: { key_arg_name: [3], variables: [] },
    });
    expect(problems(result)).toEqual([
      ['schema-invalid', '$.A.kind'],
      ['schema-wrong-type', '$.B.critical'],
      ['schema-misplaced-field', '$.C.critical'],
      ['schema-unknown-key', '$.D.key_arg_name'],
      ['schema-misplaced-field', '$.E.key_arg_name'],
      ['schema-duplicate', '$.F.key_arg_name[1]'],
      ['schema-wrong-type', '$.G.key_arg_name'],
      ['schema-wrong-type', '$.H.key_arg_name[0]'],
    ]);
    expect(result.diagnostics[3]?.hint).toBe("Did you mean 'id'?");
  });

  it('checks descriptions', () => {
    const result = load({
      A: { description: 5, variables: [{ name: 'v', type: 'Text', description: ['x'] }] },
    });
    expect(problems(result)).toEqual([
      ['schema-wrong-type', '$.A.description'],
      ['schema-wrong-type', '$.A.variables[0].description'],
    ]);
  });

  it('reads observed on predicates and variables, true or false only', () => {
    const result = load({
      Balance: { observed: true, variables: [{ name: 'amount', type: 'Number' }] },
      ReserveInfo: {
        observed: false,
        variables: [
          { name: 'date', type: 'Date', observed: false },
          { name: 'available', type: 'Boolean', observed: true },
          { name: 'party', type: 'Number', observed: null },
        ],
      },
    });
    expect(result.diagnostics).toEqual([]);
    const schema = result.value!;
    expect(schema.predicates.get('Balance')?.observed).toBe(true);
    // Only `true` is recorded, so unmarked declarations stay as they were.
    expect(schema.predicates.get('ReserveInfo')).not.toHaveProperty('observed');
    expect(schema.predicates.get('ReserveInfo')?.variables).toEqual([
      { name: 'date', type: { kind: 'date' } },
      { name: 'available', type: { kind: 'boolean' }, observed: true },
      { name: 'party', type: { kind: 'number' } },
    ]);
  });

  it('refuses observed that is not a boolean, on actions, and on a key alone', () => {
    const result = load({
      A: { observed: 'yes', variables: [] },
      B: { variables: [{ name: 'v', type: 'Text', observed: 1 }] },
      C: { kind: 'action', observed: true, variables: [] },
      D: { kind: 'action', variables: [{ name: 'v', type: 'Text', observed: true }] },
      E: {
        key_arg_name: 'id',
        variables: [
          { name: 'id', type: 'Text', observed: true },
          { name: 'v', type: 'Text', observed: true },
        ],
      },
      F: { observed: true, key_arg_name: 'id', variables: [{ name: 'id', type: 'Text' }] },
    });
    expect(problems(result)).toEqual([
      ['schema-wrong-type', '$.A.observed'],
      ['schema-wrong-type', '$.B.variables[0].observed'],
      ['schema-misplaced-field', '$.C.observed'],
      ['schema-misplaced-field', '$.D.variables[0].observed'],
      ['schema-misplaced-field', '$.E.variables[0].observed'],
    ]);
    expect(result.diagnostics[0]?.message).toBe(
      "'observed' must be true or false; found a string.",
    );
    expect(result.diagnostics[4]?.hint).toBe(
      'Mark the whole predicate "observed": true, or leave the key unmarked.',
    );
  });

  it('collects every problem and never returns a value with errors', () => {
    const result = load({ 'bad name': { variables: [] }, Good: { variables: [] }, X: 1 });
    expect(result.ok).toBe(false);
    expect(result.value).toBeUndefined();
    expect(result.diagnostics).toHaveLength(2);
  });

  it('never throws, even when reading the value throws', () => {
    const hostile = {
      get A(): unknown {
        throw new Error('boom');
      },
    };
    const result = loadStateSchema(hostile);
    expect(result.ok).toBe(false);
    expect(problems(result)).toEqual([['schema-invalid', '$']]);
    expect(result.diagnostics[0]?.message).toContain('boom');
  });
});

describe('loadStateSchema limits', () => {
  it('bounds the number of predicates and reads only that many', () => {
    const value = Object.fromEntries(
      Array.from({ length: 5 }, (_, index) => [
        `P${index}`,
        { variables: [{ name: 'x', type: 'Strin' }] },
      ]),
    );
    const result = loadStateSchema(value, { limits: { maxPredicates: 3 } });
    expect(problems(result)).toEqual([
      ['schema-too-large', '$'],
      ['schema-unknown-type', '$.P0.variables[0].type'],
      ['schema-unknown-type', '$.P1.variables[0].type'],
      ['schema-unknown-type', '$.P2.variables[0].type'],
    ]);
  });

  it('bounds variables, enum values, descriptions, names and input length', () => {
    const limits = {
      maxVariables: 2,
      maxEnumValues: 2,
      maxDescriptionLength: 10,
      maxNameLength: 8,
    };
    const result = loadStateSchema(
      {
        A: { variables: ['a', 'b', 'c'].map((name) => ({ name, type: 'Text' })) },
        B: { variables: [{ name: 'e', type: 'Enum', enum_values: ['a', 'b', 'c'] }] },
        C: { description: 'x'.repeat(11), variables: [] },
        LongerName: { variables: [{ name: 'verylongname', type: 'Text' }] },
      },
      { limits },
    );
    expect(problems(result)).toEqual([
      ['schema-too-large', '$.A.variables'],
      ['schema-too-large', '$.B.variables[0].enum_values'],
      ['schema-too-large', '$.C.description'],
      ['schema-too-large', '$.LongerName'],
      ['schema-too-large', '$.LongerName.variables[0].name'],
    ]);
    const long = loadStateSchema('{"A": {"variables": []}}', { limits: { maxInputLength: 10 } });
    expect(problems(long)).toEqual([['schema-too-large', '$']]);
    expect(long.diagnostics[0]?.message).toContain('at most 10');
  });

  it('caps the number of diagnostics', () => {
    const value = Object.fromEntries(
      Array.from({ length: 300 }, (_, index) => [`bad name ${index}`, { variables: [] }]),
    );
    const result = loadStateSchema(value);
    expect(result.diagnostics).toHaveLength(101);
    expect(result.diagnostics.at(-1)?.code).toBe('too-many-diagnostics');
  });
});

describe('loadStateSchema: records (LANGUAGE.md §7)', () => {
  it('reads Record and List<Record> with their fields, nested up to the limit', () => {
    const result = load({
      Trip: {
        description: 'A trip.',
        variables: [
          {
            name: 'traveller',
            type: 'Record',
            fields: [
              { name: 'name', type: 'Text', description: 'Full name.' },
              { name: 'home', type: 'Record', fields: [{ name: 'city', type: 'Text' }] },
            ],
          },
          {
            name: 'legs',
            type: 'List<Record>',
            fields: [
              { name: 'on', type: 'Date' },
              { name: 'mode', type: 'Enum', enum_values: ['air', 'rail'] },
            ],
          },
        ],
      },
    });
    expect(result.diagnostics).toEqual([]);
    const [traveller, legs] = result.value?.predicates.get('Trip')?.variables ?? [];
    expect(traveller).toEqual({
      name: 'traveller',
      type: { kind: 'text' },
      jsonText: true,
      record: {
        fields: [
          { name: 'name', type: { kind: 'text' }, description: 'Full name.' },
          {
            name: 'home',
            type: { kind: 'text' },
            jsonText: true,
            record: { fields: [{ name: 'city', type: { kind: 'text' } }] },
          },
        ],
      },
    });
    expect(legs?.type).toEqual({ kind: 'list', element: 'text' });
    expect(legs?.record?.fields.map((field) => field.type.kind)).toEqual(['date', 'enum']);
  });

  it('reports missing fields, fields on other types, duplicates and nesting past the limit', () => {
    const deep = (levels: number): unknown =>
      levels === 0
        ? { name: 'leaf', type: 'Text' }
        : { name: `r${levels}`, type: 'Record', fields: [deep(levels - 1)] };
    const result = load({
      P: {
        description: '',
        variables: [
          { name: 'a', type: 'Record' },
          { name: 'b', type: 'Text', fields: [] },
          {
            name: 'c',
            type: 'Record',
            fields: [
              { name: 'x', type: 'Text' },
              { name: 'x', type: 'Number' },
            ],
          },
          deep(3),
        ],
      },
    });
    expect(problems(result)).toEqual([
      ['schema-missing-field', '$.P.variables[0].fields'],
      ['schema-misplaced-field', '$.P.variables[1].fields'],
      ['schema-duplicate', '$.P.variables[2].fields[1].name'],
      ['schema-too-large', '$.P.variables[3].fields[0].fields[0].fields'],
    ]);
  });
});
