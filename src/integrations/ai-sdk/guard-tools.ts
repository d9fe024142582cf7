import { checkOrRefuse, renderRefusal } from '../../guard/adapter-kit/index.js';
import type { Guard, ToolOutcome } from '../../guard/index.js';
import { argumentError, describeArgument } from '../../language/arguments.js';
import { isFinishTool } from './finish.js';
import { type GuardRefusal, isGuardRefusal } from './guard-refusal.js';
import { hasApprovalRequest, syncApprovals } from './messages.js';
import type {
  AiSdkNeedsApprovalOptions,
  AiSdkToolExecutionOptions,
  AiSdkToolModelOutput,
  AiSdkToolShape,
} from './types.js';
import { noteWrapped } from './wiring.js';

export interface GuardToolsOptions {
  /**
   * Tools the guard does not check, by name. A tool without `execute` (run on the
   * client) or executed by the provider cannot be guarded here; `guardTools` throws for
   * one unless it is named in this list, so that nothing bypasses the guard by accident.
   */
  readonly unguarded?: readonly string[];
}

type Execute = (input: unknown, options: AiSdkToolExecutionOptions) => unknown;
type NeedsApproval = (
  input: unknown,
  options: AiSdkNeedsApprovalOptions,
) => boolean | PromiseLike<boolean>;
type ToModelOutput = (options: { toolCallId: string; input: unknown; output: unknown }) => unknown;

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<symbol, unknown>)[Symbol.asyncIterator] === 'function'
  );
}

/** A streaming tool's outputs, passed through; the last one is its result. */
async function* relay(
  outputs: AsyncIterable<unknown>,
  report: (outcome: ToolOutcome) => void,
): AsyncGenerator<unknown> {
  let last: unknown;
  try {
    for await (const output of outputs) {
      last = output;
      yield output;
    }
  } catch (error) {
    report({ error });
    throw error;
  }
  report({ output: last });
}

/** The SDK's own rendering of a tool output, for tools that bring none. */
function defaultModelOutput(output: unknown): AiSdkToolModelOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  const text = output === undefined ? undefined : JSON.stringify(output);
  return { type: 'json', value: text === undefined ? null : (JSON.parse(text) as unknown) };
}

/**
 * Puts the guard in front of every tool of an AI SDK tool set — the v6 way (`ai` 6.x;
 * on v7 prefer `intentguardToolApproval`). Each wrapped tool:
 *
 * - `needsApproval` checks the call (`guard.check`, in the model's order, before any
 *   tool of the step runs): `ask` becomes an approval request; the tool's own
 *   `needsApproval` is kept for calls the guard allows. When the SDK replays an
 *   approved call it answers `true` again, so the person's answer stands.
 * - `execute` applies the people's answers in the messages (`syncApprovals`), runs the
 *   call only if the guard says `run` — an approval is re-checked against the state
 *   now — and reports the output or the failure (`guard.result`; a failure rolls back
 *   what the call achieved, so the model may retry). A refused call does not run: its
 *   result is a `GuardRefusal` whose message the model reads.
 *
 * The tools keep their names and types; `finishTool` tools pass through unchanged.
 * A tool the guard cannot wrap (no `execute`, or provider-executed) is a `TypeError`
 * unless it is named in `options.unguarded`.
 *
 * @example
 * const result = await generateText({
 *   model,
 *   tools: { ...guardTools({ BankCheckBalance, BankTransfer }, guard), finish: finishTool(guard) },
 *   stopWhen: [isTaskFinished(guard), stepCountIs(20)],
 *   prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
 * });
 */
export function guardTools<TOOLS extends Record<string, object>>(
  tools: TOOLS,
  guard: Guard,
  options: GuardToolsOptions = {},
): TOOLS {
  if (typeof tools !== 'object' || tools === null || Array.isArray(tools))
    throw argumentError('guardTools', {
      parameter: 'tools',
      expected: 'a tool set (an object of tools by name)',
      actual: describeArgument(tools),
    });
  const unguarded = new Set(options.unguarded ?? []);
  const guarded: Record<string, object> = {};
  for (const [name, tool] of Object.entries(tools)) {
    if (isFinishTool(tool) || unguarded.has(name)) {
      guarded[name] = tool;
      continue;
    }
    const original = tool as AiSdkToolShape;
    if (typeof original.execute !== 'function' || original.type === 'provider')
      throw argumentError('guardTools', {
        parameter: `tools.${name}`,
        expected:
          'a tool with an execute function the guard can wrap, or a name in options.unguarded to leave it unchecked',
        actual:
          original.type === 'provider'
            ? 'a provider-executed tool'
            : 'a tool without execute (run on the client)',
      });
    guarded[name] = wrapTool(name, original, guard);
  }
  noteWrapped(guard, unguarded);
  return guarded as TOOLS;
}

function wrapTool(name: string, original: AiSdkToolShape, guard: Guard): AiSdkToolShape {
  const execute = original.execute as unknown as Execute;
  const ownApproval = original.needsApproval as boolean | NeedsApproval | undefined;
  const ownModelOutput = original.toModelOutput as ToModelOutput | undefined;

  const needsApproval: NeedsApproval = async (input, options) => {
    const id = options.toolCallId;
    // The replay of a call a person was asked about: the answer stands (a `false` here
    // would turn an approval into a denial); `execute` re-checks it.
    if (hasApprovalRequest(options.messages, id)) return true;
    syncApprovals(guard, options.messages);
    const decision = checkOrRefuse(guard, { id, name, args: input });
    if (decision.action === 'ask') return true;
    // A refused call is not asked about: `execute` returns the refusal as its result.
    if (decision.action === 'refuse') return false;
    if (typeof ownApproval === 'function') return await ownApproval.call(original, input, options);
    return ownApproval === true;
  };

  const guardedExecute: Execute = (input, options) => {
    const id = options.toolCallId;
    syncApprovals(guard, options.messages);
    const decision = checkOrRefuse(guard, { id, name, args: input });
    if (decision.action !== 'run') {
      const refusal: GuardRefusal = {
        type: 'intentguard-refusal',
        action: decision.action,
        message:
          decision.action === 'ask'
            ? renderRefusal({ code: 'awaiting-approval' })
            : decision.message,
      };
      return Promise.resolve(refusal);
    }
    const report = (outcome: ToolOutcome) => {
      guard.result(id, outcome);
    };
    let returned: unknown;
    try {
      returned = execute.call(original, input, options);
    } catch (error) {
      report({ error });
      throw error;
    }
    if (isAsyncIterable(returned)) return relay(returned, report);
    return Promise.resolve(returned).then(
      (output) => {
        report({ output });
        return output;
      },
      (error: unknown) => {
        report({ error });
        throw error;
      },
    );
  };

  const toModelOutput: ToModelOutput = (options) => {
    if (isGuardRefusal(options.output)) return { type: 'text', value: options.output.message };
    if (ownModelOutput) return ownModelOutput.call(original, options);
    return defaultModelOutput(options.output);
  };

  return {
    ...original,
    needsApproval: needsApproval as AiSdkToolShape['needsApproval'],
    execute: guardedExecute as AiSdkToolShape['execute'],
    toModelOutput: toModelOutput as AiSdkToolShape['toModelOutput'],
  };
}
