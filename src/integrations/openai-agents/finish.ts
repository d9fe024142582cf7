import { finishOrRefuse, type GuardSource } from '../../guard/adapter-kit/index.js';
import type { Guard } from '../../guard/index.js';
import { guardOf } from './calls.js';
import type {
  FunctionToolResultLike,
  RunContextLike,
  ToolCallDetailsLike,
  ToolsToFinalOutputResultLike,
} from './types.js';

export interface FinishToolSettings {
  /** The tool's name (default `finish`); give `finishBehavior` the same. */
  readonly name?: string;
  readonly description?: string;
}

/** The options `finishToolOptions` gives `tool({ … })`. */
export interface FinishToolOptions {
  readonly name: string;
  readonly description: string;
  readonly parameters: {
    type: 'object';
    properties: { summary: { type: 'string'; description: string } };
    required: 'summary'[];
    additionalProperties: false;
  };
  readonly strict: true;
  readonly execute: (
    input: unknown,
    runContext?: RunContextLike,
    details?: ToolCallDetailsLike,
  ) => Promise<string>;
}

const defaultName = 'finish';
const defaultDescription =
  "Call this when the user's task is complete, with a summary for the user. If the task is not done yet, the answer says what is left.";

/** Finish calls the guard accepted, per guard: `finishBehavior` ends the run on these only. */
const acceptedFinishes = new WeakMap<Guard, Set<string>>();

function summaryOf(input: unknown): string {
  const summary = (input as { summary?: unknown } | null | undefined)?.summary;
  return typeof summary === 'string' && summary !== '' ? summary : 'Done.';
}

/**
 * A `finish` tool, to pass to `tool(…)`: the model calls it when it believes the task is
 * done. The guard decides (`guard.finish()`): when the task is done, the tool answers
 * with the model's summary and `finishBehavior` ends the run with it; otherwise the
 * model reads what is left, and the run goes on. (`stopAtToolNames: ['finish']` would
 * end the run even on a refused finish.)
 *
 * @example
 * const agent = new Agent({
 *   name: 'bank',
 *   tools: [balanceTool, transferTool, tool(finishToolOptions(guard))],
 *   toolUseBehavior: finishBehavior(guard),
 * });
 */
export function finishToolOptions<TContext = unknown>(
  guard: GuardSource<RunContextLike<TContext>>,
  settings: FinishToolSettings = {},
): FinishToolOptions {
  const source: GuardSource<RunContextLike<never>> = guard;
  return {
    name: settings.name ?? defaultName,
    description: settings.description ?? defaultDescription,
    parameters: {
      type: 'object',
      properties: {
        summary: { type: 'string', description: 'What was done, in a sentence for the user.' },
      },
      required: ['summary'],
      additionalProperties: false,
    },
    strict: true,
    execute: async (input, runContext, details) => {
      let current: Guard | undefined;
      // The summary is the agent's final answer: the guard checks it for calls never made.
      const decision = finishOrRefuse(
        () => {
          current = guardOf(source, runContext);
          return current;
        },
        (input as { summary?: unknown } | null | undefined)?.summary,
      );
      if (decision.action !== 'run' || current === undefined) return decision.message;
      const id = details?.toolCall?.callId;
      if (id !== undefined) {
        let ids = acceptedFinishes.get(current);
        if (ids === undefined) {
          ids = new Set();
          acceptedFinishes.set(current, ids);
        }
        ids.add(id);
      }
      return summaryOf(input);
    },
  };
}

/**
 * The agent's `toolUseBehavior`: the run ends (with the finish tool's output as its final
 * output) only on a finish call the guard accepted; after any other tool call, the model
 * runs again and reads the results.
 */
export function finishBehavior<TContext = unknown>(
  guard: GuardSource<RunContextLike<TContext>>,
  settings: Pick<FinishToolSettings, 'name'> = {},
): (
  runContext: RunContextLike,
  toolResults: readonly FunctionToolResultLike[],
) => Promise<ToolsToFinalOutputResultLike> {
  const source: GuardSource<RunContextLike<never>> = guard;
  const name = settings.name ?? defaultName;
  return async (runContext, toolResults) => {
    const finishes = toolResults.filter(
      (result) => result.type === 'function_output' && result.tool.name === name,
    );
    if (finishes.length > 0) {
      let accepted: Set<string> | undefined;
      try {
        accepted = acceptedFinishes.get(guardOf(source, runContext));
      } catch {
        accepted = undefined;
      }
      for (const result of finishes) {
        const id = (result.runItem?.rawItem as { callId?: unknown } | undefined)?.callId;
        if (typeof id === 'string' && accepted?.has(id) === true)
          return {
            isFinalOutput: true,
            isInterrupted: undefined,
            finalOutput: typeof result.output === 'string' ? result.output : String(result.output),
          };
      }
    }
    return { isFinalOutput: false, isInterrupted: undefined };
  };
}
