import type { Result } from '../language/result.js';
import {
  createSchema,
  type PredicateDeclaration,
  type PredicateKind,
  type Schema,
} from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';
import { checkNameLength, readDescription } from './fields.js';
import { abbreviate, describeValue, type JsonRecord, readJsonInput } from './json-input.js';
import { childPath } from './json-path.js';
import type { SchemaLimits } from './limits.js';
import { type LoadContext, runLoader } from './load-context.js';
import { loadToolSchema } from './load-tools.js';
import { isIdentifier, isReservedPredicateName } from './names.js';
import { readStateKeys, readStateVariables } from './state-variables.js';
import { isToolsAndStates, loadToolsAndStates } from './tools-and-states.js';
import { checkVariableMarks } from './variable-marks.js';

export interface LoadStateSchemaOptions {
  /** The schema's id; defaults to `'states'`. */
  readonly id?: string;
  /** Overrides of `defaultSchemaLimits`. */
  readonly limits?: Partial<SchemaLimits>;
}

/**
 * Loads a states file (FORMATS.md §1): a JSON object keyed by predicate name, or an
 * array of `{ name, description, variables }`. Takes JSON text or an already parsed
 * value. Never throws: every problem is a diagnostic with a JSONPath, all are collected,
 * and any error fails the load.
 *
 * @example
 * const result = loadStateSchema('{"Alarm": {"description": "One alarm.", "key_arg_name": "id",' +
 *   ' "variables": [{"name": "id", "type": "Text"}, {"name": "time", "type": "Time"}]}}');
 * if (result.ok) result.value.predicates.get('Alarm')?.keys; // ['id']
 */
export function loadStateSchema(
  input: unknown,
  options: LoadStateSchemaOptions = {},
): Result<Schema> {
  return runLoader(options.limits, (context) => {
    const read = readJsonInput(input, context);
    if (read === undefined) return undefined;
    // The one-file schema given where a states file is expected reads the same (FORMATS.md §1).
    if (isToolsAndStates(read.value))
      return loadToolsAndStates(read.value, context, {
        tools: (tools) => loadToolSchema(tools, { limits: context.limits }),
        states: (states) => loadStateSchema(states, { ...options, limits: context.limits }),
      });
    const entries = predicateEntries(read.value, context);
    if (entries === undefined) return undefined;
    const predicates: PredicateDeclaration[] = [];
    const seen = new Set<string>();
    for (const entry of entries) {
      if (seen.has(entry.name)) {
        context.bag.report(
          'schema-duplicate',
          { path: entry.namePath },
          { name: abbreviate(entry.name) },
        );
        continue;
      }
      seen.add(entry.name);
      const predicate = readPredicate(entry, context);
      if (predicate !== undefined) predicates.push(predicate);
    }
    return createSchema(options.id ?? 'states', predicates);
  });
}

interface PredicateEntry {
  readonly name: string;
  readonly body: unknown;
  /** Where the predicate's object is. */
  readonly path: string;
  /** Where its name is: the key itself in the object form, `$[i].name` in the array form. */
  readonly namePath: string;
}

const shapeHint =
  'Write { "Name": { "description": "…", "variables": [{ "name": "…", "type": "Text" }] } }.';

function predicateEntries(value: unknown, context: LoadContext): PredicateEntry[] | undefined {
  if (looksLikeToolSchema(value)) {
    context.problem(
      'schema-wrong-format',
      '$',
      'This is a tool schema, not a states file.',
      'Load it as tools (--tools FILE).',
    );
    return undefined;
  }
  const { maxPredicates } = context.limits;
  if (Array.isArray(value)) {
    checkPredicateCount(value.length, context);
    const entries: PredicateEntry[] = [];
    value.slice(0, maxPredicates).forEach((element: unknown, index) => {
      const path = childPath('$', index);
      const name = isRecord(element) ? element['name'] : undefined;
      if (typeof name === 'string') {
        entries.push({ name, body: element, path, namePath: childPath(path, 'name') });
      } else if (isRecord(element)) {
        context.problem(
          name === undefined ? 'schema-missing-field' : 'schema-wrong-type',
          childPath(path, 'name'),
          name === undefined
            ? `Predicate ${index} has no name.`
            : `A predicate name must be a string; found ${describeValue(name)}.`,
        );
      } else {
        context.problem(
          'schema-wrong-type',
          path,
          `Predicate ${index} must be an object with a name, a description and variables; found ${describeValue(element)}.`,
        );
      }
    });
    return entries;
  }
  if (!isRecord(value)) {
    context.problem(
      'schema-wrong-type',
      '$',
      `A states file must be a JSON object keyed by predicate name, or an array of predicates; found ${describeValue(value)}.`,
      shapeHint,
    );
    return undefined;
  }
  const keys = Object.keys(value);
  checkPredicateCount(keys.length, context);
  return keys.slice(0, maxPredicates).map((name) => {
    const path = childPath('$', name);
    return { name, body: value[name], path, namePath: path };
  });
}

function checkPredicateCount(count: number, context: LoadContext): void {
  const { maxPredicates } = context.limits;
  if (count <= maxPredicates) return;
  context.problem(
    'schema-too-large',
    '$',
    `The schema declares ${count} predicates; at most ${maxPredicates} are accepted.`,
  );
}

/** Tool lists handed to the states loader by mistake get a pointed message, not dozens. */
function looksLikeToolSchema(value: unknown): boolean {
  if (isRecord(value)) return Array.isArray(value['tools']);
  if (!Array.isArray(value)) return false;
  const first: unknown = value[0];
  return (
    isRecord(first) &&
    (first['type'] === 'function' || 'inputSchema' in first || 'name_for_model' in first)
  );
}

