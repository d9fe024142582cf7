import type { Guard, GuardAction, ToolCall } from '../../guard/index.js';

/** What a hook needs of a decision: the action and the two texts. */
export interface HookDecision {
  readonly action: GuardAction;
  /** For the model: the tool result it reads when the call does not run. */
  readonly message: string;
  /** For the person, when the action is `ask`. */
  readonly prompt: string;
}

/**
 * The guard's decision for a call, failing closed: a call the guard cannot check (a
 * malformed id or name from the SDK, a guard that throws) is refused with a message the
 * model can act on, instead of failing the whole run or running unchecked.
 */
export function decide(guard: Guard, call: ToolCall): HookDecision {
  try {
    return guard.check(call);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      action: 'refuse',
      message: `intentguard: refused. The call could not be checked (${reason.slice(0, 300)}), so it did not run.`,
      prompt: '',
    };
  }
}

/** The model-facing text for a call that waits for a person and so did not run. */
export const waitingMessage =
  'intentguard: this call waits for the user’s approval and did not run. Do not repeat it; wait for the user’s answer.';
