import type { TokenUsage } from './model.js';

/** US dollars per million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
}

/**
 * Public list prices (standard tier, no caching or batch discounts) as published by
 * the providers in 2025, per million tokens. Estimates only: check the provider's
 * pricing page before relying on them. Keys are model ids without the provider; a
 * dated snapshot (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`) is priced as
 * its base model. Local servers (`ollama:`) cost nothing per token; anything not
 * listed here is priced `null` (unknown), never guessed.
 */
export const modelPrices: Readonly<Record<string, ModelPrice>> = {
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  o1: { input: 15, output: 60 },
  'o3-mini': { input: 1.1, output: 4.4 },
  o3: { input: 2, output: 8 },
  'o4-mini': { input: 1.1, output: 4.4 },
  'text-embedding-3-small': { input: 0.02, output: 0 },
  'text-embedding-3-large': { input: 0.13, output: 0 },
  'claude-opus-4-1': { input: 15, output: 75 },
  'claude-opus-4': { input: 15, output: 75 },
  'claude-opus-4-5': { input: 5, output: 25 },
  'claude-sonnet-4-5': { input: 3, output: 15 },
  'claude-sonnet-4': { input: 3, output: 15 },
  'claude-3-7-sonnet': { input: 3, output: 15 },
  'claude-3-5-sonnet': { input: 3, output: 15 },
  'claude-haiku-4-5': { input: 1, output: 5 },
  'claude-3-5-haiku': { input: 0.8, output: 4 },
};

/** A dated snapshot suffix: `-2024-08-06`, `-20250929`, `-latest`. */
const snapshotSuffix = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/** The price of `provider:model`, or `null` when the model is not in the table. */
export function priceOf(modelId: string): ModelPrice | null {
  const colon = modelId.indexOf(':');
  const provider = colon === -1 ? '' : modelId.slice(0, colon);
  const model = (colon === -1 ? modelId : modelId.slice(colon + 1)).toLowerCase();
  if (provider === 'ollama') return { input: 0, output: 0 };
  if (provider !== 'openai' && provider !== 'anthropic' && provider !== '') return null;
  return modelPrices[model] ?? modelPrices[model.replace(snapshotSuffix, '')] ?? null;
}

/**
 * The estimated cost of a call in US dollars, or `null` when the model's price or
 * the token counts are unknown.
 *
 * @example
 * estimateCost('openai:gpt-4o', { inputTokens: 2000, outputTokens: 300 }); // 0.008
 */
export function estimateCost(modelId: string, usage: TokenUsage): number | null {
  const price = priceOf(modelId);
  if (price === null || usage.inputTokens === null || usage.outputTokens === null) return null;
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}

/** Sums costs; the total is unknown (`null`) as soon as one part is. */
export function addCost(left: number | null, right: number | null): number | null {
  return left === null || right === null ? null : left + right;
}
