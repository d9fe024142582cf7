import { hasCompiledPathCheck, provideCompiledPathCheck } from '../language/check-compiled-spec.js';
import { IntentguardError } from '../support/errors.js';
import type { bindingData, compileAccessTest } from './access-test.js';
import type { describeBound, pathText, someElementText } from './binding-feedback.js';
import type { compileBinding, joinHolds } from './join.js';
import type { joinPlan } from './join-plan.js';
import type { recordArgumentProblem } from './record-values.js';

/**
 * Where compiled specs find the evaluators of paths, filters and bindings (access-test.ts,
 * join.ts; LANGUAGE.md §7) and the reader of record arguments (record-values.ts). They are
 * registered at once wherever the engine is imported whole (engine/index.ts, the root
 * guard), and loaded on demand by a page's guard from a compiled spec that uses them
 * (`loadPathEvaluators`), so a page whose spec compares plain variables of a schema
 * without records never downloads them. A spec that needs them without them is refused
 * when it is compiled: a path or a binding is never taken as holding, a record argument
 * never taken as fitting.
 */

export interface PathEvaluators {
  readonly bindingData: typeof bindingData;
  readonly compileAccessTest: typeof compileAccessTest;
  readonly compileBinding: typeof compileBinding;
  readonly joinHolds: typeof joinHolds;
  readonly joinPlan: typeof joinPlan;
  readonly recordArgumentProblem: typeof recordArgumentProblem;
  /** The words of reasons about paths and bindings (binding-feedback.ts). */
  readonly describeBound: typeof describeBound;
  readonly pathText: typeof pathText;
  readonly someElementText: typeof someElementText;
}

let registered: PathEvaluators | undefined;

export function providePathEvaluators(evaluators: PathEvaluators): void {
  registered ??= evaluators;
}

export function pathEvaluators(): PathEvaluators {
  if (registered === undefined)
    throw new IntentguardError({
      code: 'missing-part',
      message:
        'The spec uses paths, filters or bindings, or its schema records, and their evaluators are not loaded (loadPathEvaluators).',
    });
  return registered;
}

/**
 * Loads and registers the evaluators, with the check of a compiled spec's paths and
 * bindings that a spec using them needs as it is read (a no-op where they are registered).
 */
export async function loadPathEvaluators(): Promise<void> {
  if (registered !== undefined && hasCompiledPathCheck()) return;
  const part = await import('./on-demand-part.js');
  providePathEvaluators(part.evaluators);
  provideCompiledPathCheck(part.checkPathConstraint);
}
