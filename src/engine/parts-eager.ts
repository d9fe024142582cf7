import { provideAnswerCheck } from './answer-check.js';
import { checkAnswer } from './fabricated-action.js';
import { providePathEvaluators } from './path-evaluators.js';
import { evaluators } from './path-evaluators-part.js';

/**
 * Registers at once the engine's parts that a page's guard from a compiled spec loads on
 * demand (answer-check.ts, path-evaluators.ts). Imported by every Node entry point: the
 * engine index, the root guard, the majority session.
 */
provideAnswerCheck(checkAnswer);
providePathEvaluators(evaluators);
