import type { PathCheck } from '../language/check-compiled-spec.js';
import type { bindingData, compileAccessTest } from './access-test.js';
import type { boundText, describeBound, pathText, someElementText } from './binding-feedback.js';
import type { comparisonsText } from './describe-comparisons.js';
import type { compileBinding, joinHolds, scopeWitnesses } from './join.js';
import type { joinPlan } from './join-plan.js';
import type { recordArgumentProblem } from './record-values.js';
import type { describeScope, scopeReason } from './scope-feedback.js';
import type { compileScopes, scopePlanPatterns } from './universal.js';

/**
 * The evaluators of paths, filters and bindings (access-test.ts, join.ts; LANGUAGE.md §7),
 * the reader of record arguments (record-values.ts) and the check of a compiled spec's
 * paths and bindings (language/check-compiled-paths.ts): the engine part `paths`
 * (engine-parts.ts). Node entry points pass them; a page's guard loads them only for a
 * compiled spec that uses them (load-parts.ts), so a page whose spec compares plain
 * variables of a schema without records never downloads them. A spec that needs them
 * without them is refused when it is compiled or read: a path or a binding is never taken
 * as holding, a record argument never taken as fitting.
 */

export interface PathEvaluators {
  readonly bindingData: typeof bindingData;
  readonly compileAccessTest: typeof compileAccessTest;
  readonly compileBinding: typeof compileBinding;
  readonly joinHolds: typeof joinHolds;
  readonly joinPlan: typeof joinPlan;
  /** Why a rule's `not (…)` or `forall(…)` does not hold (LANGUAGE.md §9), for feedback. */
  readonly scopeWitnesses: typeof scopeWitnesses;
  /** Scopes compiled for the join (universal.ts), with their words (scope-feedback.ts). */
  readonly compileScopes: typeof compileScopes;
  readonly scopePlanPatterns: typeof scopePlanPatterns;
  readonly scopeReason: typeof scopeReason;
  /** Conditions on bindings in plain words (describe-comparisons.ts). */
  readonly comparisonsText: typeof comparisonsText;
  readonly describeScope: typeof describeScope;
  readonly recordArgumentProblem: typeof recordArgumentProblem;
  /** The words of reasons about paths and bindings (binding-feedback.ts). */
  readonly describeBound: typeof describeBound;
  readonly pathText: typeof pathText;
  readonly someElementText: typeof someElementText;
  readonly boundText: typeof boundText;
  /** The type check of paths and bindings as a compiled spec is read (`ReadCompiledSpecOptions.pathCheck`). */
  readonly compiledChecks: PathCheck;
}
