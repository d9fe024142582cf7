import { type GuardSource, renderRefusal } from '../../guard/adapter-kit/index.js';
import type { Guard, GuardDecision } from '../../guard/index.js';
import { errorMessage } from '../../support/error-message.js';
import { guardOf, parsedArguments } from './calls.js';
import type {
  AppToolGuardrail,
  RunContextLike,
  ToolCallDetailsLike,
  ToolErrorFunctionLike,
  ToolGuardrailOutputLike,
  ToolInputGuardrailDataLike,
  ToolInputGuardrailLike,
  ToolOutputGuardrailDataLike,
  ToolOutputGuardrailLike,
} from './types.js';

export interface IntentguardToolSettings<TResult = string> {
  /**
   * The app's own input guardrails. They run after intentguard has allowed the call, and
   * a call they reject is rolled back in the guard (it did not run).
   */
  readonly inputGuardrails?: readonly AppToolGuardrail[];
  /** The app's own output guardrails. They run after intentguard has observed the output. */
  readonly outputGuardrails?: readonly AppToolGuardrail[];
  /**
   * What the model reads when the tool throws (the guard has rolled the call back by
   * then). `null` rethrows, failing the run, as the SDK's `errorFunction: null` does.
   * Default: the SDK's generic error text, and that the call may be made again.
   */
  readonly errorFunction?: ToolErrorFunctionLike<TResult> | null;
}

/** The options `intentguardToolOptions` adds to a `tool({ … })`. */
export interface IntentguardToolOptions<TResult = string> {
  readonly needsApproval: (
    runContext: RunContextLike,
    input: unknown,
    callId?: string,
  ) => Promise<boolean>;
  readonly inputGuardrails: ToolInputGuardrailLike[];
  readonly outputGuardrails: ToolOutputGuardrailLike[];
  readonly errorFunction: (
    runContext: RunContextLike,
    error: unknown,
    details?: ToolCallDetailsLike,
  ) => Promise<TResult>;
}

const defaultFailureText = 'An error occurred while running the tool. Please try again.';
const rolledBackText =
  'intentguard: the call failed, so nothing it would have done counts; you may make it again.';

const allow = (outputInfo?: unknown): ToolGuardrailOutputLike => ({
  behavior: { type: 'allow' },
  outputInfo,
});
const rejectContent = (message: string, outputInfo?: unknown): ToolGuardrailOutputLike => ({
  behavior: { type: 'rejectContent', message },
  outputInfo,
});

/** Calls for which `needsApproval` said yes in this process, per guard: see `decideAtExecution`. */
const askedCalls = new WeakMap<Guard, Set<string>>();

function markAsked(guard: Guard, id: string): void {
  let ids = askedCalls.get(guard);
  if (ids === undefined) {
    ids = new Set();
    askedCalls.set(guard, ids);
  }
  ids.add(id);
}

/** Reports a call that will not run (the app rejected it, or it failed) so the guard undoes it. */
function reportFailure(guard: Guard, id: string, error: unknown): boolean {
  if (guard.state(id) !== 'running') return false;
  guard.result(id, { error });
  return true;
}

/**
 * What the input guardrail does with a call: `allow` runs it (or, before a person's
 * answer, lets the SDK ask), `reject` gives the model the guard's text instead.
 */
function decideAtExecution(
  guard: Guard,
  action: string,
  data: ToolInputGuardrailDataLike,
): { readonly allow: boolean; readonly decision?: GuardDecision; readonly message?: string } {
  const { toolCall, context } = data;
  const id = toolCall.callId;
  const recorded = guard.call(id);
  // The arguments as `needsApproval` checked them (the tool's parsed input); the model's
  // text only when the guard has not seen the call.
  const call =
    recorded !== undefined && recorded.name === action
      ? recorded
      : { id, name: action, args: parsedArguments(toolCall.arguments) };
  let decision = guard.check(call);
  if (decision.action === 'ask') {
    const approved = context.isToolApproved({ toolName: toolCall.name, callId: id });
    if (approved === true) {
      // The person approved through `state.approve` without telling the guard.
      decision = guard.approve(id, true);
    } else if (approved === false) {
      decision = guard.approve(id, false);
    } else if (askedCalls.get(guard)?.has(id) === true) {
      // `preApprovalInputGuardrails`: the SDK asks the person next; the guard already
      // decided that this call may be asked about.
      return { allow: true, decision };
    } else {
      return {
        allow: false,
        decision,
        message: renderRefusal({ code: 'approval-missing', question: decision.prompt }),
      };
    }
  }
  return decision.action === 'run'
    ? { allow: true, decision }
    : { allow: false, decision, message: decision.message };
}

