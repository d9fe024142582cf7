import { checkPathConstraint } from '../language/check-compiled-paths.js';
import { bindingData, compileAccessTest } from './access-test.js';
import { refuseAnswer } from './answer-refusal.js';
import { describeBound, pathText, someElementText } from './binding-feedback.js';
import { compileBinding, joinHolds } from './join.js';
import { joinPlan } from './join-plan.js';
import { lexicalSimilarity } from './lexical-similarity.js';
import type { PathEvaluators } from './path-evaluators.js';
import { recordArgumentProblem } from './record-values.js';

/*
 * The engine's parts a page's guard loads on demand, as one module: the evaluators of
 * paths, filters, bindings and records with the words of their reasons (path-evaluators.ts)
 * and the check of a compiled spec's paths and bindings (language/check-compiled-paths.ts),
 * the fabricated-action check of a final answer (answer-check.ts) and the lexical similarity of `~` (similarity.ts).
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
  recordArgumentProblem,
  describeBound,
  pathText,
  someElementText,
};

export { checkPathConstraint, lexicalSimilarity, refuseAnswer };
