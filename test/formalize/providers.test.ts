import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  createChatModel,
  createEmbeddingModel,
  ModelError,
  parseModelSpecifier,
} from '../../src/formalize/index.js';
import { type FakeLlmServer, startFakeLlmServer } from './support/fake-llm-server.js';

let server: FakeLlmServer;

beforeEach(async () => {
  server = await startFakeLlmServer();
});

afterEach(async () => {
  await server.close();
});

const request = {
  system: 'You are the intent encoder.',
  messages: [{ role: 'user' as const, content: 'hi' }],
  purpose: 'encode' as const,
  sample: 0,
};

function thrown(run: () => unknown): ModelError {
  try {
    run();
  } catch (error) {
    if (ModelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('did not throw');
}

describe('providers', () => {
  it('parses PROVIDER:MODEL, splitting at the first colon only', () => {
    expect(parseModelSpecifier('openai:gpt-4o')).toEqual({ provider: 'openai', model: 'gpt-4o' });
    expect(parseModelSpecifier('ollama:llama3.1:8b')).toEqual({
      provider: 'ollama',
      model: 'llama3.1:8b',
    });
    expect(parseModelSpecifier('vllm:Qwen/Qwen2.5-7B-Instruct')).toEqual({
      provider: 'openai-compatible',
      model: 'Qwen/Qwen2.5-7B-Instruct',
    });
    for (const bad of ['gpt-4o', 'mystery:model', 'openai:', 'openai:has space']) {
      expect(thrown(() => parseModelSpecifier(bad)).code, bad).toBe('invalid-model');
    }
  });

  it('names the missing key variable before any network call', () => {
    const openai = thrown(() => createChatModel('openai:gpt-4o', { env: {} }));
    expect(openai.code).toBe('missing-api-key');
    expect(openai.variable).toBe('OPENAI_API_KEY');
    expect(openai.message).toContain('OPENAI_API_KEY is not set');
    const anthropic = thrown(() =>
      createChatModel('anthropic:claude-sonnet-4-5', {
        env: { OPENAI_API_KEY: 'x', ANTHROPIC_API_KEY: '  ' },
      }),
    );
    expect(anthropic.variable).toBe('ANTHROPIC_API_KEY');
    expect(server.requests).toHaveLength(0);
  });

  it('honours OPENAI_BASE_URL from the environment', async () => {
    server.script('encode', 'hello');
    const model = createChatModel('openai:gpt-4o-mini', {
      env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.url },
      retry: false,
    });
    const response = await model.generate(request);
    expect(response).toMatchObject({
      text: 'hello',
      model: 'openai:gpt-4o-mini',
      usage: { inputTokens: 1000, outputTokens: 100 },
      retries: 0,
    });
    expect(server.requests[0]?.body['model']).toBe('gpt-4o-mini');
  });

  it('speaks the Anthropic messages protocol with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL', async () => {
    server.script('encode', 'from claude');
    const model = createChatModel('anthropic:claude-sonnet-4-5', {
      env: { ANTHROPIC_API_KEY: 'ant-key', ANTHROPIC_BASE_URL: server.url },
      retry: false,
    });
    const response = await model.generate(request);
    expect(response.text).toBe('from claude');
    expect(response.usage).toEqual({ inputTokens: 1000, outputTokens: 100 });
    const seen = server.requests[0];
    expect(seen?.path).toBe('/v1/messages');
    expect(seen?.headers['x-api-key']).toBe('ant-key');
    expect(seen?.system).toBe('You are the intent encoder.');
  });

  it('asks OpenAI and Anthropic for a structured reply, compatible servers not, and returns any reply as text', async () => {
    const schema = {
      type: 'object',
      properties: { verdict: { type: 'string' } },
      required: ['verdict'],
      additionalProperties: false,
    };
    const structured = { ...request, responseSchema: { name: 'verdict', schema } };
    server.script('encode', 'MATCH', '{"verdict": "agree"}', 'plain');
    const openai = createChatModel('openai:gpt-4o', {
      env: { OPENAI_API_KEY: 'k' },
      baseUrl: server.url,
      retry: false,
    });
    // Not the object asked for: still the reply, for the caller's lenient reading.
    expect((await openai.generate(structured)).text).toBe('MATCH');
    expect(server.requests[0]?.body['response_format']).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'verdict', schema: { required: ['verdict'] } },
    });
    const anthropic = createChatModel('anthropic:claude-sonnet-4-5', {
      env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url },
      retry: false,
    });
    expect((await anthropic.generate(structured)).text).toBe('{"verdict": "agree"}');
    expect(JSON.stringify(server.requests[1]?.body['output_config'])).toContain('"verdict"');
    const compatible = createChatModel('openai-compatible:qwen2.5', {
      env: {},
      baseUrl: server.url,
      retry: false,
    });
    expect((await compatible.generate(structured)).text).toBe('plain');
    expect(server.requests[2]?.body['response_format']).toBeUndefined();
  });

  it('reaches Ollama and other OpenAI-compatible servers without a key', async () => {
    server.script('encode', 'local', 'vllm');
    const ollama = createChatModel('ollama:llama3.1:8b', {
      env: { OLLAMA_BASE_URL: server.url },
      retry: false,
    });
    expect((await ollama.generate(request)).text).toBe('local');
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[0]?.body['model']).toBe('llama3.1:8b');
    const compatible = createChatModel('openai-compatible:qwen2.5', {
      env: {},
      baseUrl: server.url,
      retry: false,
    });
    expect((await compatible.generate(request)).text).toBe('vllm');
    expect(
      thrown(() => createChatModel('openai-compatible:qwen2.5', { env: {} })).message,
    ).toContain('--base-url');
    expect(
      thrown(() => createChatModel('ollama:x', { env: {}, baseUrl: 'file:///etc/passwd' })).message,
    ).toContain('not an http(s) URL');
  });

  it('maps connection failures to retryable network errors', async () => {
    await server.close();
    const model = createChatModel('openai:gpt-4o', {
      env: { OPENAI_API_KEY: 'k' },
      baseUrl: server.url,
      retry: false,
    });
    const error = await model.generate(request).catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && error.code).toBe('network');
    expect(ModelError.isInstance(error) && error.retryable).toBe(true);
  });

  it('has no Anthropic embeddings', () => {
    expect(
      thrown(() => createEmbeddingModel('anthropic:claude', { env: { ANTHROPIC_API_KEY: 'k' } }))
        .code,
    ).toBe('invalid-model');
  });
});
