import {
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type EmbeddingModel,
  type EmbeddingResponse,
  ModelError,
} from './model.js';

export interface RetryOptions {
  /** Retries after the first try (default 3; 0 never retries). */
  readonly maxRetries?: number;
  /** The first backoff delay (default 1000 ms); each retry multiplies it by `factor`. */
  readonly initialDelayMs?: number;
  readonly factor?: number;
  /** The longest backoff delay (default 30 s). */
  readonly maxDelayMs?: number;
  /**
   * The longest Retry-After honoured (default 60 s). A server that asks for more is
   * not retried: waiting minutes inside one command helps nobody.
   */
  readonly maxRetryAfterMs?: number;
  /** Waits; injectable so tests need not sleep. */
  readonly sleep?: (milliseconds: number, signal?: AbortSignal) => Promise<void>;
}

export const defaultRetryOptions = Object.freeze({
  maxRetries: 3,
  initialDelayMs: 1000,
  factor: 2,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
});

export function abortableSleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ModelError('aborted', 'The call was aborted.'));
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, milliseconds);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ModelError('aborted', 'The call was aborted.'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * How long to wait before retry number `retry` (0-based) after `error`, or
 * `undefined` when the error is not worth retrying. A server's Retry-After wins over
 * the exponential backoff.
 */
export function retryDelay(
  error: unknown,
  retry: number,
  options: RetryOptions = {},
): number | undefined {
  const settings = { ...defaultRetryOptions, ...options };
  if (!ModelError.isInstance(error) || !error.retryable || retry >= settings.maxRetries)
    return undefined;
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs > settings.maxRetryAfterMs
      ? undefined
      : Math.max(0, error.retryAfterMs);
  }
  return Math.min(settings.maxDelayMs, settings.initialDelayMs * settings.factor ** retry);
}

async function withRetries<T>(
  call: () => Promise<T>,
  options: RetryOptions,
  signal: AbortSignal | undefined,
): Promise<{ value: T; retries: number }> {
  const sleep = options.sleep ?? abortableSleep;
  for (let retry = 0; ; retry++) {
    try {
      return { value: await call(), retries: retry };
    } catch (error) {
      const delay = retryDelay(error, retry, options);
      if (delay === undefined) throw error;
      await sleep(delay, signal);
    }
  }
}

/**
 * Retries a chat model's calls on rate limits (429), server errors (5xx), timeouts
 * and dropped connections, with exponential backoff that honours Retry-After.
 *
 * @example
 * const model = retryingChatModel(createChatModel('openai:gpt-4o', { env }), { maxRetries: 5 });
 */
export function retryingChatModel(model: ChatModel, options: RetryOptions = {}): ChatModel {
  return {
    id: model.id,
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const { value, retries } = await withRetries(
        () => model.generate(request),
        options,
        request.signal,
      );
      return { ...value, retries: value.retries + retries };
    },
  };
}

/** The same retry policy for an embedding model. */
export function retryingEmbeddingModel(
  model: EmbeddingModel,
  options: RetryOptions = {},
): EmbeddingModel {
  return {
    id: model.id,
    async embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddingResponse> {
      return (await withRetries(() => model.embed(texts, signal), options, signal)).value;
    },
  };
}
