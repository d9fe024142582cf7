import { confusablePrototypes } from '../language/unicode/confusables.js';
import { confusablesFrom } from '../language/unicode/skeleton.js';
import type { EngineParts } from './engine-parts.js';
import {
  evaluators,
  frameConditions,
  givenUpdates,
  lexicalSimilarity,
  refuseAnswer,
} from './on-demand-part.js';
import { policyComposition } from './policy-composition.js';

/**
 * Every part of the engine (engine-parts.ts), as the Node entry points pass them by
 * default: the engine's index, the root guard, the majority session. A page imports
 * none of this: it loads what its spec needs (load-parts.ts).
 */
export const allEngineParts: EngineParts = {
  paths: evaluators,
  lexicalSimilarity,
  answerCheck: refuseAnswer,
  confusables: /* @__PURE__ */ confusablesFrom(confusablePrototypes),
  policy: policyComposition,
  frame: frameConditions,
  givens: givenUpdates,
};

/**
 * Options with every part where they give none (`options.parts` given is kept as it is);
 * anything but an options object is passed on for the session to refuse.
 */
export function withAllParts<Options>(options: Options): Options {
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return options;
  const given: { readonly parts?: unknown } = options;
  return given.parts === undefined ? { ...options, parts: allEngineParts } : options;
}
