import {
  formatType,
  type RecordShape,
  type VariableDeclaration,
  type VariableType,
} from '../language/schema-model.js';
import { didYouMean } from '../language/suggest.js';
import { isRecord } from '../support/is-record.js';
import { checkNameLength, readDescription } from './fields.js';
import { abbreviate, describeValue } from './json-input.js';
import { childPath } from './json-path.js';
import type { LoadContext } from './load-context.js';
import { sanitizeName } from './names.js';
import { parseJsonStateType, parseRecordStateType, parseStateType } from './state-types.js';
import { readVariableMark, refuseSettingField } from './variable-marks.js';

const typeHint =
  'Types are Text, Number, Boolean, Date, Time, DateTime, Enum (with enum_values), List<Text>, List<Number>, Json, List<Json>, Record and List<Record> (with fields).';

/** A variable as read, with the name the file gave it (which keys may use). */
export interface StateVariable {
  readonly declaration: VariableDeclaration;
  readonly originalName: string;
  /** Its position in the file's `variables` array, for diagnostics' paths. */
  readonly index: number;
}

/** The `variables` array of a predicate in a states file (FORMATS.md §1). */
export function readStateVariables(
  value: unknown,
  path: string,
  predicateName: string,
  context: LoadContext,
  /** Records this array sits in: 0 for a predicate's variables, 1 for a record's fields. */
  depth = 0,
): StateVariable[] {
  if (value === undefined && depth > 0) {
    context.problem(
      'schema-missing-field',
      path,
      `The record '${abbreviate(predicateName)}' has no 'fields'.`,
      'Give its fields as "fields": [{ "name": …, "type": … }].',
    );
    return [];
  }
  if (value === undefined) {
    context.problem(
      'schema-missing-field',
      path,
      `The predicate '${abbreviate(predicateName)}' has no 'variables'.`,
      'Give its variables as "variables": [{ "name": …, "type": … }], or [] for none.',
    );
    return [];
  }
  if (!Array.isArray(value)) {
    context.problem(
      'schema-wrong-type',
      path,
      `'variables' must be an array; found ${describeValue(value)}.`,
    );
    return [];
  }
  const { maxVariables } = context.limits;
  if (value.length > maxVariables) {
    context.problem(
      'schema-too-large',
      path,
      `The predicate '${abbreviate(predicateName)}' has ${value.length} variables; at most ${maxVariables} are accepted.`,
    );
  }
  const variables: StateVariable[] = [];
  const seen = new Set<string>();
  value.slice(0, maxVariables).forEach((element: unknown, index) => {
    const elementPath = childPath(path, index);
    const variable = readStateVariable(element, elementPath, index, context, depth);
    if (variable === undefined) return;
    if (seen.has(variable.declaration.name)) {
      context.bag.report(
        'schema-duplicate',
        { path: childPath(elementPath, 'name') },
        { name: variable.declaration.name },
      );
      return;
    }
    seen.add(variable.declaration.name);
    variables.push(variable);
  });
  return variables;
}

