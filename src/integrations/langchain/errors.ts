import type { GuardDecision } from '../../guard/index.js';
import { IntentguardError } from '../../support/errors.js';

export type IntentguardMiddlewareErrorCode =
  /** The agent kept stopping before the task was done (`maxFinishRefusals` exceeded). */
  | 'task-unfinished'
  /** The thread's journal and the guard disagree: the guard cannot decide for this thread. */
  | 'journal-mismatch'
  /** The model made a tool call without an id: the guard cannot track it. */
  | 'call-without-id';

/**
 * What the intentguard middleware throws on purpose. Branch on `code`; for
 * `task-unfinished`, `decision` is the guard's last refusal of the finish (its `message`
 * says what is still missing).
 */
export class IntentguardMiddlewareError extends IntentguardError {
  static override readonly marker = 'intentguard.error.IntentguardMiddlewareError';
  override readonly name = 'IntentguardMiddlewareError';
  override readonly code: IntentguardMiddlewareErrorCode;
  readonly decision: GuardDecision | undefined;

  constructor(code: IntentguardMiddlewareErrorCode, message: string, decision?: GuardDecision) {
    super({ code, message });
    this.code = code;
    this.decision = decision;
  }
}
