import { provideCompiledPathCheck } from '../language/check-compiled-spec.js';
import { provideAnswerCheck } from './answer-check.js';
import {
  checkPathConstraint,
  evaluators,
  lexicalSimilarity,
  refuseAnswer,
} from './on-demand-part.js';
import { providePathEvaluators } from './path-evaluators.js';
import { provideLexicalSimilarity } from './similarity.js';

/**
 * Registers at once the engine's parts that a page's guard from a compiled spec loads on
 * demand (on-demand-part.ts: answer-check.ts, path-evaluators.ts with the check of a compiled
 * spec's paths, similarity.ts). Imported
 * by every Node entry point: the engine index, the root guard, the majority session.
 */
provideAnswerCheck(refuseAnswer);
providePathEvaluators(evaluators);
provideCompiledPathCheck(checkPathConstraint);
provideLexicalSimilarity(lexicalSimilarity);