function readStateVariable(
  value: unknown,
  path: string,
  index: number,
  context: LoadContext,
  depth = 0,
): StateVariable | undefined {
  if (!isRecord(value)) {
    context.problem(
      'schema-wrong-type',
      path,
      `A variable must be an object with a name and a type; found ${describeValue(value)}.`,
    );
    return undefined;
  }
  const namePath = childPath(path, 'name');
  const originalName = value['name'];
  if (typeof originalName !== 'string') {
    context.problem(
      originalName === undefined ? 'schema-missing-field' : 'schema-wrong-type',
      namePath,
      originalName === undefined
        ? 'This variable has no name.'
        : `A variable name must be a string; found ${describeValue(originalName)}.`,
    );
    return undefined;
  }
  // Names the language cannot write are rewritten rather than refused: the VeriSafe
  // files, which must load unchanged, have `3d_enabled` and `submission rule description`.
  const name = checkNameLength(originalName, 'variable', namePath, context)
    ? sanitizeName(originalName)
    : undefined;
  if (name === undefined && originalName.length <= context.limits.maxNameLength) {
    context.bag.report(
      'schema-invalid-name',
      { path: namePath },
      { name: abbreviate(originalName), what: 'variable' },
    );
  }
  // The type and description are read even under a bad name, to report all problems at once.
  const type = readStateType(value, path, name ?? abbreviate(originalName), context);
  const description = readDescription(value, path, context);
  const observed = readVariableMark(
    value['observed'],
    childPath(path, 'observed'),
    'observed',
    context,
  );
  const setting =
    depth === 0
      ? readVariableMark(value['setting'], childPath(path, 'setting'), 'setting', context)
      : refuseSettingField(value, path, context);
  if (name === undefined) return undefined;
  const spelling = typeof value['type'] === 'string' ? value['type'] : '';
  const record = readRecordFields(value, path, name, spelling, context, depth);
  const json = parseJsonStateType(spelling) !== undefined || record !== undefined;
  const declaration: VariableDeclaration = {
    name,
    type: type ?? { kind: 'text' },
    ...(json ? { jsonText: true } : {}),
    ...(record ? { record } : {}),
    ...(description ? { description } : {}),
    ...(name === originalName ? {} : { sourcePath: [originalName] }),
    ...(observed ? { observed } : {}),
    ...(setting ? { setting } : {}),
  };
  return { declaration, originalName, index };
}

/**
 * The `fields` of a `Record` / `List<Record>` variable, read like variables; nesting is
 * bounded by `maxFlattenDepth`. `fields` on any other type is an error.
 */
function readRecordFields(
  value: Readonly<Record<string, unknown>>,
  path: string,
  name: string,
  spelling: string,
  context: LoadContext,
  depth: number,
): RecordShape | undefined {
  const fieldsPath = childPath(path, 'fields');
  if (parseRecordStateType(spelling) === undefined) {
    if (value['fields'] !== undefined)
      context.problem(
        'schema-misplaced-field',
        fieldsPath,
        `'fields' is only for Record and List<Record>; '${name}' is ${spelling}.`,
      );
    return undefined;
  }
  const { maxFlattenDepth } = context.limits;
  if (depth + 1 >= maxFlattenDepth) {
    context.problem(
      'schema-too-large',
      fieldsPath,
      `Records nest at most ${maxFlattenDepth} levels deep.`,
      'Make the deepest ones Json.',
    );
    return undefined;
  }
  const fields = readStateVariables(value['fields'], fieldsPath, name, context, depth + 1);
  return { fields: fields.map((field) => field.declaration) };
}

function readStateType(
  record: Readonly<Record<string, unknown>>,
  path: string,
  name: string,
  context: LoadContext,
): VariableType | undefined {
  const typePath = childPath(path, 'type');
  const spelling = record['type'];
  if (typeof spelling !== 'string') {
    context.problem(
      spelling === undefined ? 'schema-missing-field' : 'schema-wrong-type',
      typePath,
      spelling === undefined
        ? `The variable '${name}' has no type.`
        : `A type must be a string; found ${describeValue(spelling)}.`,
      typeHint,
    );
    return undefined;
  }
  const json = parseJsonStateType(spelling) ?? parseRecordStateType(spelling);
  if (json !== undefined) return json;
  const type = parseStateType(spelling);
  if (type === undefined) {
    context.bag.report('schema-unknown-type', { path: typePath }, { type: abbreviate(spelling) });
    return undefined;
  }
  const enumPath = childPath(path, 'enum_values');
  if (type === 'enum') {
    return { kind: 'enum', values: readEnumValues(record['enum_values'], enumPath, name, context) };
  }
  if (record['enum_values'] !== undefined) {
    context.problem(
      'schema-misplaced-field',
      enumPath,
      `'enum_values' is only for Enum variables; '${name}' is ${formatType(type)}.`,
      'Make the type Enum, or remove enum_values.',
    );
  }
  return type;
}

