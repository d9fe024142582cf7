import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import { callService, killAll, startServer } from './server-process.js';

/**
 * S3 through the real `intentguard serve` process: with approver tokens, an agent's
 * token (the one a page or a host holds) cannot approve its own calls, and an approver
 * token cannot run sessions; each token has a cap on open sessions; failed
 * authentications are limited per client address.
 */

const agent = 'agent-token-0123456789abcdef';
const other = 'other-agent-0123456789abcdef';
const approver = 'approver-token-0123456789abcdef';
const tools = {
  tools: [
    {
      name: 'Pay',
      description: 'Pay someone.',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { payee: { type: 'string' }, amount: { type: 'number' } },
        required: ['payee', 'amount'],
      },
    },
  ],
};
const spec =
  '@confirm(financial, "Confirm the payment")\n@repeat\nPay(payee = "Carol") -> Paid\nPaid -> Done\n';
const pay = (id: string) => ({ id, name: 'Pay', args: { payee: 'Carol', amount: 750 } });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-s3-'));
});
afterEach(killAll);
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  readonly id?: string;
  readonly action?: string;
  readonly code?: string;
  readonly approvals?: ReadonlyArray<{ readonly session: string; readonly id: string }>;
  readonly sessions?: readonly unknown[];
}

function api(url: string, bearer: string, method: string, path: string, body?: unknown) {
  return callService<Answer>(url, bearer, method, `/v1${path}`, body);
}

const session = { spec, tools, now: '2025-06-02T09:00' };

