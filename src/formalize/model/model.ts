/**
 * The narrow model interface the formalizer talks to. Everything provider-specific
 * (the Vercel AI SDK, HTTP, keys) sits behind it, so that the pipeline is tested
 * against scripted models and providers are swapped without touching it.
 */

import { IntentguardError } from '../../language/index.js';

/** Which step of the pipeline a request belongs to; recorded, and part of the replay key. */
export type ModelPurpose = 'goal' | 'encode' | 'decode' | 'check';

export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

export interface ChatRequest {
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  /** Sampling temperature; the provider's default when absent. */
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
  /** Where in the pipeline this call is (not sent to the provider). */
  readonly purpose: ModelPurpose;
  /** The sample this call belongs to, 0-based (not sent to the provider). */
  readonly sample: number;
  readonly signal?: AbortSignal;
  /**
   * The reply should be one JSON object of this JSON Schema. Providers with structured
   * output (OpenAI's `json_schema` response format, Anthropic's) are asked for it;
   * others get only the prompt's instructions. The reply stays text, which the caller
   * reads leniently: a model that ignores the request is still understood.
   */
  readonly responseSchema?: {
    readonly name: string;
    readonly schema: Readonly<Record<string, unknown>>;
  };
}

/**
 * What a request sends to the provider, plain and without the fields that stay
 * local: messages copied to plain objects, and the sampling options that are set.
 */
export function providerRequest(request: ChatRequest): {
  readonly system: string;
  readonly messages: ChatMessage[];
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
} {
  return {
    system: request.system,
    messages: request.messages.map((message) => ({ role: message.role, content: message.content })),
    ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
  };
}

export interface TokenUsage {
  readonly inputTokens: number | null;
  readonly outputTokens: number | null;
}

export interface ChatResponse {
  readonly text: string;
  readonly usage: TokenUsage;
  /** The model that answered, as `provider:model`. */
  readonly model: string;
  /** How many times the call was retried before this answer. */
  readonly retries: number;
}

/** A chat model: one request in, one text answer out. */
export interface ChatModel {
  /** `provider:model`, e.g. `openai:gpt-4o`; used for prices and records. */
  readonly id: string;
  generate(request: ChatRequest): Promise<ChatResponse>;
}

export interface EmbeddingResponse {
  readonly embeddings: readonly (readonly number[])[];
  readonly tokens: number | null;
}

/** An embedding model for `~` similarity. */
export interface EmbeddingModel {
  readonly id: string;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<EmbeddingResponse>;
}

export type ModelErrorCode =
  /** No API key in the environment; `variable` names the one to set. */
  | 'missing-api-key'
  /** A `--model` value that names no known provider or is malformed. */
  | 'invalid-model'
  /** The provider answered with an HTTP error. */
  | 'http'
  /**
   * The provider answered with success (HTTP 2xx) but the body is not a response: not
   * JSON, JSON of the wrong shape, no choices. Retried, as a proxy's or a server's
   * hiccup may be.
   */
  | 'invalid-response'
  /** No connection, DNS failure, reset. */
  | 'network'
  /** The call took longer than the timeout. */
  | 'timeout'
  /** The caller aborted. */
  | 'aborted'
  /** A replayed run asked for an exchange the recording does not hold. */
  | 'replay-miss'
  /** The recording file is malformed. */
  | 'invalid-recording'
  /** Anything else the provider library threw. */
  | 'provider';

/** A failed model call, as data: a code, the HTTP status, and whether retrying may help. */
export class ModelError extends IntentguardError {
  static override readonly marker = 'intentguard.error.ModelError';
  static readonly errorName = 'IntentguardModelError';
  override readonly name = ModelError.errorName;
  override readonly code: ModelErrorCode;
  readonly status: number | undefined;
  readonly retryable: boolean;
  /** The delay the server asked for (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** For `missing-api-key`: the environment variable to set. */
  readonly variable: string | undefined;

  constructor(
    code: ModelErrorCode,
    message: string,
    details: {
      readonly status?: number;
      readonly retryable?: boolean;
      readonly retryAfterMs?: number;
      readonly variable?: string;
      readonly cause?: unknown;
    } = {},
  ) {
    super({ code, message, cause: details.cause });
    this.code = code;
    this.status = details.status;
    this.retryable = details.retryable ?? false;
    this.retryAfterMs = details.retryAfterMs;
    this.variable = details.variable;
  }
}

export const noUsage: TokenUsage = Object.freeze({ inputTokens: null, outputTokens: null });

/** Adds usages; an unknown count stays unknown only when every part is unknown. */
export function addUsage(left: TokenUsage, right: TokenUsage): TokenUsage {
  const add = (a: number | null, b: number | null) =>
    a === null && b === null ? null : (a ?? 0) + (b ?? 0);
  return {
    inputTokens: add(left.inputTokens, right.inputTokens),
    outputTokens: add(left.outputTokens, right.outputTokens),
  };
}
