import { describe, expect, it } from 'vitest';
import { addUsage, noUsage } from './model.js';
import { addCost, estimateCost, priceOf } from './pricing.js';

describe('pricing', () => {
  it('prices known models per million tokens, dated snapshots as their base model', () => {
    expect(estimateCost('openai:gpt-4o', { inputTokens: 2000, outputTokens: 300 })).toBeCloseTo(
      0.008,
      10,
    );
    expect(priceOf('openai:gpt-4o-2024-08-06')).toEqual({ input: 2.5, output: 10 });
    expect(priceOf('openai:gpt-4o-mini')).toEqual({ input: 0.15, output: 0.6 });
    expect(priceOf('anthropic:claude-sonnet-4-5-20250929')).toEqual({ input: 3, output: 15 });
  });

  it('says null for unknown models, unknown token counts and self-hosted servers of unknown price', () => {
    expect(priceOf('openai:gpt-9-ultra')).toBeNull();
    expect(priceOf('openai-compatible:gpt-4o')).toBeNull();
    expect(estimateCost('openai:gpt-4o', { inputTokens: null, outputTokens: 10 })).toBeNull();
    expect(estimateCost('ollama:llama3.1', { inputTokens: 5000, outputTokens: 500 })).toBe(0);
    expect(addCost(0.1, null)).toBeNull();
    expect(addCost(0.1, 0.2)).toBeCloseTo(0.3, 10);
  });

  it('adds usages, keeping unknown only when every part is', () => {
    expect(addUsage(noUsage, noUsage)).toEqual(noUsage);
    expect(
      addUsage({ inputTokens: 1, outputTokens: null }, { inputTokens: 2, outputTokens: null }),
    ).toEqual({ inputTokens: 3, outputTokens: null });
  });
});
