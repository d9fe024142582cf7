import { compiledPathChecks } from '../language/check-compiled-paths.js';
import { confusablesFrom } from '../language/unicode/skeleton.js';
import { bindingData, compileAccessTest } from './access-test.js';
import { refuseAnswer } from './answer-refusal.js';
import { boundText, describeBound, pathText, someElementText } from './binding-feedback.js';
import { comparisonsText } from './describe-comparisons.js';
import { frameConditions } from './frame-conditions.js';
import { givenUpdates } from './given-facts.js';
import { compileBinding, joinHolds, scopeWitnesses } from './join.js';
import { joinPlan } from './join-plan.js';
import { lexicalSimilarity } from './lexical-similarity.js';
import type { PathEvaluators } from './path-evaluators.js';
import { policyComposition } from './policy-composition.js';
import { recordArgumentProblem } from './record-values.js';
import { describeScope, scopeReason } from './scope-feedback.js';
import { compileScopes, scopePlanPatterns } from './universal.js';

/*
 * The engine's parts (engine-parts.ts) a page's guard loads on demand (load-parts.ts), as
 * one module: the evaluators of paths, filters, bindings and records with the words of
 * their reasons and the check of a compiled spec's paths and bindings (path-evaluators.ts),
 * the fabricated-action check of a final answer (answer-refusal.ts), the lexical
 * similarity of `~`, the reader of the confusables table (skeleton.ts; the table
 * itself is a module of its own), and the composition of a policy with the intent
 * (policy-composition.ts, LANGUAGE.md §8), and the frame conditions of settings
 * (frame-conditions.ts, LANGUAGE.md §9), and the reading of the intent's `given` facts
 * (given-facts.ts, LANGUAGE.md §8). Node entry points take them from here at once (all-parts.ts).
 * One module rather than one each: every part on its own would share a different set of
 * the engine's modules with the page, and the bundler would split what the page loads
 * up front into that many more files, each compressed on its own.
 */

export const evaluators: PathEvaluators = {
  bindingData,
  compileAccessTest,
  compileBinding,
  joinHolds,
  joinPlan,
  scopeWitnesses,
  compileScopes,
  scopePlanPatterns,
  scopeReason,
  comparisonsText,
  describeScope,
  recordArgumentProblem,
  describeBound,
  pathText,
  someElementText,
  boundText,
  compiledChecks: compiledPathChecks,
};

export {
  confusablesFrom,
  frameConditions,
  givenUpdates,
  lexicalSimilarity,
  policyComposition,
  refuseAnswer,
};
