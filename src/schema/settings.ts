import type { PredicateKind } from '../language/schema-model.js';
import { abbreviate, describeValue } from './json-input.js';
import { childPath } from './json-path.js';
import type { LoadContext } from './load-context.js';
import type { StateVariable } from './state-variables.js';

/**
 * `"setting": true` on a variable (FORMATS.md §1, LANGUAGE.md §9 frame conditions): a
 * persistent setting the user expects to stay as it is unless the task names it. Anything
 * but a boolean is an error, never read as false: a misspelt marking would silently drop
 * the frame condition.
 */
export function readSettingVariable(value: unknown, path: string, context: LoadContext): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  context.problem(
    'schema-wrong-type',
    path,
    `'setting' must be true or false; found ${describeValue(value)}.`,
  );
  return false;
}

/**
 * Settings are variables of state predicates, other than keys: an action's arguments are
 * what the agent proposes each time, and a key names an instance rather than holding a
 * value that could change. A record's field is marked on the variable holding the record.
 */
export function checkSettingVariables(
  variables: readonly StateVariable[],
  keys: readonly string[],
  path: string,
  name: string,
  kind: PredicateKind,
  context: LoadContext,
): void {
  for (const variable of variables) {
    if (variable.declaration.setting !== true) continue;
    const settingPath = childPath(
      childPath(childPath(path, 'variables'), variable.index),
      'setting',
    );
    if (kind === 'action') {
      context.problem(
        'schema-misplaced-field',
        settingPath,
        `Only variables of state predicates are settings; '${abbreviate(name)}' is an action, whose arguments the agent proposes.`,
        'Remove "setting", or make the predicate a state.',
      );
    } else if (keys.includes(variable.declaration.name)) {
      context.problem(
        'schema-misplaced-field',
        settingPath,
        `The key '${variable.declaration.name}' cannot be a setting: it names an instance rather than holding a value.`,
        'Mark the variable that holds the setting instead.',
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
