import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteBackend } from './backend.js';

/**
 * The remote backend against a loopback server that answers whatever a test scripts:
 * anything but a well-formed decision for the call asked about is a refusal.
 */

let server: Server;
let url: string;
let answer: { status: number; body: string } = { status: 200, body: '{}' };
const seen: { path: string; body: unknown }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => {
      text += chunk;
    });
    request.on('end', () => {
      seen.push({ path: request.url ?? '', body: text ? JSON.parse(text) : undefined });
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const verdict = {
  decision: 'allow',
  reasons: [],
  performs: [],
  achieved: {},
  done: false,
  feedback: '',
};

async function checkWith(status: number, body: unknown) {
  answer = { status, body: typeof body === 'string' ? body : JSON.stringify(body) };
  const backend = remoteBackend({ url, token: 'token-0123456789abcdef', session: 's1' }, {});
  return backend.check({ id: 'c1', name: 'PayDeposit', args: { amount: 20 } });
}

describe('the remote backend reads the service’s answers warily', () => {
  it('takes a well-formed decision for the call, sending the call as the service expects', async () => {
    const result = await checkWith(200, {
      id: 'c1',
      action: 'run',
      verdict,
      message: 'ok',
      prompt: '',
    });
    expect(result).toMatchObject({ decision: { id: 'c1', action: 'run' } });
    expect(result.failure).toBeUndefined();
    expect(seen.at(-1)).toEqual({
      path: '/v1/sessions/s1/check',
      body: { id: 'c1', name: 'PayDeposit', args: { amount: 20 } },
    });
  });

  it.each([
    ['a decision for another call', 200, { id: 'other', action: 'run', verdict }],
    ['an unknown action', 200, { id: 'c1', action: 'allow', verdict }],
    ['no verdict', 200, { id: 'c1', action: 'run' }],
    ['a verdict without reasons', 200, { id: 'c1', action: 'run', verdict: { decision: 'allow' } }],
    ['not JSON', 200, 'run'],
    ['JSON null', 200, 'null'],
    ['an error status with a run body', 500, { id: 'c1', action: 'run', verdict }],
    ['a problem', 409, { code: 'session-finished', message: 'The session has finished.' }],
  ])('refuses %s', async (_name, status, body) => {
    const result = await checkWith(status, body);
    expect(result.decision.action).toBe('refuse');
    expect(result.decision.verdict.decision).toBe('reject');
    expect(result.failure).toBe('guard-error');
  });

  it('names the service’s problem code in the message', async () => {
    const result = await checkWith(409, {
      code: 'session-finished',
      message: 'The session has finished.',
    });
    expect(result.decision.message).toContain('409 (session-finished): The session has finished.');
  });

  it('creates the session once, with the GUI defaults, and retries creating it after a failure', async () => {
    answer = { status: 503, body: '{"code":"down","message":"down"}' };
    const backend = remoteBackend(
      { url, token: 'token-0123456789abcdef' },
      { spec: 'S', states: { A: {} } },
    );
    expect((await backend.check({ id: 'a', name: 'Reserve' })).failure).toBe('guard-error');
    answer = { status: 201, body: '{"id":"fresh"}' };
    await backend.check({ id: 'b', name: 'Reserve' });
    const creations = seen.filter((request) => request.path === '/v1/sessions');
    expect(creations.at(-1)?.body).toEqual({
      spec: 'S',
      states: { A: {} },
      finishWaitsForResults: false,
    });
    expect(creations).toHaveLength(2);
    expect(seen.at(-1)?.path).toBe('/v1/sessions/fresh/check');
  });
});
