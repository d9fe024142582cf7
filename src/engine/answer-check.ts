import { IntentguardError } from '../support/errors.js';
import type { refuseAnswer } from './answer-refusal.js';

/**
 * Where sessions find the fabricated-action check (fabricated-action.ts, with its reason
 * in answer-refusal.ts). It is registered at once wherever the engine is imported whole
 * (engine/index.ts, the root guard), and loaded on demand by a page's guard from a
 * compiled spec before it checks a final answer (`prepareAnswer`), so a page that never
 * checks an answer never downloads it. Without it, a finish with an answer is refused (`internal-error`): an answer is
 * never taken as honest because the check is missing.
 */

type AnswerCheck = typeof refuseAnswer;

let registered: AnswerCheck | undefined;

export function provideAnswerCheck(check: AnswerCheck): void {
  registered ??= check;
}

export function answerCheck(): AnswerCheck {
  if (registered === undefined)
    throw new IntentguardError({
      code: 'missing-part',
      message:
        'Checking a final answer needs the fabricated-action check, which is not loaded (loadAnswerCheck).',
    });
  return registered;
}

/** Loads and registers the check (a no-op where it is registered). */
export async function loadAnswerCheck(): Promise<void> {
  if (registered === undefined)
    provideAnswerCheck((await import('./on-demand-part.js')).refuseAnswer);
}
