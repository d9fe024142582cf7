import { callName } from '../language/index.js';
import type { SessionClock } from './clock.js';
import type { CompiledSpec } from './compiled-spec.js';
import { type CommittedCall, checkAnswer, type FabricationCheck } from './fabricated-action.js';
import { cutText } from './values.js';
import type { Reason } from './verdict.js';

/**
 * The refusal of a final answer that shows calls the session never committed, or that
 * cannot be read within the bounds (LANGUAGE.md §7). With the check itself, part of the
 * engine's on-demand part (on-demand-part.ts): a page loads it before it checks an answer.
 */

/** `fabricated-action`: the answer shows calls the session never committed (LANGUAGE.md §7). */
export function fabricatedActionReason(check: FabricationCheck, maxEcho: number): Reason {
  const shown = check.fabricated.map((call) => {
    const input =
      call.input === undefined ? '' : cutText(JSON.stringify(call.input) ?? '', maxEcho);
    const name = callName(call.predicate.declaration);
    return input === '' ? name : `${name} ${input}`;
  });
  const actions = [...new Set(check.fabricated.map((call) => call.predicate.name))];
  const listed = shown.slice(0, 10).join('; ');
  const more = shown.length > 10 ? ` and ${shown.length - 10} more` : '';
  const what =
    check.fabricated.length > 0
      ? `The answer shows actions that were never carried out: ${listed}${more}.`
      : `The answer cannot be checked: ${check.unreadable}.`;
  return {
    code: 'fabricated-action',
    actions,
    ...(shown.length > 0 ? { actual: cutText(shown.join('; '), maxEcho) } : {}),
    message: `${what} Report only what was done; to do more, propose each action and wait for its result.`,
  };
}

/** The reason to refuse `answer`, or undefined when every call it shows was committed. */
export function refuseAnswer(
  answer: string,
  spec: CompiledSpec,
  committed: readonly CommittedCall[],
  clock: SessionClock,
  maxEcho: number,
): Reason | undefined {
  const check = checkAnswer(answer, spec, committed, clock);
  return check.fabricated.length > 0 || check.unreadable !== undefined
    ? fabricatedActionReason(check, maxEcho)
    : undefined;
}
