import { finishOrRefuse } from '../../guard/adapter-kit/index.js';
import type { Guard } from '../../guard/index.js';
import { isGuardRefusal } from './guard-refusal.js';
import { assertEveryCallChecked, noteFinishCall, refuseIgnoredApprovalHook } from './wiring.js';

/**
 * The end of a run. No SDK hook can veto "the model stopped", and `hasToolCall('finish')`
 * stops the loop even when the guard refused the finish; so the adapter ships a finish
 * tool whose result says what is left, and a stop condition that holds only once the
 * guard has accepted the finish.
 */

/** Marks the tools `finishTool` makes, so that `guardTools` and `toolApproval` let them through. */
const finishToolMarker = Symbol.for('intentguard.ai-sdk.finish-tool');

/** The text the model reads when the guard accepts the finish. */
export const finishedMessage = 'intentguard: the task is done. End your turn with a short answer.';

/** The finish tool's input: the final answer, optional (LANGUAGE.md §7). */
const answerProperties = {
  answer: {
    type: 'string',
    description: 'Your final answer to the user: what was done, as you will tell them.',
  },
} as const;

/**
 * The input schema, as a Standard Schema both SDK lines read: an object with an optional
 * `answer` text. The guard checks the answer at finish (a call it shows but never made
 * is refused); anything else in the object is ignored.
 */
const noInput = {
  '~standard': {
    version: 1,
    vendor: 'intentguard',
    validate: (value: unknown) => {
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        return { issues: [{ message: 'expected an object' }] };
      const answer = (value as { answer?: unknown }).answer;
      if (answer !== undefined && typeof answer !== 'string')
        return { issues: [{ message: 'answer must be text' }] };
      return { value: answer === undefined ? {} : { answer } };
    },
    jsonSchema: {
      input: () => ({ type: 'object', properties: answerProperties, additionalProperties: false }),
      output: () => ({ type: 'object', properties: answerProperties, additionalProperties: false }),
    },
  },
} as const;

export interface FinishToolOptions {
  /** What the model is told the tool is for. */
  readonly description?: string;
}

/** The tool `finishTool` returns: add it to the tool set under any name. */
export interface FinishTool {
  readonly description: string;
  readonly inputSchema: typeof noInput;
  readonly execute: (input: unknown, options?: { readonly toolCallId?: string }) => string;
}

/**
 * Which SDK line reads the finish tool. Both lines read every tool of the set before
 * each model call, in their own order: ai 6 reads `type`, `description`, then
 * `inputSchema`; ai 7 reads the description (up to three times), `providerOptions`,
 * `inputExamples` and `strict` before `inputSchema`. The ai 6 order is the one moment an
 * ai 6 run touches intentguard before its tools run, so a guard wired only through
 * `toolApproval` (which ai 6 ignores) stops the run there. A line whose order is neither
 * is left to the check after each step (`isTaskFinished`).
 */
class ReadOrder {
  private recent: string[] = [];

  read(key: string): void {
    this.recent.push(key);
    if (this.recent.length > 3) this.recent.shift();
  }

  /** Whether the last reads were ai 6's, ending with `inputSchema`. */
  isAiSdk6(): boolean {
    const [first, second, third] = this.recent;
    return first === 'type' && second === 'description' && third === 'inputSchema';
  }
}

/**
 * A tool the model calls when it believes the task is done. The guard decides
 * (`guard.finish()`): when the task is done the result says so and `isTaskFinished`
 * ends the run; otherwise the result is the guard's feedback — what is still missing —
 * and the run goes on. While an allowed call has not returned its result (it may still
 * fail and be rolled back), the guard refuses the finish unless it was created with
 * `finishWaitsForResults: false`. The guard does not check it as an action: `guardTools`
 * leaves it as it is and `intentguardToolApproval` lets it run.
 *
 * @example
 * const tools = { ...guardTools(bankTools, guard), finish: finishTool(guard) };
 * await generateText({ model, tools, stopWhen: [isTaskFinished(guard), stepCountIs(20)], prompt });
 */
export function finishTool(guard: Guard, options: FinishToolOptions = {}): FinishTool {
  const description =
    options.description ??
    'Call this when the whole task is done. If something is still missing, the result says what to do next.';
  const order = new ReadOrder();
  const tool = {
    get type(): undefined {
      order.read('type');
      return undefined;
    },
    get description(): string {
      order.read('description');
      return description;
    },
    get inputSchema(): typeof noInput {
      order.read('inputSchema');
      if (order.isAiSdk6()) refuseIgnoredApprovalHook(guard);
      return noInput;
    },
    execute: (input: unknown, callOptions?: { readonly toolCallId?: string }) => {
      noteFinishCall(guard, callOptions?.toolCallId);
      const answer = (input as { answer?: unknown } | null | undefined)?.answer;
      const decision = finishOrRefuse(guard, answer);
      return decision.action === 'run' ? finishedMessage : decision.message;
    },
  };
  Object.defineProperty(tool, finishToolMarker, { value: true, enumerable: true });
  return tool;
}

/** Whether a tool is one `finishTool` made (also after the SDK or the host copied it). */
export function isFinishTool(tool: unknown): boolean {
  return (
    typeof tool === 'object' &&
    tool !== null &&
    (tool as Record<symbol, unknown>)[finishToolMarker] === true
  );
}

/**
 * A stop condition (`stopWhen`) that ends the run once the guard has accepted a finish:
 * use it instead of `hasToolCall('finish')`, which also stops on a refused finish. Pair
 * it with a step limit.
 *
 * It also stops a run the guard cannot see: when a tool ran in the run's steps although
 * the guard never checked its call (a tool added to the set after `guardTools`, or
 * `toolApproval` on an SDK that ignores it), it throws an `AiSdkSetupError`
 * (`unchecked-tool-call`) out of the run instead of letting the next step go on.
 *
 * @example
 * stopWhen: [isTaskFinished(guard), stepCountIs(20)]
 */
export function isTaskFinished(guard: Guard): (options: { readonly steps: unknown }) => boolean {
  return (options) => {
    assertEveryCallChecked(guard, options?.steps, isGuardRefusal);
    return guard.status().finished;
  };
}
