import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import {
  type AiSdkModelOptions,
  aiSdkChatModel,
  aiSdkEmbeddingModel,
} from './ai-sdk-chat-model.js';
import { type ChatModel, type EmbeddingModel, ModelError } from './model.js';
import { type RetryOptions, retryingChatModel, retryingEmbeddingModel } from './retry.js';

export type ProviderName = 'openai' | 'anthropic' | 'ollama' | 'openai-compatible';

export interface ModelSpecifier {
  readonly provider: ProviderName;
  readonly model: string;
}

export interface ModelConfig extends AiSdkModelOptions {
  /** Where keys and base URLs are read from (`process.env` in the CLI). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Overrides the provider's base URL (`--base-url`). */
  readonly baseUrl?: string;
  /** Retries on 429/5xx/timeouts (default `defaultRetryOptions`); `false` turns them off. */
  readonly retry?: RetryOptions | false;
  /** A fetch implementation for the provider library (tests, proxies). */
  readonly fetch?: typeof fetch;
}

interface ProviderInfo {
  readonly keyVariable?: string;
  /** Whether calls fail without a key (local servers do not need one). */
  readonly keyRequired: boolean;
  readonly baseUrlVariable?: string;
  readonly defaultBaseUrl?: string;
}

/** Each provider's environment variables and defaults (documented in docs/formalize.md). */
export const providerInfo: Readonly<Record<ProviderName, ProviderInfo>> = {
  openai: { keyVariable: 'OPENAI_API_KEY', keyRequired: true, baseUrlVariable: 'OPENAI_BASE_URL' },
  anthropic: {
    keyVariable: 'ANTHROPIC_API_KEY',
    keyRequired: true,
    baseUrlVariable: 'ANTHROPIC_BASE_URL',
  },
  ollama: {
    keyVariable: 'OLLAMA_API_KEY',
    keyRequired: false,
    baseUrlVariable: 'OLLAMA_BASE_URL',
    defaultBaseUrl: 'http://localhost:11434/v1',
  },
  'openai-compatible': {
    keyVariable: 'OPENAI_API_KEY',
    keyRequired: false,
    baseUrlVariable: 'OPENAI_BASE_URL',
  },
};

const aliases: Readonly<Record<string, ProviderName>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  claude: 'anthropic',
  ollama: 'ollama',
  'openai-compatible': 'openai-compatible',
  compatible: 'openai-compatible',
  vllm: 'openai-compatible',
  'llama.cpp': 'openai-compatible',
  llamacpp: 'openai-compatible',
};

const modelIdPattern = /^[\w.:/@+-]{1,200}$/;

/**
 * Parses `PROVIDER:MODEL` (`openai:gpt-4o`, `anthropic:claude-sonnet-4-5`,
 * `ollama:llama3.1:8b`, `openai-compatible:qwen2.5`). Only the first colon separates.
 */
