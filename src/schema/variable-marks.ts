import type { PredicateKind } from '../language/schema-model.js';
import { abbreviate, describeValue } from './json-input.js';
import { childPath } from './json-path.js';
import type { LoadContext } from './load-context.js';
import type { StateVariable } from './state-variables.js';

/**
 * The boolean marks of a states file's variables (FORMATS.md §1): `"observed": true`, a
 * fact only the app reports, and `"setting": true`, a persistent setting the user expects
 * to stay as it is unless the task names it (LANGUAGE.md §9, frame conditions).
 */
export type VariableMark = 'observed' | 'setting';

/** Why each mark does not belong on an action's variable or on a key, with the hint. */
const misplaced: Readonly<
  Record<
    VariableMark,
    {
      readonly onAction: string;
      readonly onKey: (key: string) => string;
      readonly keyHint: string;
    }
  >
> = {
  observed: {
    onAction: 'Only variables of state predicates are observed',
    onKey: (key) =>
      `The key '${key}' cannot be observed alone: a proposal names an instance by its key.`,
    keyHint: 'Mark the whole predicate "observed": true, or leave the key unmarked.',
  },
  setting: {
    onAction: 'Only variables of state predicates are settings',
    onKey: (key) =>
      `The key '${key}' cannot be a setting: it names an instance rather than holding a value.`,
    keyHint: 'Mark the variable that holds the setting instead.',
  },
};

/**
 * A mark on a variable: true or false (`null` counts as absent). Anything else is an
 * error, never read as false: a misspelt mark would silently drop what it protects.
 */
export function readVariableMark(
  value: unknown,
  path: string,
  mark: VariableMark,
  context: LoadContext,
): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  context.problem(
    'schema-wrong-type',
    path,
    `'${mark}' must be true or false; found ${describeValue(value)}.`,
  );
  return false;
}

/**
 * Marked variables belong to state predicates and are not keys: an action's arguments
 * are what the agent proposes each time, and a proposal names an instance by its key.
 */
export function checkVariableMarks(
  variables: readonly StateVariable[],
  keys: readonly string[],
  path: string,
  name: string,
  kind: PredicateKind,
  context: LoadContext,
): void {
  for (const variable of variables)
    for (const mark of ['observed', 'setting'] as const) {
      if (variable.declaration[mark] !== true) continue;
      const markPath = childPath(childPath(childPath(path, 'variables'), variable.index), mark);
      const why = misplaced[mark];
      if (kind === 'action') {
        context.problem(
          'schema-misplaced-field',
          markPath,
          `${why.onAction}; '${abbreviate(name)}' is an action, whose arguments the agent proposes.`,
          `Remove "${mark}", or make the predicate a state.`,
        );
      } else if (keys.includes(variable.declaration.name)) {
        context.problem(
          'schema-misplaced-field',
          markPath,
          why.onKey(variable.declaration.name),
          why.keyHint,
        );
      }
    }
}

/**
 * `"setting"` on a record's field: refused, since only a state's own variables are
 * settings. Always false: a field is never one.
 */
export function refuseSettingField(
  value: Readonly<Record<string, unknown>>,
  path: string,
  context: LoadContext,
): false {
  if (value['setting'] === undefined) return false;
  context.problem(
    'schema-misplaced-field',
    childPath(path, 'setting'),
    "Only a state's own variables are settings, not a record's fields.",
    'Mark the variable that holds the record instead.',
  );
  return false;
}
