import { errorMessage } from '../../support/error-message.js';
import { finishId } from '../intent-guard.js';
import type { Guard, GuardDecision } from '../types.js';
import { refusalDecision } from './refusals.js';

/*
 * The end of a run, the same in every adapter. Whether a finish waits for the results
 * of calls still running is the guard's to say (`finishWaitsForResults`): an adapter
 * never refuses a finish the guard would accept.
 */

/**
 * `guard.finish(answer)`, failing closed: the agent's final answer is passed on when it
 * is text (anything else is no answer), and a guard that cannot be found or throws
 * refuses the finish (`finish-unchecked`) instead of ending the run or failing it.
 * `onError` hears the error (a log line), never the model.
 */
export function finishOrRefuse(
  guard: Guard | (() => Guard),
  answer?: unknown,
  onError?: (error: unknown) => void,
): GuardDecision {
  try {
    const current = typeof guard === 'function' ? guard() : guard;
    return current.finish(typeof answer === 'string' ? answer : undefined);
  } catch (error) {
    onError?.(error);
    return refusalDecision(finishId, { code: 'finish-unchecked', reason: errorMessage(error) });
  }
}
