import { type CheckedPattern, ruleStatePatterns, type Spec } from '../language/index.js';
import type { CompiledPredicate } from './compiled-spec.js';
import { describePredicate } from './describe.js';
import type { StateUpdate, StateView } from './state.js';
import { formatValue, type Value, valueKey } from './values.js';
import type { Reason } from './verdict.js';

/**
 * The frame conditions of a spec (LANGUAGE.md §9): the settings its schema marks
 * (`"setting": true`) that no rule or guard of the spec constrains. Such a setting is the
 * user's, and stays as it is: a proposal whose anticipated updates change it is `revise`
 * (soft, `unplanned-change`), so that a deliberate intermediate step still goes through
 * when proposed again (decide-soft.ts). A setting the spec constrains is judged by its
 * constraints alone, and the app's own observations are never checked here: only what
 * the agent proposes is its deviation.
 */
export type FrameCheck = (
  updates: readonly StateUpdate[],
  committed: StateView,
  maxEcho: number,
) => Reason[];

/**
 * Builds the check of a spec, for `compileSpec`; undefined when every setting the schema
 * marks is constrained by the spec (nothing to check). An engine part (engine-parts.ts
 * `frame`), loaded by a page only when its schema marks a setting.
 *
 * @example
 * const check = frameConditions(spec, compiled.predicates);
 * check?.(proposalUpdates, store, 80); // [{ code: 'unplanned-change', variable: 'audio_status', … }]
 */
export function frameConditions(
  spec: Spec,
  predicates: ReadonlyMap<string, CompiledPredicate>,
): FrameCheck | undefined {
  const constrained = constrainedVariables(spec);
  /** Predicate index → the indexes of its unconstrained settings. */
  const free = new Map<number, number[]>();
  for (const predicate of predicates.values()) {
    if (predicate.declaration.kind !== 'state') continue;
    const indexes: number[] = [];
    predicate.variables.forEach((variable, index) => {
      if (variable.setting === true && !constrained.has(variableKey(predicate.name, variable.name)))
        indexes.push(index);
    });
    if (indexes.length > 0) free.set(predicate.index, indexes);
  }
  if (free.size === 0) return undefined;
  return (updates, committed, maxEcho) => {
    const changes: Reason[] = [];
    for (const update of updates) {
      const settings = free.get(update.predicate.index);
      if (settings === undefined) continue;
      const before = committed.instance(update.predicate, update.key);
      // A new instance of a keyed state (a new alarm with its toggle) changes no setting
      // the user had; a single-instance state is there from the start, observed or not.
      if (before === undefined && update.predicate.keyIndexes.length > 0) continue;
      // Deleting the instance that holds a setting changes it too: otherwise a keyed
      // setting could be changed by deleting its instance and adding it anew.
      if (update.operation === 'delete') {
        for (const variable of settings)
          pushChange(changes, update.predicate, variable, before?.[variable], undefined, maxEcho);
        continue;
      }
      for (const [variable, value] of update.assignments)
        if (settings.includes(variable))
          pushChange(changes, update.predicate, variable, before?.[variable], value, maxEcho);
    }
    return changes;
  };
}

function pushChange(
  changes: Reason[],
  predicate: CompiledPredicate,
  variable: number,
  before: Value | undefined,
  after: Value | undefined,
  maxEcho: number,
): void {
  if (before === undefined && after === undefined) return;
  if (before !== undefined && after !== undefined && valueKey(before) === valueKey(after)) return;
  const declaration = predicate.variables[variable];
  if (declaration === undefined) return;
  const shown = (value: Value | undefined) =>
    value === undefined ? 'not observed' : formatValue(value, declaration.type, maxEcho);
  const from = shown(before);
  const to = after === undefined ? 'cleared' : shown(after);
  changes.push({
    code: 'unplanned-change',
    predicate: predicate.name,
    variable: declaration.name,
    expected: from,
    actual: to,
    message: `This step would change the setting ${declaration.name} of ${describePredicate(predicate.declaration)} from ${from} to ${to}, which the task does not ask for; leave it as it is.`,
  });
}

/** `Predicate.variable` for every variable some pattern of a rule or guard constrains. */
function constrainedVariables(spec: Spec): Set<string> {
  const found = new Set<string>();
  const visit = (pattern: CheckedPattern | undefined) => {
    if (pattern === undefined) return;
    for (const constraint of pattern.constraints)
      found.add(variableKey(pattern.predicate.name, constraint.variable.name));
  };
  for (const rule of spec.rules) ruleStatePatterns(rule).forEach(visit);
  for (const guard of spec.guards) visit(guard.pattern);
  return found;
}

function variableKey(predicate: string, variable: string): string {
  return `${predicate}\u0000${variable}`;
}
