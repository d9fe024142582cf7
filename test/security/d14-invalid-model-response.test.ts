import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../src/formalize/index.js';
import { run } from '../cli/run.js';
import { type FakeLlmServer, startFakeLlmServer } from '../formalize/support/fake-llm-server.js';
import {
  restaurantInstruction,
  serverModel,
  sharedRoot,
  testEnv,
} from '../formalize/support/fixtures.js';

/**
 * D14: a model server answering HTTP 200 with a body that is not a reply (not JSON, or
 * JSON of the wrong shape) was reported as "the provider refused the request". It is an
 * invalid response, and retried like a server error.
 */
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

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    if (ModelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the call succeeded');
}

const garbage = [
  ['a non-JSON body', { rawBody: 'this is not json <html>' }],
  ['JSON of the wrong shape', { body: { foo: [1, 2, 3] } }],
  ['an empty body', { rawBody: '' }],
  ['no choices', { body: { id: 'x', object: 'chat.completion', choices: [] } }],
] as const;

describe('D14: a garbage HTTP 200 is an invalid response, not a refusal', () => {
  it.each(garbage)('%s', async (_, reply) => {
    server.script('encode', reply, reply);
    const error = await failure(serverModel(server, [], { maxRetries: 1 }).generate(request));
    expect(error.code).toBe('invalid-response');
    expect(error.message).toMatch(/^openai:gpt-4o: the provider returned an invalid response/);
    expect(error.message).not.toContain('refused');
    expect(error.retryable).toBe(true);
    expect(server.of('encode')).toHaveLength(2);
  });

  it('is retried, and a good answer after it is used', async () => {
    const delays: number[] = [];
    server.script('encode', { rawBody: 'garbage' }, 'the answer');
    const response = await serverModel(server, delays, { maxRetries: 3 }).generate(request);
    expect(response.text).toBe('the answer');
    expect(response.retries).toBe(1);
    expect(delays).toEqual([10]);
  });

  it('says "invalid response" through the CLI, with exit 2', async () => {
    server.script('encode', { rawBody: 'not json' });
    const result = await run(
      [
        'formalize',
        restaurantInstruction,
        '--states',
        `${sharedRoot}examples/restaurant/states.json`,
        '--model',
        'openai:gpt-4o',
        '--base-url',
        server.url,
        '--max-retries',
        '0',
      ],
      { env: testEnv },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'openai:gpt-4o: the provider returned an invalid response (HTTP 200): Invalid JSON response',
    );
    expect(result.stderr).not.toContain('refused');
  });
});
