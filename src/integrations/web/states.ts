/// <reference lib="dom" />
import type { Schema } from '../../language/index.js';
import { IntentguardDiagnosticsError } from '../../language/index.js';
import { loadStateSchema } from '../../schema/index.js';
import { errorMessage } from '../../support/error-message.js';

/** One variable of a declared state or action, as in a states file (docs/schemas.md). */
export interface StateVariable {
  readonly name: string;
  readonly type: string;
  readonly enum_values?: readonly (string | number)[];
  readonly description?: string;
  /** A fact the app reports (set only by `observe`); a proposal cannot set it. */
  readonly observed?: boolean;
  /**
   * A persistent setting (a toggle, mute, a selected filter or tab) that stays as it is
   * unless the task's spec constrains it: changing it otherwise is `revise` (soft,
   * `unplanned-change`).
   */
  readonly setting?: boolean;
}

/** One predicate: a screen's state, or an action a UI element performs. */
export interface StateDeclaration {
  readonly description?: string;
  readonly kind?: 'state' | 'action';
  readonly critical?: boolean;
  readonly key_arg_name?: string | readonly string[];
  readonly observed?: boolean;
  readonly variables: readonly StateVariable[];
}

export type StatesDeclaration = Readonly<Record<string, StateDeclaration>>;

/** States declared in code: the JSON a states file would hold, and its checked schema. */
export interface DefinedStates {
  /** The states file's content, for `intentguard formalize --states` and the HTTP service. */
  readonly json: StatesDeclaration;
  /** The checked schema, for `createGuard(spec, schema, …)`. */
  readonly schema: Schema;
  /** So that `JSON.stringify(states)` writes the states file. */
  toJSON(): StatesDeclaration;
}

/**
 * Declares an app's states and actions in code, with the same model and the same checks
 * as a states file, so that one declaration serves the page and the formalizer.
 *
 * @throws IntentguardDiagnosticsError when the declaration is not a valid states file
 *   (each diagnostic carries the JSONPath of the problem, e.g. `$.ReserveInfo.variables[1].type`).
 * @example
 * const states = defineStates({
 *   ReserveInfo: { variables: [{ name: 'time', type: 'Time' }, { name: 'available', type: 'Boolean', observed: true }] },
 *   Reserve: { kind: 'action', variables: [] },
 * });
 * writeFileSync('states.json', JSON.stringify(states, null, 2));
 */
export function defineStates(declarations: StatesDeclaration, id = 'web'): DefinedStates {
  // A copy through JSON: what is checked is exactly what is exported, and later changes
  // to the caller's object cannot change the schema behind the guard's back.
  let json: StatesDeclaration;
  try {
    json = JSON.parse(JSON.stringify(declarations)) as StatesDeclaration;
  } catch (error) {
    throw new TypeError(`defineStates: the declaration must be JSON data (${errorMessage(error)})`);
  }
  const loaded = loadStateSchema(json, { id });
  if (!loaded.ok) throw new IntentguardDiagnosticsError(loaded.diagnostics);
  const frozen = deepFreeze(json);
  return Object.freeze({ json: frozen, schema: loaded.value, toJSON: () => frozen });
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