/**
 * Options that put a function tool under the guard, to spread into `tool({ … })`:
 *
 * - `needsApproval` checks the call: a `confirm` verdict pauses the run with an
 *   interruption (answer it with `resolveInterruptions`), anything else does not ask.
 * - an input guardrail, right before execution, gives the model the guard's text
 *   instead of running a refused call (`rejectContent`: the run goes on);
 * - an output guardrail observes the tool's output as `<Action>Result`;
 * - `errorFunction` rolls a failed call back, so that the model may retry it.
 *
 * `action` is the tool's name in the spec's schema (the SDK's tool name may differ).
 *
 * @example
 * const transfer = tool({
 *   name: 'bank_transfer',
 *   description: 'Transfers money to a payee.',
 *   parameters: z.object({ to: z.string(), amount: z.number() }),
 *   execute: async ({ to, amount }) => bank.transfer(to, amount),
 *   ...intentguardToolOptions(guard, 'BankTransfer'),
 * });
 */
export function intentguardToolOptions<TResult = string, TContext = unknown>(
  guard: GuardSource<RunContextLike<TContext>>,
  action: string,
  settings: IntentguardToolSettings<TResult> = {},
): IntentguardToolOptions<TResult> {
  if (typeof action !== 'string' || action === '')
    throw new TypeError(
      "intentguardToolOptions: 'action' must be the tool's name in the spec's schema",
    );
  const source: GuardSource<RunContextLike<never>> = guard;
  const appInput = [...(settings.inputGuardrails ?? [])];
  const appOutput = [...(settings.outputGuardrails ?? [])];
  const appError = settings.errorFunction;

  const needsApproval = async (
    runContext: RunContextLike,
    input: unknown,
    callId?: string,
  ): Promise<boolean> => {
    // Without an id the call cannot be checked here; the input guardrail refuses it.
    if (typeof callId !== 'string') return false;
    try {
      const current = guardOf(source, runContext);
      const decision = current.check({ id: callId, name: action, args: input });
      if (decision.action !== 'ask') return false;
      markAsked(current, callId);
      return true;
    } catch {
      // The input guardrail checks again, and refuses with the reason.
      return false;
    }
  };

  const inputGuardrail: ToolInputGuardrailLike = {
    type: 'tool_input',
    name: 'intentguard',
    run: async (data) => {
      let current: Guard;
      let outcome: ReturnType<typeof decideAtExecution>;
      try {
        current = guardOf(source, data.context);
        outcome = decideAtExecution(current, action, data);
      } catch (error) {
        return rejectContent(renderRefusal({ code: 'unchecked', reason: errorMessage(error) }));
      }
      const info = outcome.decision && { intentguard: outcome.decision };
      if (!outcome.allow) return rejectContent(outcome.message ?? '', info);
      if (outcome.decision?.action !== 'run') return allow(info);
      for (const guardrail of appInput) {
        const answer = await guardrail.run(data);
        if (answer.behavior.type !== 'allow') {
          reportFailure(current, data.toolCall.callId, `rejected by ${guardrail.name}`);
          return answer;
        }
      }
      return allow(info);
    },
  };

  const outputGuardrail: ToolOutputGuardrailLike = {
    type: 'tool_output',
    name: 'intentguard',
    run: async (data: ToolOutputGuardrailDataLike) => {
      let observation: unknown;
      try {
        const current = guardOf(source, data.context);
        if (current.state(data.toolCall.callId) === 'running')
          observation = current.result(data.toolCall.callId, { output: data.output });
      } catch {
        // Observing is best effort: the tool has run, its output goes to the model.
      }
      for (const guardrail of appOutput) {
        const answer = await guardrail.run(data);
        if (answer.behavior.type !== 'allow') return answer;
      }
      return allow(observation && { intentguard: observation });
    },
  };

  const errorFunction = async (
    runContext: RunContextLike,
    error: unknown,
    details?: ToolCallDetailsLike,
  ): Promise<TResult> => {
    const id = details?.toolCall?.callId;
    let rolledBack = false;
    if (id !== undefined) {
      try {
        rolledBack = reportFailure(guardOf(source, runContext), id, error);
      } catch {
        // The failure text still reaches the model.
      }
    }
    if (appError === null) throw error;
    if (appError !== undefined) return await appError(runContext, error, details);
    return (
      rolledBack ? `${defaultFailureText}\n${rolledBackText}` : defaultFailureText
    ) as TResult;
  };

  return {
    needsApproval,
    inputGuardrails: [inputGuardrail],
    outputGuardrails: [outputGuardrail],
    errorFunction,
  };
}
