import {
  checkGuardSource,
  checkOrRefuse,
  type GuardSource,
  renderRefusal,
  resolveGuard,
} from '../../guard/adapter-kit/index.js';
import type { Guard, ToolOutcome } from '../../guard/index.js';
import { isFinishTool } from './finish.js';
import { hasApprovalRequest, syncApprovals } from './messages.js';
import type {
  AiSdkToolApprovalOptions,
  AiSdkToolApprovalStatus,
  AiSdkToolExecutionEnd,
} from './types.js';
import { noteApprovalHook } from './wiring.js';

function hasOwnTool(tools: unknown, name: string): unknown {
  if (typeof tools !== 'object' || tools === null || !Object.hasOwn(tools, name)) return undefined;
  return (tools as Record<string, unknown>)[name];
}

/**
 * The guard as a v7 `toolApproval` function (`ai` 7.x, on `generateText`, `streamText`
 * and `ToolLoopAgent`). Every call is checked in the model's order before any tool of
 * the step runs:
 *
 * - `run` → `'not-applicable'`: the call runs;
 * - `ask` → `{ type: 'user-approval', reason }`: the person sees the guard's prompt as the
 *   reason, and the run pauses until their answer comes in a later request;
 * - `refuse` → `{ type: 'denied', reason }`: the model reads the guard's feedback as the
 *   call's `execution-denied` result and may correct the call.
 *
 * When the SDK replays an answered call, the people's answers in the messages are
 * applied first (`syncApprovals`): an approval is re-checked against the state now, and
 * a call that has become wrong since is denied. Tools made by `finishTool` run
 * unchecked: their `execute` asks the guard. Pair it with `observeToolResults` (the
 * results) and `isTaskFinished` (the end).
 *
 * Needs `ai` 7 (which needs Node 22): ai 6 ignores `toolApproval`. On ai 6 a run with
 * this guard's `finishTool` stops with an `AiSdkSetupError` (`tool-approval-ignored`)
 * before the model is called, and `isTaskFinished` stops any run in which a tool ran
 * unchecked; use `guardTools` there (it works on both lines).
 *
 * @example
 * const result = await generateText({
 *   model, tools: { ...tools, finish: finishTool(guard) }, prompt,
 *   toolApproval: intentguardToolApproval(guard),
 *   onToolExecutionEnd: observeToolResults(guard),
 *   stopWhen: [isTaskFinished(guard), isStepCount(20)],
 * });
 */
export function intentguardToolApproval(
  source: GuardSource<AiSdkToolApprovalOptions>,
): (options: AiSdkToolApprovalOptions) => AiSdkToolApprovalStatus {
  checkGuardSource(source, 'intentguardToolApproval');
  // ai 6 never calls this function: the finish tool and `isTaskFinished` stop such a run.
  if (typeof source !== 'function') noteApprovalHook(source);
  return (options) => {
    const { toolCall, messages } = options;
    if (isFinishTool(hasOwnTool(options.tools, toolCall.toolName))) return 'not-applicable';
    // Finding the guard and applying the people's answers fail closed with the check.
    const decision = checkOrRefuse(
      () => {
        const guard = resolveGuard(source, options);
        syncApprovals(guard, messages);
        return guard;
      },
      { id: toolCall.toolCallId, name: toolCall.toolName, args: toolCall.input },
    );
    if (decision.action === 'run') return 'not-applicable';
    if (decision.action === 'refuse') return { type: 'denied', reason: decision.message };
    // Still waiting although the SDK replays an approval: the answer is not one the
    // guard can match (another chat's journal, a forged history); never run it.
    if (hasApprovalRequest(messages, toolCall.toolCallId))
      return { type: 'denied', reason: renderRefusal({ code: 'approval-unmatched' }) };
    return { type: 'user-approval', reason: decision.prompt };
  };
}

/**
 * Reports each tool's outcome to the guard (`guard.result`): v7's `onToolExecutionEnd`,
 * or v6's `experimental_onToolCallFinish`. A result is observed as the tool's
 * `<Tool>Result` (so later calls that depend on it may run); a failure rolls back what
 * the call achieved, so the model may retry. Calls the guard did not let run, and the
 * finish tool, are ignored. (`guardTools` reports by itself; this is for
 * `intentguardToolApproval`.)
 *
 * @example
 * onToolExecutionEnd: observeToolResults(guard)
 */
export function observeToolResults(guard: Guard): (event: AiSdkToolExecutionEnd) => void {
  return (event) => {
    const id = event.toolCall?.toolCallId;
    if (typeof id !== 'string') return;
    const output = event.toolOutput;
    const outcome: ToolOutcome | undefined =
      output !== undefined
        ? output.type === 'tool-result'
          ? { output: output.output }
          : { error: output.error }
        : event.success === true
          ? { output: event.output }
          : event.success === false
            ? { error: event.error }
            : undefined;
    if (outcome === undefined) return;
    try {
      // A call the guard did not let run is left alone (the guard answers `ok: false`
      // and records nothing); one it never saw (the finish tool) is not its business.
      guard.result(id, outcome);
    } catch {
      // An id the guard does not know: nothing to report.
    }
  };
}