describe('S3: token roles and limits', () => {
  it('with approver tokens, only an approver approves; an agent token may withdraw; approvers run nothing', async () => {
    const server = await startServer(['--db', join(dir, 'roles.db'), '--token', agent], {
      INTENTGUARD_TOKEN: other,
      INTENTGUARD_APPROVER_TOKEN: approver,
    });
    expect(server.stderr()).not.toContain('no --approver-token');
    const created = await api(server.url, agent, 'POST', '/sessions', session);
    const sid = created.body.id as string;
    expect(
      (await api(server.url, agent, 'POST', `/sessions/${sid}/check`, pay('p-1'))).body.action,
    ).toBe('ask');

    // The agent's token (the page's, the host's) cannot approve its own call.
    const self = await api(server.url, agent, 'POST', `/sessions/${sid}/approve`, {
      id: 'p-1',
      approved: true,
    });
    expect(self.status).toBe(403);
    expect(self.body.code).toBe('forbidden');
    expect(
      (await api(server.url, agent, 'POST', `/sessions/${sid}/check`, pay('p-1'))).body.action,
    ).toBe('ask');

    // The approver sees every token's pending approvals and answers them.
    const otherSession = (await api(server.url, other, 'POST', '/sessions', session)).body
      .id as string;
    await api(server.url, other, 'POST', `/sessions/${otherSession}/check`, pay('q-1'));
    const pending = await api(server.url, approver, 'GET', '/approvals');
    expect(pending.body.approvals?.map((a) => [a.session, a.id]).sort()).toEqual(
      [
        [sid, 'p-1'],
        [otherSession, 'q-1'],
      ].sort(),
    );
    // An agent token still sees only its own.
    expect((await api(server.url, agent, 'GET', '/approvals')).body.approvals).toMatchObject([
      { id: 'p-1' },
    ]);
    const approved = await api(server.url, approver, 'POST', `/sessions/${sid}/approve`, {
      id: 'p-1',
      approved: true,
    });
    expect(approved.status).toBe(200);
    expect(approved.body.action).toBe('run');
    expect(
      (await api(server.url, agent, 'POST', `/sessions/${sid}/check`, pay('p-1'))).body.action,
    ).toBe('run');
    expect((await api(server.url, approver, 'GET', `/sessions/${otherSession}`)).status).toBe(200);

    // A denial is the safe direction: the agent's token may withdraw its own call.
    await api(server.url, agent, 'POST', `/sessions/${sid}/result`, { id: 'p-1', output: {} });
    expect(
      (await api(server.url, agent, 'POST', `/sessions/${sid}/check`, pay('p-2'))).body.action,
    ).toBe('ask');
    const withdrawn = await api(server.url, agent, 'POST', `/sessions/${sid}/approve`, {
      id: 'p-2',
      approved: false,
    });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.action).toBe('refuse');

    // An approver token runs no session.
    for (const [method, path, body] of [
      ['POST', '/sessions', session],
      ['POST', `/sessions/${sid}/check`, pay('p-3')],
      ['POST', `/sessions/${sid}/result`, { id: 'p-1', output: {} }],
      ['POST', `/sessions/${sid}/observe`, { updates: {} }],
      ['POST', `/sessions/${sid}/finish`, {}],
    ] as const) {
      const answer = await api(server.url, approver, method, path, body);
      expect(answer.status, path).toBe(403);
      expect(answer.body.code, path).toBe('forbidden');
    }
  });

  it('without approver tokens, a token approves its own calls (and the start-up says so)', async () => {
    const server = await startServer(['--db', join(dir, 'single.db'), '--token', agent]);
    expect(server.stderr()).toContain(
      'no --approver-token: each token approves the calls of its own sessions',
    );
    const sid = (await api(server.url, agent, 'POST', '/sessions', session)).body.id as string;
    await api(server.url, agent, 'POST', `/sessions/${sid}/check`, pay('p-1'));
    const approved = await api(server.url, agent, 'POST', `/sessions/${sid}/approve`, {
      id: 'p-1',
      approved: true,
    });
    expect(approved.body.action).toBe('run');
  });

  it('caps the open sessions of a token; a finished session frees its place, across a restart too', async () => {
    const db = join(dir, 'cap.db');
    const args = ['--db', db, '--token', agent, '--token', other, '--max-sessions', '2'];
    const server = await startServer(args);
    const first = (await api(server.url, agent, 'POST', '/sessions', session)).body.id as string;
    expect((await api(server.url, agent, 'POST', '/sessions', session)).status).toBe(201);
    const third = await api(server.url, agent, 'POST', '/sessions', session);
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('too-many-sessions');
    // Another token has its own places.
    expect((await api(server.url, other, 'POST', '/sessions', session)).status).toBe(201);
    await server.stop();

    const again = await startServer(args);
    expect((await api(again.url, agent, 'POST', '/sessions', session)).status).toBe(429);
    // Finish the first one: the guard's finish needs Paid, so approve and pay first.
    await api(again.url, agent, 'POST', `/sessions/${first}/check`, pay('p-1'));
    await api(again.url, agent, 'POST', `/sessions/${first}/approve`, {
      id: 'p-1',
      approved: true,
    });
    await api(again.url, agent, 'POST', `/sessions/${first}/result`, { id: 'p-1', output: {} });
    expect((await api(again.url, agent, 'POST', `/sessions/${first}/finish`, {})).body.action).toBe(
      'run',
    );
    expect((await api(again.url, agent, 'POST', '/sessions', session)).status).toBe(201);
  });

  it('limits failed authentications per address, before looking at the token', async () => {
    const server = await startServer([
      '--db',
      join(dir, 'auth.db'),
      '--token',
      agent,
      '--auth-failure-limit',
      '2',
    ]);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      statuses.push(
        (await api(server.url, `wrong-token-${attempt}-0123456789`, 'GET', '/sessions')).status,
      );
    }
    // A burst of twice the limit is heard, then the address is refused.
    expect(statuses.slice(0, 4)).toEqual([401, 401, 401, 401]);
    expect(statuses.slice(4).every((status) => status === 429)).toBe(true);
    const locked = await api(server.url, agent, 'GET', '/sessions');
    expect(locked.status).toBe(429);
    expect(locked.retryAfter).toBe('1');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await api(server.url, agent, 'GET', '/sessions')).status).toBe(200);
  });

  it('refuses to start with a token in both roles, or an approver token too short', async () => {
    const both = await run(['serve', '--token', agent, '--approver-token', agent]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('a token cannot be both --token and --approver-token');
    const short = await run(['serve', '--token', agent], {
      env: { INTENTGUARD_APPROVER_TOKEN: 'short' },
    });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least 16 printable characters');
    const cap = await run(['serve', '--token', agent, '--max-sessions', '0']);
    expect(cap.code).toBe(2);
  });
});
