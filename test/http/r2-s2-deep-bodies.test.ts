import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { maxBodyNesting } from '../../src/integrations/http/app.js';
import { killAll, startServer } from './server-process.js';

/**
 * S2 through the real `intentguard serve` process: a body nested 300,000 levels deep
 * (the review's `deep.json`) is 400 `invalid-request` on every route — never a 500, an
 * `internal-error` refusal or a stack overflow in the log — and the session goes on.
 */

const token = 'review-token-0123456789abcdef';
const tools = {
  tools: [
    {
      name: 'Pay',
      description: 'Pay someone.',
      inputSchema: {
        type: 'object',
        properties: { payee: { type: 'string' }, amount: { type: 'number' }, note: {} },
        required: ['payee', 'amount'],
      },
    },
  ],
};
const spec = 'Pay(payee = "Bob", amount = 250) -> Paid\nPaid -> Done\n';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-s2-'));
});
afterEach(killAll);
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

async function post(url: string, path: string, body: string) {
  const response = await fetch(`${url}/v1/sessions${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body,
    signal: AbortSignal.timeout(20_000),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('S2: deep JSON bodies are a 400, not a 500', () => {
  it('answers invalid-request for 300,000 levels on observe, check, checks, result and session creation', async () => {
    const server = await startServer(['--db', join(dir, 'deep.db')], {
      INTENTGUARD_TOKEN: token,
    });
    const created = await post(
      server.url,
      '',
      JSON.stringify({ spec, tools, now: '2025-06-02T09:00' }),
    );
    expect(created.status).toBe(201);
    const sid = `/${created.body.id as string}`;
    const deep = nested(300_000);
    const bodies: Array<[string, string]> = [
      [`${sid}/observe`, `{"updates":{"PayResult":{"status":${deep}}}}`],
      [
        `${sid}/check`,
        `{"id":"d","name":"Pay","args":{"payee":"Bob","amount":250,"note":${deep}}}`,
      ],
      [`${sid}/checks`, `{"calls":[{"id":"d","name":"Pay","args":${deep}}]}`],
      [`${sid}/result`, `{"id":"d","output":${deep}}`],
      ['', `{"spec":"","tools":${deep}}`],
    ];
    for (const [path, body] of bodies) {
      const answer = await post(server.url, path, body);
      expect(answer.status, path).toBe(400);
      expect(answer.body, path).toMatchObject({
        code: 'invalid-request',
        message: `the request body is nested more than ${maxBodyNesting} levels deep`,
      });
    }
    // Brackets inside strings are text, not nesting; a body at the limit is read.
    const inText = await post(
      server.url,
      `${sid}/check`,
      JSON.stringify({ id: 't', name: 'Pay', args: { payee: 'Bob', amount: 250, note: deep } }),
    );
    expect(inText.status).not.toBe(400);
    const atLimit = await post(
      server.url,
      `${sid}/observe`,
      `{"updates":{"PayResult":{"status":${nested(maxBodyNesting - 3)}}}}`,
    );
    expect(atLimit.status).toBe(200);
    expect(server.stderr()).not.toMatch(/internal error|call stack/i);
  });
});
