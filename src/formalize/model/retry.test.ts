import { describe, expect, it } from 'vitest';
import { parseRetryAfter } from './ai-sdk-chat-model.js';
import { ModelError } from './model.js';
import { retryDelay } from './retry.js';

describe('retries', () => {
  const retryable = (retryAfterMs?: number) =>
    new ModelError('http', 'x', {
      status: 429,
      retryable: true,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });

  it('backs off exponentially up to a cap, and only as often as allowed', () => {
    const options = { initialDelayMs: 100, factor: 2, maxDelayMs: 350, maxRetries: 4 };
    expect([0, 1, 2, 3].map((retry) => retryDelay(retryable(), retry, options))).toEqual([
      100, 200, 350, 350,
    ]);
    expect(retryDelay(retryable(), 4, options)).toBeUndefined();
  });

  it('honours Retry-After, but not beyond the longest wait', () => {
    expect(retryDelay(retryable(1500), 0)).toBe(1500);
    expect(retryDelay(retryable(120_000), 0)).toBeUndefined();
  });

  it('does not retry what retrying cannot fix', () => {
    expect(retryDelay(new ModelError('http', 'x', { status: 400 }), 0)).toBeUndefined();
    expect(retryDelay(new Error('x'), 0)).toBeUndefined();
  });

  it('reads Retry-After as milliseconds, seconds or an HTTP date', () => {
    const now = Date.parse('2025-03-14T12:00:00Z');
    expect(parseRetryAfter({ 'retry-after-ms': '250' }, now)).toBe(250);
    expect(parseRetryAfter({ 'Retry-After': '3' }, now)).toBe(3000);
    expect(parseRetryAfter({ 'retry-after': 'Fri, 14 Mar 2025 12:00:05 GMT' }, now)).toBe(5000);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
