import {
  APICallError,
  EmptyResponseBodyError,
  embedMany,
  generateText,
  InvalidResponseDataError,
  JSONParseError,
  jsonSchema,
  type LanguageModel,
  NoContentGeneratedError,
  NoObjectGeneratedError,
  Output,
  type EmbeddingModel as SdkEmbeddingModel,
  TypeValidationError,
} from 'ai';
import { errorMessage } from '../../support/error-message.js';
import {
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type EmbeddingModel,
  type EmbeddingResponse,
  ModelError,
  providerRequest,
} from './model.js';

export interface AiSdkModelOptions {
  /** Per-call timeout (default 60 s). */
  readonly timeoutMs?: number;
  /**
   * Whether to ask the provider for structured output when a request carries a
   * `responseSchema` (default true). Off for servers whose support is unknown.
   */
  readonly structuredOutput?: boolean;
}

export const defaultTimeoutMs = 60_000;

/** Statuses worth retrying: timeouts, conflicts, rate limits and server errors. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** Retry-After as milliseconds: `retry-after-ms`, seconds, or an HTTP date. */
export function parseRetryAfter(
  headers: Readonly<Record<string, string | undefined>> | undefined,
  now: number = Date.now(),
): number | undefined {
  if (!headers) return undefined;
  const lower = new Map(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const milliseconds = lower.get('retry-after-ms');
  if (milliseconds !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(milliseconds))
    return Number(milliseconds);
  const value = lower.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describeStatus(status: number): string {
  if (status === 401) return 'the provider rejected the API key';
  if (status === 403) return 'the API key may not use this model';
  if (status === 404) return 'the model or endpoint does not exist';
  if (status === 429) return 'rate limited';
  if (status >= 500) return 'the provider had a server error';
  return 'the provider refused the request';
}

function isSuccess(status: number | undefined): status is number {
  return status !== undefined && status >= 200 && status < 300;
}

function invalidResponse(
  id: string,
  detail: string,
  status: number | undefined,
  cause: unknown,
): ModelError {
  return new ModelError(
    'invalid-response',
    `${id}: the provider returned an invalid response${status === undefined ? '' : ` (HTTP ${status})`}: ${detail}`,
    { ...(status !== undefined ? { status } : {}), retryable: true, cause },
  );
}

/** Turns whatever the AI SDK threw into a `ModelError` with a code and a retry decision. */
export function toModelError(
  error: unknown,
  context: {
    readonly id: string;
    readonly timedOut: boolean;
    readonly aborted: boolean;
    readonly timeoutMs: number;
  },
): ModelError {
  if (ModelError.isInstance(error)) return error;
  if (context.aborted)
    return new ModelError('aborted', `${context.id}: the call was aborted.`, { cause: error });
  if (context.timedOut) {
    return new ModelError(
      'timeout',
      `${context.id}: no answer within ${Math.round(context.timeoutMs / 1000)} s.`,
      {
        retryable: true,
        cause: error,
      },
    );
  }
  if (APICallError.isInstance(error) && isSuccess(error.statusCode)) {
    // The SDK reports a body it cannot read as an API call error with the 200 status:
    // the provider did not refuse anything, it answered with something that is not an
    // answer.
    return invalidResponse(context.id, error.message, error.statusCode, error);
  }
  if (
    InvalidResponseDataError.isInstance(error) ||
    EmptyResponseBodyError.isInstance(error) ||
    JSONParseError.isInstance(error) ||
    TypeValidationError.isInstance(error) ||
    NoContentGeneratedError.isInstance(error)
  ) {
    return invalidResponse(context.id, error.message, undefined, error);
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    if (status === undefined) {
      return new ModelError(
        'network',
        `${context.id}: cannot reach ${error.url}: ${error.message}`,
        {
          retryable: error.isRetryable,
          cause: error,
        },
      );
    }
    const retryAfterMs = parseRetryAfter(error.responseHeaders);
    return new ModelError(
      'http',
      `${context.id}: ${describeStatus(status)} (HTTP ${status}): ${error.message}`,
      {
        status,
        retryable: retryableStatus(status),
        ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
        cause: error,
      },
    );
  }
  const message = errorMessage(error);
  return new ModelError('provider', `${context.id}: ${message}`, { cause: error });
}

function callSignal(timeoutMs: number, signal: AbortSignal | undefined): AbortSignal {
  const timeout = AbortSignal.timeout(timeoutMs);
  return signal ? AbortSignal.any([signal, timeout]) : timeout;
}

/**
 * Adapts an AI SDK language model to the formalizer's `ChatModel`: one
 * `generateText` call per request, the SDK's own retries off (ours count them and
 * honour Retry-After), a timeout per call, and errors as `ModelError`s.
 */
export function aiSdkChatModel(
  id: string,
  model: LanguageModel,
  options: AiSdkModelOptions = {},
): ChatModel {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  return {
    id,
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const signal = callSignal(timeoutMs, request.signal);
      const structured =
        request.responseSchema !== undefined && options.structuredOutput !== false
          ? {
              output: Output.object({
                schema: jsonSchema(
                  request.responseSchema.schema as Parameters<typeof jsonSchema>[0],
                ),
                name: request.responseSchema.name,
              }),
            }
          : {};
      try {
        const result = await generateText({
          model,
          ...providerRequest(request),
          ...structured,
          maxRetries: 0,
          abortSignal: signal,
        });
        return {
          text: result.text,
          usage: {
            inputTokens: result.usage.inputTokens ?? null,
            outputTokens: result.usage.outputTokens ?? null,
          },
          model: id,
          retries: 0,
        };
      } catch (error) {
        // A reply that is not the object asked for is still a reply: the caller reads
        // it leniently (and asks again when it cannot).
        if (NoObjectGeneratedError.isInstance(error) && error.text !== undefined) {
          return {
            text: error.text,
            usage: {
              inputTokens: error.usage?.inputTokens ?? null,
              outputTokens: error.usage?.outputTokens ?? null,
            },
            model: id,
            retries: 0,
          };
        }
        throw toModelError(error, {
          id,
          timedOut: signal.aborted && request.signal?.aborted !== true,
          aborted: request.signal?.aborted === true,
          timeoutMs,
        });
      }
    },
  };
}

/** Adapts an AI SDK embedding model (`embedMany`) to the formalizer's `EmbeddingModel`. */
export function aiSdkEmbeddingModel(
  id: string,
  model: SdkEmbeddingModel,
  options: AiSdkModelOptions = {},
): EmbeddingModel {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  return {
    id,
    async embed(texts: readonly string[], callerSignal?: AbortSignal): Promise<EmbeddingResponse> {
      if (texts.length === 0) return { embeddings: [], tokens: 0 };
      const signal = callSignal(timeoutMs, callerSignal);
      try {
        const result = await embedMany({
          model,
          values: [...texts],
          maxRetries: 0,
          abortSignal: signal,
        });
        return { embeddings: result.embeddings, tokens: result.usage.tokens ?? null };
      } catch (error) {
        throw toModelError(error, {
          id,
          timedOut: signal.aborted && callerSignal?.aborted !== true,
          aborted: callerSignal?.aborted === true,
          timeoutMs,
        });
      }
    },
  };
}
