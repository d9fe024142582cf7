import type { Spec } from '../language/index.js';
import { assertPolicy, PolicyJudge } from './policy-judge.js';
import { decideComposed, policyRecheck } from './session/decide-composed.js';

/** The part's shape, for `EngineParts.policy` (an assertion needs its type written out). */
export interface PolicyComposition {
  readonly assertPolicy: (policy: unknown) => asserts policy is Spec;
  readonly PolicyJudge: typeof PolicyJudge;
  readonly decideComposed: typeof decideComposed;
  readonly policyRecheck: typeof policyRecheck;
}

/**
 * The composition of an operator's policy with the intent (LANGUAGE.md §8) as an engine
 * part (engine-parts.ts): the Node entry points give it to every session, and a page that
 * composes no policy never downloads it (docs/web.md's budget).
 */
export const policyComposition: PolicyComposition = {
  assertPolicy,
  PolicyJudge,
  decideComposed,
  policyRecheck,
};
