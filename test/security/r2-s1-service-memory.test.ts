import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import { callService, killAll, type ServerProcess, startServer } from '../http/server-process.js';

/**
 * S1 (round 2) through the real `intentguard serve` process, on a small heap: check +
 * result pairs of ~1 MB pages used to kill a 512 MB service after about 35, taking every
 * tenant with it. Now a session that holds --max-session-text takes no more work (409
 * `session-full`), the sessions in memory together hold at most --max-service-text
 * (sessions that take no more work, or idle ones, are dropped from memory; else 503
 * `over-capacity`), and the process stays up.
 */
const token = 'test-token-0123456789abcdef';
const tools = {
  tools: [
    {
      name: 'ReadPage',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
    },
    {
      name: 'Pay',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { payee: { type: 'string' }, amount: { type: 'number' } },
        required: ['payee', 'amount'],
      },
    },
  ],
};
const spec = 'Pay(payee = "Bob", amount <= 10) -> Paid\nPaid -> Done\n';
const pageLength = 990_000;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-s1-'));
});
afterEach(killAll);
afterAll(async () => {
  await killAll();
  rmSync(dir, { recursive: true, force: true });
});

function api(server: ServerProcess, method: string, path: string, body?: unknown) {
  return callService(server.url, token, method, path, body, 20_000);
}

function page(index: number): string {
  const line = 'the quick brown fox jumps\nover the lazy dog.\n';
  return `<h1>page ${index}</h1>\n${line.repeat(Math.ceil(pageLength / line.length))}`.slice(
    0,
    pageLength,
  );
}

/** A session's agent: reads pages (check, then result) and pays. */
function agentOf(server: ServerProcess, session: string) {
  let calls = 0;
  return {
    id: session,
    async read() {
      const id = `read-${++calls}`;
      const check = await api(server, 'POST', `/v1/sessions/${session}/check`, {
        id,
        name: 'ReadPage',
        args: { url: `https://news.example/${id}` },
      });
      if (check.status !== 200) return check;
      expect(check.body.action).toBe('run');
      return api(server, 'POST', `/v1/sessions/${session}/result`, {
        id,
        output: { content: page(calls) },
      });
    },
    pay() {
      return api(server, 'POST', `/v1/sessions/${session}/check`, {
        id: `pay-${++calls}`,
        name: 'Pay',
        args: { payee: 'Bob', amount: 5 },
      });
    },
  };
}

async function newSession(server: ServerProcess) {
  const created = await api(server, 'POST', '/v1/sessions', { spec, tools });
  expect(created.status).toBe(201);
  return agentOf(server, created.body.id as string);
}

describe('S1: serve bounds the memory of sessions', () => {
  it('fails the full session closed, lets other sessions go on, refuses new work beyond the service budget, and stays up', async () => {
    const server = await startServer(
      [
        '--db',
        join(dir, 'memory.db'),
        '--token',
        token,
        '--max-session-text',
        '2500000',
        '--max-service-text',
        '4500000',
      ],
      // A small heap, as in the review (it died on a 512 MB one).
      { NODE_OPTIONS: '--max-old-space-size=160' },
    );
    const first = await newSession(server);
    for (let index = 0; index < 3; index++) expect((await first.read()).body.ok).toBe(true);
    // It holds ~3 MB of calls and results, beyond 2,500,000: it takes no more work.
    const refused = await first.read();
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('session-full');
    expect(refused.body.message).toContain('--max-session-text');
    expect((await first.pay()).body.code).toBe('session-full');

    // Another session goes on: the full one is dropped from memory to make room.
    const second = await newSession(server);
    for (let index = 0; index < 2; index++) expect((await second.read()).body.ok).toBe(true);
    expect((await second.pay()).body.action).toBe('run');
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr()).not.toMatch(/heap out of memory|FATAL/);
  });

  it('answers 503 over-capacity when the sessions in use hold the whole budget', async () => {
    const args = [
      '--db',
      join(dir, 'capacity.db'),
      '--token',
      token,
      '--max-session-text',
      '2500000',
      '--max-service-text',
      '4500000',
    ];
    const server = await startServer(args);
    const [a, b, c] = [
      await newSession(server),
      await newSession(server),
      await newSession(server),
    ];
    for (const agent of [a, b]) {
      for (let index = 0; index < 2; index++) expect((await agent.read()).body.ok).toBe(true);
    }
    // a and b are in use (not idle, not full) and hold ~4 MB: c's page would go beyond.
    expect((await c.read()).body.ok).toBe(true);
    const busy = await c.read();
    expect(busy.status).toBe(503);
    expect(busy.body.code).toBe('over-capacity');
    expect(busy.retryAfter).toBe('5');
    // Nothing was decided for it, and the sessions in memory still answer.
    expect((await a.pay()).status).toBe(503);
    const listed = await api(server, 'GET', '/v1/sessions');
    expect(listed.status).toBe(200);
    expect(server.child.exitCode).toBeNull();

    // After a restart, the open sessions that do not fit stay in the file until asked for.
    await server.kill();
    const again = await startServer(args);
    const restored = Number(/(\d+) open sessions? restored/.exec(again.stderr())?.[1]);
    const left = Number(/(\d+) open sessions? left in the store/.exec(again.stderr())?.[1]);
    expect(left).toBeGreaterThanOrEqual(1);
    expect(restored + left).toBe(3);
    const reopened = await api(again, 'POST', `/v1/sessions/${c.id}/check`, {
      id: 'after-restart',
      name: 'Pay',
      args: { payee: 'Bob', amount: 5 },
    });
    expect(reopened.body.action).toBe('run');
  });

  it('holds on a 128 MB heap with the default limits, whatever the agents send', async () => {
    const server = await startServer(['--db', join(dir, 'defaults.db'), '--token', token], {
      NODE_OPTIONS: '--max-old-space-size=128',
    });
    const agents = [await newSession(server), await newSession(server), await newSession(server)];
    const answers = new Map<string, number>();
    // ~120 MB of pages: without limits the heap would hold a fraction of it.
    for (let index = 0; index < 120; index++) {
      const answer = await agents[index % agents.length]?.read();
      const outcome = answer?.status === 200 ? 'kept' : String(answer?.body.code);
      answers.set(outcome, (answers.get(outcome) ?? 0) + 1);
    }
    expect(answers.get('kept')).toBeGreaterThanOrEqual(6);
    expect(
      [...answers.keys()].every((outcome) =>
        ['kept', 'session-full', 'over-capacity'].includes(outcome),
      ),
    ).toBe(true);
    expect(server.child.exitCode).toBeNull();
    // A new tenant is still served.
    const late = await newSession(server);
    expect((await late.pay()).body.action).toBe('run');
    expect(server.stderr()).not.toMatch(/heap out of memory|FATAL/);
  });

  it('refuses a session limit larger than the service budget', async () => {
    const result = await run([
      'serve',
      '--token',
      token,
      '--db',
      join(dir, 'bad.db'),
      '--max-session-text',
      '5000000',
      '--max-service-text',
      '4000000',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--max-session-text');
  });
});