function readPredicate(
  entry: PredicateEntry,
  context: LoadContext,
): PredicateDeclaration | undefined {
  const { name, body, path, namePath } = entry;
  const nameIsValid = checkPredicateName(name, namePath, context);
  if (!isRecord(body)) {
    context.problem(
      'schema-wrong-type',
      path,
      `The predicate '${abbreviate(name)}' must be an object with a description and variables; found ${describeValue(body)}.`,
      shapeHint,
    );
    return undefined;
  }
  const kind = readKind(body, path, context);
  const critical = readCritical(body, path, name, kind, context);
  const description = readDescription(body, path, context);
  const variables = readStateVariables(
    body['variables'],
    childPath(path, 'variables'),
    name,
    context,
  );
  const keysPath = childPath(path, 'key_arg_name');
  const keys = readStateKeys(body['key_arg_name'], keysPath, variables, context);
  if (kind === 'action' && keys.length > 0) {
    context.problem(
      'schema-misplaced-field',
      keysPath,
      `Only state predicates have keys; '${abbreviate(name)}' is an action.`,
      'Remove key_arg_name, or make the predicate a state.',
    );
  }
  const observed = readObserved(body, path, name, kind, context);
  const source = readSource(body, path, name, kind, context);
  checkVariableMarks(variables, keys, path, name, kind, context);
  if (!nameIsValid) return undefined;
  return {
    name,
    kind,
    description,
    variables: variables.map((variable) => variable.declaration),
    keys,
    critical,
    ...(observed ? { observed } : {}),
    ...(source ? { source } : {}),
  };
}

/**
 * `"source": "user"` on a state (LANGUAGE.md §8): facts the user states in the
 * instruction, set only by an intent's `given` lines — never by a proposal or an
 * observation.
 */
function readSource(
  body: JsonRecord,
  path: string,
  name: string,
  kind: PredicateKind,
  context: LoadContext,
): 'user' | undefined {
  const source = body['source'];
  if (source === undefined || source === null) return undefined;
  const sourcePath = childPath(path, 'source');
  if (source !== 'user') {
    context.problem(
      'schema-invalid',
      sourcePath,
      `'source' must be "user"; found ${describeValue(source)}.`,
      'Mark with "source": "user" the facts the user states in the instruction; leave it out elsewhere.',
    );
    return undefined;
  }
  if (kind === 'action') {
    context.problem(
      'schema-misplaced-field',
      sourcePath,
      `Only state predicates hold what the user said; '${abbreviate(name)}' is an action, which the agent proposes.`,
      'Remove "source", or make the predicate a state.',
    );
    return undefined;
  }
  return 'user';
}

/** `observed` on a predicate: every fact of it is reported by the app, never proposed. */
function readObserved(
  body: JsonRecord,
  path: string,
  name: string,
  kind: PredicateKind,
  context: LoadContext,
): boolean {
  const observed = body['observed'];
  if (observed === undefined || observed === null) return false;
  const observedPath = childPath(path, 'observed');
  if (typeof observed !== 'boolean') {
    context.problem(
      'schema-wrong-type',
      observedPath,
      `'observed' must be true or false; found ${describeValue(observed)}.`,
    );
    return false;
  }
  if (observed && kind === 'action') {
    context.problem(
      'schema-misplaced-field',
      observedPath,
      `Only state predicates are observed; '${abbreviate(name)}' is an action, which the agent proposes.`,
      'Remove "observed", or make the predicate a state.',
    );
  }
  return observed;
}

function checkPredicateName(name: string, path: string, context: LoadContext): boolean {
  if (!checkNameLength(name, 'predicate', path, context)) return false;
  if (!isIdentifier(name)) {
    context.bag.report(
      'schema-invalid-name',
      { path },
      { name: abbreviate(name), what: 'predicate' },
    );
    return false;
  }
  if (isReservedPredicateName(name)) {
    context.problem(
      'schema-reserved-name',
      path,
      `'${name}' is reserved: Done is the head that finishes a task, so no predicate can have its name.`,
      `Rename the predicate, e.g. '${name}State'.`,
    );
    return false;
  }
  return true;
}

function readKind(body: JsonRecord, path: string, context: LoadContext): PredicateKind {
  const kind = body['kind'];
  if (kind === undefined || kind === null) return 'state';
  const normalized = typeof kind === 'string' ? kind.trim().toLowerCase() : undefined;
  if (normalized === 'state' || normalized === 'action') return normalized;
  context.problem(
    'schema-invalid',
    childPath(path, 'kind'),
    `'kind' must be "state" or "action"; found ${typeof kind === 'string' ? `"${abbreviate(kind)}"` : describeValue(kind)}.`,
  );
  return 'state';
}

function readCritical(
  body: JsonRecord,
  path: string,
  name: string,
  kind: PredicateKind,
  context: LoadContext,
): boolean {
  const critical = body['critical'];
  const criticalPath = childPath(path, 'critical');
  if (critical === undefined || critical === null) return false;
  if (typeof critical !== 'boolean') {
    context.problem(
      'schema-wrong-type',
      criticalPath,
      `'critical' must be true or false; found ${describeValue(critical)}.`,
    );
    return false;
  }
  if (critical && kind !== 'action') {
    context.problem(
      'schema-misplaced-field',
      criticalPath,
      `Only actions can be critical; '${abbreviate(name)}' is a state predicate.`,
      'Add "kind": "action", or remove "critical".',
    );
  }
  return critical;
}
