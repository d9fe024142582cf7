import { type Confusables, confusablesFrom } from '../language/unicode/skeleton.js';
import type { EngineParts } from './engine-parts.js';

/** The name of an engine part (engine-parts.ts). */
export type EnginePartName = keyof EngineParts;

/**
 * Loads the named parts, for a page's guard: the evaluators of paths, the lexical
 * similarity and the answer check come in one module (on-demand-part.ts), the
 * confusables table in another (about 26 KB gzipped). A page downloads them only when
 * its spec needs them.
 */
export async function loadEngineParts(names: Iterable<EnginePartName>): Promise<EngineParts> {
  const wanted = new Set(names);
  const [engine, confusables] = await Promise.all([
    wanted.has('paths') || wanted.has('lexicalSimilarity') || wanted.has('answerCheck')
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
  };
}

/**
 * The table alone is loaded: the code that reads it (skeleton.ts) is up front, as a module
 * loaded on demand with it would share the page's text modules and split the page's
 * bundle into one more file (docs/web.md).
 */
async function loadConfusables(): Promise<Confusables> {
  return confusablesFrom((await import('../language/unicode/confusables.js')).confusablePrototypes);
}
