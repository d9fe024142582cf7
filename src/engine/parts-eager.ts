import { provideAnswerCheck } from './answer-check.js';
import { evaluators, lexicalSimilarity, refuseAnswer } from './on-demand-part.js';
import { providePathEvaluators } from './path-evaluators.js';
import { provideLexicalSimilarity } from './similarity.js';

/**
 * Registers at once the engine's parts that a page's guard from a compiled spec loads on
 * demand (on-demand-part.ts: answer-check.ts, path-evaluators.ts, similarity.ts). Imported
 * by every Node entry point: the engine index, the root guard, the majority session.
 */
provideAnswerCheck(refuseAnswer);
providePathEvaluators(evaluators);
provideLexicalSimilarity(lexicalSimilarity);