export function parseModelSpecifier(text: string): ModelSpecifier {
  const colon = text.indexOf(':');
  const providerText = colon === -1 ? '' : text.slice(0, colon).trim().toLowerCase();
  const model = colon === -1 ? '' : text.slice(colon + 1).trim();
  const provider = aliases[providerText];
  if (provider === undefined || model === '' || !modelIdPattern.test(model)) {
    const known = Object.keys(providerInfo).join(', ');
    throw new ModelError(
      'invalid-model',
      `'${text}' is not PROVIDER:MODEL with a known provider (${known}, or replay:FILE), e.g. openai:gpt-4o.`,
    );
  }
  return { provider, model };
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function resolveConnection(
  specifier: ModelSpecifier,
  config: ModelConfig,
): { apiKey: string | undefined; baseURL: string | undefined } {
  const info = providerInfo[specifier.provider];
  const apiKey =
    info.keyVariable === undefined ? undefined : nonEmpty(config.env[info.keyVariable]);
  if (info.keyRequired && apiKey === undefined && info.keyVariable !== undefined) {
    throw new ModelError(
      'missing-api-key',
      `${info.keyVariable} is not set; ${specifier.provider}:${specifier.model} needs an API key ` +
        `(export ${info.keyVariable}=…, or use --model ollama:MODEL for a local model).`,
      { variable: info.keyVariable },
    );
  }
  const baseURL =
    nonEmpty(config.baseUrl) ??
    (info.baseUrlVariable === undefined ? undefined : nonEmpty(config.env[info.baseUrlVariable])) ??
    info.defaultBaseUrl;
  if (baseURL !== undefined && !/^https?:\/\/[^\s]+$/i.test(baseURL)) {
    throw new ModelError('invalid-model', `the base URL '${baseURL}' is not an http(s) URL.`);
  }
  if (specifier.provider === 'openai-compatible' && baseURL === undefined) {
    throw new ModelError(
      'invalid-model',
      'openai-compatible models need a server: give --base-url (e.g. http://localhost:8000/v1) or set OPENAI_BASE_URL.',
    );
  }
  return { apiKey, baseURL };
}

function languageModelFor(specifier: ModelSpecifier, config: ModelConfig) {
  const { apiKey, baseURL } = resolveConnection(specifier, config);
  const common = {
    ...(baseURL !== undefined ? { baseURL } : {}),
    ...(config.fetch !== undefined ? { fetch: config.fetch } : {}),
  };
  switch (specifier.provider) {
    case 'openai':
      // Chat Completions rather than the Responses API: it is what every
      // OpenAI-compatible server and proxy speaks too.
      return createOpenAI({ ...common, ...(apiKey !== undefined ? { apiKey } : {}) }).chat(
        specifier.model,
      );
    case 'anthropic':
      return createAnthropic({ ...common, ...(apiKey !== undefined ? { apiKey } : {}) })(
        specifier.model,
      );
    case 'ollama':
    case 'openai-compatible':
      return createOpenAICompatible({
        name: specifier.provider,
        baseURL: baseURL ?? '',
        includeUsage: true,
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...(config.fetch !== undefined ? { fetch: config.fetch } : {}),
      }).chatModel(specifier.model);
  }
}

/**
 * A chat model from `PROVIDER:MODEL`, with keys and base URLs from `config.env`
 * (`OPENAI_API_KEY`/`OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`/`ANTHROPIC_BASE_URL`,
 * `OLLAMA_BASE_URL`), a timeout per call and retries. Throws a `ModelError`
 * (`missing-api-key` naming the variable, `invalid-model`) before any network call.
 *
 * @example
 * const model = createChatModel('openai:gpt-4o', { env: process.env });
 * const reply = await model.generate({ system: '…', messages: [{ role: 'user', content: '…' }], purpose: 'encode', sample: 0 });
 */
export function createChatModel(text: string, config: ModelConfig): ChatModel {
  const specifier = parseModelSpecifier(text);
  const id = `${specifier.provider}:${specifier.model}`;
  // Structured output where the API defines it; compatible servers vary (and the SDK
  // warns on the console when one is asked for a schema it cannot take).
  const model = aiSdkChatModel(id, languageModelFor(specifier, config), {
    ...config,
    structuredOutput: specifier.provider === 'openai' || specifier.provider === 'anthropic',
  });
  return config.retry === false ? model : retryingChatModel(model, config.retry ?? {});
}

/**
 * An embedding model from `PROVIDER:MODEL` (`openai:text-embedding-3-small`,
 * `ollama:nomic-embed-text`); Anthropic has no embedding API.
 */
export function createEmbeddingModel(text: string, config: ModelConfig): EmbeddingModel {
  const specifier = parseModelSpecifier(text);
  const id = `${specifier.provider}:${specifier.model}`;
  const { apiKey, baseURL } = resolveConnection(specifier, config);
  const fetchOption = config.fetch !== undefined ? { fetch: config.fetch } : {};
  let model: Parameters<typeof aiSdkEmbeddingModel>[1];
  switch (specifier.provider) {
    case 'openai':
      model = createOpenAI({
        ...(baseURL !== undefined ? { baseURL } : {}),
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...fetchOption,
      }).embedding(specifier.model);
      break;
    case 'anthropic':
      throw new ModelError(
        'invalid-model',
        'Anthropic offers no embedding models; use openai:… or ollama:… for embeddings.',
      );
    case 'ollama':
    case 'openai-compatible':
      model = createOpenAICompatible({
        name: specifier.provider,
        baseURL: baseURL ?? '',
        ...(apiKey !== undefined ? { apiKey } : {}),
        ...fetchOption,
      }).embeddingModel(specifier.model);
      break;
  }
  const embedding = aiSdkEmbeddingModel(id, model, config);
  return config.retry === false ? embedding : retryingEmbeddingModel(embedding, config.retry ?? {});
}
