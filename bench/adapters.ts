import { generateText as generateTextV6 } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { generateText as generateTextV7 } from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { measureAdapterOverhead } from './ai-sdk-overhead.js';
import { table } from './measure.js';

/**
 * The AI SDK adapter's overhead per tool call in a mock-model run (issue #8: ≤ 50 µs),
 * on both SDK lines: the same run with and without the guard, medians of the runs.
 */
export async function adapterBench(): Promise<void> {
  const rows: string[][] = [];
  for (const [line, kit] of [
    ['v6', { generateText: generateTextV6, MockLanguageModel: MockLanguageModelV3 }],
    ['v7', { generateText: generateTextV7, MockLanguageModel: MockLanguageModelV4 }],
  ] as const) {
    const figures = await measureAdapterOverhead(kit as never, { line });
    rows.push([
      `ai ${line} (${line === 'v6' ? 'guardTools' : 'toolApproval'})`,
      figures.calls.toLocaleString('en-US'),
      figures.plainMicros.toFixed(1),
      figures.guardedMicros.toFixed(1),
      figures.overheadMicros.toFixed(1),
    ]);
  }
  console.log(
    '\nAI SDK adapter: µs per tool call in a mock-model run, 20 steps × 10 parallel calls (medians of 30 runs; target overhead ≤ 50 µs)',
  );
  console.log(table(['SDK', 'calls', 'plain', 'guarded', 'overhead'], rows));
}
