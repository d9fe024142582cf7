import type { Confusables } from '../language/unicode/skeleton.js';
import type { EngineParts } from './engine-parts.js';

/** The name of an engine part (engine-parts.ts). */
export type EnginePartName = keyof EngineParts;

/**
 * Loads the named parts, for a page's guard: the evaluators of paths, the lexical
 * similarity, the answer check and the reader of the confusables table come in one module
 * (on-demand-part.ts) with the composition of a policy with the intent, the frame
 * conditions of settings and the reading of the intent's `given` facts (a module of its
 * own would split what the page loads up front into more files), the table in another
 * (about 24 KB gzipped). A page downloads them only when its spec, or its policy, needs them.
 */
export async function loadEngineParts(names: Iterable<EnginePartName>): Promise<EngineParts> {
  const wanted = new Set(names);
  const [engine, confusables] = await Promise.all([
    wanted.has('paths') ||
    wanted.has('lexicalSimilarity') ||
    wanted.has('answerCheck') ||
    wanted.has('policy') ||
    wanted.has('frame') ||
    wanted.has('givens')
      ? import('./on-demand-part.js')
      : undefined,
    wanted.has('confusables') ? loadConfusables() : undefined,
  ]);
  return {
    ...(engine && wanted.has('paths') ? { paths: engine.evaluators } : {}),
    ...(engine && wanted.has('lexicalSimilarity')
      ? { lexicalSimilarity: engine.lexicalSimilarity }
      : {}),
    ...(engine && wanted.has('answerCheck') ? { answerCheck: engine.refuseAnswer } : {}),
    ...(confusables ? { confusables } : {}),
    ...(engine && wanted.has('policy') ? { policy: engine.policyComposition } : {}),
    ...(engine && wanted.has('frame') ? { frame: engine.frameConditions } : {}),
    ...(engine && wanted.has('givens') ? { givens: engine.givenUpdates } : {}),
  };
}

/**
 * The table, and the code that reads it (skeleton.ts) from the engine's on-demand part: on
 * its own, that code would share the page's text modules and split what the page loads up
 * front into one more file (docs/web.md).
 */
async function loadConfusables(): Promise<Confusables> {
  const [{ confusablesFrom }, { confusablePrototypes }] = await Promise.all([
    import('./on-demand-part.js'),
    import('../language/unicode/confusables.js'),
  ]);
  return confusablesFrom(confusablePrototypes);
}
