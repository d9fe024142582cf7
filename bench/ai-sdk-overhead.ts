import { createGuard, type Guard } from '../src/guard/index.js';
import { guardTools } from '../src/integrations/ai-sdk/guard-tools.js';
import {
  intentguardToolApproval,
  observeToolResults,
} from '../src/integrations/ai-sdk/tool-approval.js';
import { checkSpec, type Spec } from '../src/language/index.js';
import { loadToolSchema } from '../src/schema/index.js';
import { median } from './measure.js';

/**
 * The adapter's overhead per tool call in a real AI SDK run (issue #8: ≤ 50 µs): the
 * same mock-model run — steps of parallel calls to one tool — without the guard and
 * with it, through v6's `guardTools` or v7's `toolApproval` + `onToolExecutionEnd`.
 * The SDK is passed in (its `generateText` and mock model class), so this module does
 * not import `ai` either; `bench/` calls it.
 *
 * @example
 * import { generateText } from 'ai';
 * import { MockLanguageModelV3 } from 'ai/test';
 * const figures = await measureAdapterOverhead({ generateText, MockLanguageModel: MockLanguageModelV3 }, { line: 'v6' });
 * // { calls: 6000, plainMicros: 111.2, guardedMicros: 125.1, overheadMicros: 14.0 }
 */

export interface AiSdkBenchKit {
  readonly generateText: (options: never) => PromiseLike<unknown>;
  /** `MockLanguageModelV3` (v6) or `MockLanguageModelV4` (v7) from `ai/test`. */
  readonly MockLanguageModel: new (
    options: never,
  ) => unknown;
}

export interface AdapterBenchOptions {
  /** Which adapter path: `guardTools` (v6) or `toolApproval` (v7). */
  readonly line: 'v6' | 'v7';
  /** Runs of each kind; the figures are medians over the runs. Default 30. */
  readonly runs?: number;
  /** Steps per run, and parallel calls per step. Default 20 × 10. */
  readonly steps?: number;
  readonly callsPerStep?: number;
}

export interface AdapterBenchFigures {
  /** Tool calls measured in each kind of run, in all. */
  readonly calls: number;
  /** Microseconds per tool call of the whole SDK run, without the guard. */
  readonly plainMicros: number;
  /** The same with the guard (the guard's decisions included). */
  readonly guardedMicros: number;
  /** The difference: what the adapter and the guard add to a tool call. */
  readonly overheadMicros: number;
}

const now = '2025-03-14T12:00';

function benchSpec(): Spec {
  const tools = loadToolSchema({
    tools: [
      {
        name: 'Lookup',
        inputSchema: { type: 'object', properties: {} },
        outputSchema: { type: 'object', properties: { count: { type: 'number' } } },
        annotations: { readOnlyHint: true },
      },
    ],
  });
  if (!tools.ok) throw new Error('ai-sdk bench: tools');
  const checked = checkSpec(
    '@repeat\nLookup() -> Looked\nLooked & LookupResult(count > 0) -> Done',
    tools.value,
  );
  if (!checked.ok) throw new Error(`ai-sdk bench: ${checked.diagnostics[0]?.message}`);
  return checked.value;
}

const anyObject = {
  '~standard': {
    version: 1,
    vendor: 'intentguard-bench',
    validate: (value: unknown) => ({ value }),
    jsonSchema: {
      input: () => ({ type: 'object', properties: {} }),
      output: () => ({ type: 'object', properties: {} }),
    },
  },
};

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** One run: `steps` model turns of `callsPerStep` parallel calls, then a text answer. */
async function run(
  kit: AiSdkBenchKit,
  options: Required<AdapterBenchOptions>,
  guard: Guard | undefined,
  runIndex: number,
): Promise<number> {
  let turn = 0;
  const Mock = kit.MockLanguageModel as new (options: {
    doGenerate: () => Promise<unknown>;
  }) => unknown;
  const model = new Mock({
    doGenerate: async () => {
      turn++;
      if (turn > options.steps)
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      return {
        content: Array.from({ length: options.callsPerStep }, (_, index) => ({
          type: 'tool-call',
          toolCallId: `r${runIndex}-s${turn}-c${index}`,
          toolName: 'Lookup',
          input: '{}',
        })),
        finishReason: { unified: 'tool-calls', raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  const tools = { Lookup: { inputSchema: anyObject, execute: async () => ({ count: 1 }) } };
  const settings: Record<string, unknown> = {
    model,
    prompt: 'look it up',
    stopWhen: ({ steps }: { steps: unknown[] }) => steps.length > options.steps,
    tools,
  };
  if (guard && options.line === 'v6') settings.tools = guardTools(tools, guard);
  if (guard && options.line === 'v7') {
    settings.toolApproval = intentguardToolApproval(guard);
    settings.onToolExecutionEnd = observeToolResults(guard);
  }
  const started = performance.now();
  await kit.generateText(settings as never);
  return performance.now() - started;
}

/** Measures the adapter's overhead per tool call; see the module comment. */
export async function measureAdapterOverhead(
  kit: AiSdkBenchKit,
  options: AdapterBenchOptions,
): Promise<AdapterBenchFigures> {
  const settings: Required<AdapterBenchOptions> = {
    line: options.line,
    runs: options.runs ?? 30,
    steps: options.steps ?? 20,
    callsPerStep: options.callsPerStep ?? 10,
  };
  const spec = benchSpec();
  const callsPerRun = settings.steps * settings.callsPerStep;
  // Warm both paths up, then alternate them so that drift hits both alike.
  for (let index = 0; index < 10; index++) {
    await run(kit, settings, undefined, -index);
    await run(kit, settings, createGuard(spec, spec.schema, { now }), -index);
  }
  const plain: number[] = [];
  const guarded: number[] = [];
  for (let index = 0; index < settings.runs; index++) {
    plain.push((await run(kit, settings, undefined, index)) / callsPerRun);
    const guard = createGuard(spec, spec.schema, { now });
    guarded.push((await run(kit, settings, guard, index)) / callsPerRun);
    if (guard.status().runningIds.length > 0 || guard.journal().events.length < callsPerRun)
      throw new Error('ai-sdk bench: the guarded run did not check and report every call');
  }
  const plainMicros = median(plain) * 1000;
  const guardedMicros = median(guarded) * 1000;
  return {
    calls: callsPerRun * settings.runs,
    plainMicros,
    guardedMicros,
    overheadMicros: guardedMicros - plainMicros,
  };
}