function readEnumValues(
  value: unknown,
  path: string,
  name: string,
  context: LoadContext,
): string[] {
  const hint = 'List its values as "enum_values": ["…", "…"].';
  if (value === undefined) {
    context.problem(
      'schema-missing-field',
      path,
      `The Enum variable '${name}' has no enum_values.`,
      hint,
    );
    return [];
  }
  if (!Array.isArray(value) || value.length === 0) {
    context.problem(
      Array.isArray(value) ? 'schema-invalid' : 'schema-wrong-type',
      path,
      `The enum_values of '${name}' must be a non-empty array; found ${Array.isArray(value) ? 'an empty array' : describeValue(value)}.`,
      hint,
    );
    return [];
  }
  const { maxEnumValues, maxEnumValueLength } = context.limits;
  if (value.length > maxEnumValues) {
    context.problem(
      'schema-too-large',
      path,
      `'${name}' has ${value.length} enum values; at most ${maxEnumValues} are accepted.`,
    );
  }
  const values: string[] = [];
  value.slice(0, maxEnumValues).forEach((element: unknown, index) => {
    const elementPath = childPath(path, index);
    // Numbers are taken as their text so that `[1, 2, "3+"]` works as written.
    const text =
      typeof element === 'number' && Number.isFinite(element) ? String(element) : element;
    if (typeof text !== 'string' || text.trim() === '') {
      context.problem(
        typeof text === 'string' ? 'schema-invalid' : 'schema-wrong-type',
        elementPath,
        `An enum value must be a non-empty string; found ${typeof text === 'string' ? 'an empty string' : describeValue(text)}.`,
      );
      return;
    }
    if (text.length > maxEnumValueLength) {
      context.problem(
        'schema-too-large',
        elementPath,
        `This enum value is ${text.length} characters long; at most ${maxEnumValueLength} are accepted.`,
      );
      return;
    }
    if (values.includes(text)) {
      context.bag.report('schema-duplicate', { path: elementPath }, { name: abbreviate(text) });
      return;
    }
    values.push(text);
  });
  return values;
}

/** `key_arg_name`: a variable name or an array of them, given as written in the file or rewritten. */
export function readStateKeys(
  value: unknown,
  path: string,
  variables: readonly StateVariable[],
  context: LoadContext,
): string[] {
  if (value === undefined || value === null) return [];
  const hint = 'Give a variable name or an array of variable names.';
  if (typeof value !== 'string' && !Array.isArray(value)) {
    context.problem(
      'schema-wrong-type',
      path,
      `'key_arg_name' must be a string or an array; found ${describeValue(value)}.`,
      hint,
    );
    return [];
  }
  const names: readonly unknown[] = typeof value === 'string' ? [value] : value;
  const keys: string[] = [];
  names.slice(0, context.limits.maxVariables).forEach((name, index) => {
    const keyPath = Array.isArray(value) ? childPath(path, index) : path;
    if (typeof name !== 'string') {
      context.problem(
        'schema-wrong-type',
        keyPath,
        `A key must be a variable name; found ${describeValue(name)}.`,
        hint,
      );
      return;
    }
    const variable = variables.find(
      (candidate) => candidate.originalName === name || candidate.declaration.name === name,
    );
    if (variable === undefined) {
      const candidates = variables.map((candidate) => candidate.declaration.name);
      context.problem(
        'schema-unknown-key',
        keyPath,
        `The key '${abbreviate(name)}' is not a variable of this predicate.`,
        didYouMean(name, candidates) || `Its variables are: ${candidates.join(', ') || 'none'}.`,
      );
      return;
    }
    if (keys.includes(variable.declaration.name)) {
      context.bag.report(
        'schema-duplicate',
        { path: keyPath },
        { name: variable.declaration.name },
      );
      return;
    }
    keys.push(variable.declaration.name);
  });
  return keys;
}
