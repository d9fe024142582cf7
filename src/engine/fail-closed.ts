import { errorMessage } from '../support/error-message.js';
import type { Verdict } from './verdict.js';

/*
 * The fail-closed path: whatever goes wrong inside the engine, the answer is a
 * `reject` that says so, never an `allow`.
 */

/** The verdict for a proposal the engine failed to decide. */
export function internalErrorVerdict(error: unknown): Verdict {
  const message = `The verifier failed (${errorMessage(error)}); nothing is allowed until it works again.`;
  return {
    decision: 'reject',
    reasons: [{ code: 'internal-error', message }],
    performs: [],
    achieved: {},
    done: false,
    feedback: message,
  };
}
