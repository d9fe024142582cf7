import { bindingData, compileAccessTest } from './access-test.js';
import { compileBinding, joinHolds } from './join.js';
import type { PathEvaluators } from './path-evaluators.js';
import { recordArgumentProblem } from './record-values.js';

/** The evaluators of paths, filters, bindings and records as one module, loaded whole (path-evaluators.ts). */
export const evaluators: PathEvaluators = {
  bindingData,
  compileAccessTest,
  compileBinding,
  joinHolds,
  recordArgumentProblem,
};
