import { generateText } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { generateText as generateTextV7 } from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { describe, expect, it } from 'vitest';
import { measureAdapterOverhead } from '../../bench/ai-sdk-overhead.js';

/** The benchmark helper runs on both lines (tiny sizes: it must work, not be fast here). */
describe('measureAdapterOverhead', () => {
  it('measures guarded and plain runs on v6 and v7', async () => {
    for (const [line, kit] of [
      ['v6', { generateText, MockLanguageModel: MockLanguageModelV3 }],
      ['v7', { generateText: generateTextV7, MockLanguageModel: MockLanguageModelV4 }],
    ] as const) {
      const figures = await measureAdapterOverhead(kit, {
        line,
        runs: 2,
        steps: 3,
        callsPerStep: 2,
      });
      expect(figures.calls, line).toBe(12);
      expect(figures.plainMicros, line).toBeGreaterThan(0);
      expect(figures.guardedMicros, line).toBeGreaterThan(0);
      expect(Number.isFinite(figures.overheadMicros), line).toBe(true);
    }
  });
});
