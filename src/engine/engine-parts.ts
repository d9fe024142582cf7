import type { Confusables } from '../language/unicode/skeleton.js';
import { IntentguardError } from '../support/errors.js';
import type { refuseAnswer } from './answer-refusal.js';
import type { frameConditions } from './frame-conditions.js';
import type { givenUpdates } from './given-facts.js';
import type { PathEvaluators } from './path-evaluators.js';
import type { PolicyComposition } from './policy-composition.js';
import type { SimilarityFunction } from './similarity.js';

/** The frame conditions of a spec whose schema marks settings (frame-conditions.ts). */
export type FrameConditions = typeof frameConditions;

/** The intent's `given` facts as the updates of the state a session starts with (given-facts.ts). */
export type GivenFacts = typeof givenUpdates;

/** The fabricated-action check of a final answer (answer-refusal.ts, fabricated-action.ts). */
export type AnswerCheck = typeof refuseAnswer;

/**
 * The parts of the engine that only some specs need, passed in the options of a session
 * (`SessionOptions.parts`) and a guard: the Node entry points (the root entry, the
 * guard's `createGuard`, the CLI, the service, the proxy, the adapters) pass all of them
 * (all-parts.ts), so that a page, which loads what its spec needs on demand
 * (load-parts.ts), never downloads the rest. Nothing is registered anywhere: a session
 * sees the parts it was given, and a spec that needs a part it was not given is refused
 * (`requirePart`), never evaluated without it.
 */
export interface EngineParts {
  /**
   * The evaluators of paths, filters, bindings and records with the words of their
   * reasons, and the check of a compiled spec's paths and bindings (path-evaluators.ts).
   * Without them, a spec that has them, or a schema with records, is refused when it is
   * compiled or read.
   */
  readonly paths?: PathEvaluators;
  /**
   * The measure of `~` and `!~` where the session is given none (`lexicalSimilarity`).
   * Without it (and without `SessionOptions.similarity`), a spec that compares by `~` is
   * refused when it is compiled.
   */
  readonly lexicalSimilarity?: SimilarityFunction;
  /** The check of a final answer against the calls made; without it, a finish with an answer is refused. */
  readonly answerCheck?: AnswerCheck;
  /**
   * The confusables table, for the deny-list reading of guards, a rule's `not P(…)` and
   * `@repeat(per:)`, and the answer check; without it, a skeleton is never computed: the
   * session refuses the proposal that needs one.
   */
  readonly confusables?: Confusables | undefined;
  /**
   * The composition of a policy with the intent (policy-composition.ts); without it, a
   * session given a policy is refused when it is created.
   */
  readonly policy?: PolicyComposition;
  /**
   * The frame conditions of settings (frame-conditions.ts, LANGUAGE.md §9); without it, a
   * spec whose schema marks a setting is refused when it is compiled.
   */
  readonly frame?: FrameConditions;
  /**
   * The reading of the intent's `given` facts (given-facts.ts, LANGUAGE.md §8); without it, a
   * session whose intent states facts is refused when it is created.
   */
  readonly givens?: GivenFacts;
}

/** What each part is for, in the error that refuses a spec needing it. */
const missing: { readonly [Name in keyof EngineParts]-?: string } = {
  paths:
    'The spec uses paths, filters or bindings, or its schema records, and their evaluators are not given (parts.paths).',
  lexicalSimilarity:
    'The spec compares by ~, and the session is given neither a similarity nor the lexical similarity (parts.lexicalSimilarity).',
  answerCheck:
    'Checking a final answer needs the fabricated-action check, which is not given (parts.answerCheck).',
  confusables:
    'Confusable skeletons need the confusables table, which is not given (parts.confusables).',
  policy:
    'Composing a policy with the intent needs the composition part, which is not given (parts.policy).',
  frame:
    'The schema marks settings, and the check of their frame conditions is not given (parts.frame).',
  givens: 'The intent states given facts, and their reading is not given (parts.givens).',
};

/** The error that refuses what needs the part `name` where it is not given. */
export function missingPart(name: keyof EngineParts): IntentguardError {
  return new IntentguardError({ code: 'missing-part', message: missing[name] });
}

/** The part `name` of `parts`; throws `missing-part` where it is not given (fail closed). */
export function requirePart<Name extends keyof EngineParts>(
  parts: EngineParts,
  name: Name,
): NonNullable<EngineParts[Name]> {
  const part = parts[name];
  if (part === undefined) throw missingPart(name);
  return part as NonNullable<EngineParts[Name]>;
}
