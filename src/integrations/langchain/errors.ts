import type { GuardDecision } from '../../guard/index.js';

/*
 * The marker scheme of intentguard's errors: `Symbol.for` markers rather than
 * `instanceof`, so that two copies of the package still recognise each other's errors.
 * The base marker makes `IntentguardError.isInstance` accept this error too.
 */
const baseMarker = Symbol.for('intentguard.error');
const marker = 'intentguard.error.IntentguardMiddlewareError';
const markerSymbol = Symbol.for(marker);

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
export class IntentguardMiddlewareError extends Error {
  readonly [baseMarker] = true;
  readonly [markerSymbol] = true;
  override readonly name = 'IntentguardMiddlewareError';
  readonly code: IntentguardMiddlewareErrorCode;
  readonly decision: GuardDecision | undefined;

  constructor(code: IntentguardMiddlewareErrorCode, message: string, decision?: GuardDecision) {
    super(message);
    this.code = code;
    this.decision = decision;
  }

  /** Whether `error` is one, from any copy of the package. */
  static isInstance(error: unknown): error is IntentguardMiddlewareError {
    return (
      typeof error === 'object' &&
      error !== null &&
      (error as Record<symbol, unknown>)[markerSymbol] === true
    );
  }
}
