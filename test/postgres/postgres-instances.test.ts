import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../cli/run.js';
import { callService, killAll, type ServerProcess, startServer } from '../http/server-process.js';
import { type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js';

/**
 * Several `intentguard serve --db postgres://…` processes on one database of a real
 * PostgreSQL server this file starts: any instance serves any session, `kill -9` of one
 * under load loses no answered decision and the others continue its sessions, and
 * `intentguard audit verify postgres://…` checks what they wrote together.
 */

let cluster: PostgresCluster;
let url: string;
beforeAll(async () => {
  cluster = await startPostgresCluster();
  url = await cluster.createDatabase('instances');
}, 120_000);
afterEach(killAll);
afterAll(async () => {
  await killAll();
  await cluster?.remove();
});

const token = 'pg-process-token-0123456789';
const tools = {
  tools: [
    {
      name: 'Pay',
      description: 'Pay someone.',
      inputSchema: {
        type: 'object',
        properties: { payee: { type: 'string' }, amount: { type: 'number' } },
        required: ['payee', 'amount'],
      },
    },
  ],
};
const spec = 'Pay(payee = "Carol", amount = 750) -> Paid\nPaid -> Done\n';
const pay = (id: string) => ({ id, name: 'Pay', args: { payee: 'Carol', amount: 750 } });

interface Answer {
  readonly id?: string;
  readonly action?: string;
  readonly code?: string;
  readonly decisions?: { id: string; action: string }[];
}

const serve = () => startServer(['--db', url], { INTENTGUARD_TOKEN: token }, 60_000);
const post = (server: ServerProcess, path: string, body: unknown) =>
  callService<Answer>(server.url, token, 'POST', `/v1/sessions${path}`, body);

describe('intentguard serve instances on one PostgreSQL', () => {
  it('serve each other’s sessions; kill -9 of one under load loses no answered decision', async () => {
    const [a, b] = await Promise.all([serve(), serve()]);
    const sessions: string[] = [];
    for (const server of [a, b, a]) {
      const created = await post(server, '', { spec, tools });
      expect(created.status).toBe(201);
      sessions.push(created.body.id as string);
    }
    // Each session's checks alternate between the instances while `a` is killed.
    const answered = new Map<string, Map<string, string>>(sessions.map((sid) => [sid, new Map()]));
    // `a` is killed as soon as it has answered two checks, with the rest in flight.
    let answeredByA = 0;
    const load = sessions.flatMap((sid) =>
      Array.from({ length: 12 }, (_, index) => {
        const server = index % 2 === 0 ? a : b;
        const id = `${sid.slice(0, 8)}-${index}`;
        return post(server, `/${sid}/check`, pay(id)).then(
          (answer) => {
            if (answer.status === 200) answered.get(sid)?.set(id, answer.body.action ?? '');
            if (server === a && ++answeredByA === 2) void a.kill();
          },
          () => undefined, // cut off by the kill: never answered
        );
      }),
    );
    await Promise.all(load);
    const answers = [...answered.values()].reduce((sum, each) => sum + each.size, 0);
    expect(answers).toBeGreaterThanOrEqual(2);
    expect(answers).toBeLessThan(sessions.length * 12);

    // The others continue its sessions: a new instance, and `b`, hold every answered decision.
    const c = await serve();
    for (const sid of sessions) {
      const described = await callService<Answer>(c.url, token, 'GET', `/v1/sessions/${sid}`);
      expect(described.status).toBe(200);
      const recorded = new Map(
        (described.body.decisions ?? []).map((decision) => [decision.id, decision.action]),
      );
      for (const [id, action] of answered.get(sid) ?? []) expect(recorded.get(id)).toBe(action);
      // At most one payment ran in each session, whichever instance decided it.
      expect(
        [...recorded.values()].filter((action) => action === 'run').length,
      ).toBeLessThanOrEqual(1);
      const next = await post(b, `/${sid}/check`, pay(`${sid.slice(0, 8)}-after`));
      expect(next.status).toBe(200);
    }
    const verified = await run(['audit', 'verify', url]);
    expect(verified.stdout).toMatch(/intact — \d+ entries/);
    expect(verified.code).toBe(0);
  }, 120_000);

  it('audit verify postgres://…: 1 naming a tampered row, 2 for a database it cannot read', async () => {
    const [row] = await cluster.sql<{ seq: string }>(
      'instances',
      "SELECT seq FROM audit WHERE kind = 'decision' ORDER BY seq LIMIT 1",
    );
    await cluster.sql(
      'instances',
      'UPDATE audit SET body = replace(body, \'"run"\', \'"ask"\') WHERE seq = $1',
      [row?.seq],
    );
    const tampered = await run(['audit', 'verify', url]);
    expect(tampered.code).toBe(1);
    expect(tampered.stdout).toContain(`${url}: entry ${row?.seq} was changed after it was written`);
    const missing = await run([
      'audit',
      'verify',
      `postgres://intentguard:s3cret@127.0.0.1:${cluster.port}/no_such_database`,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/could not connect to postgres:\/\/intentguard:\*\*\*@/);
    expect(missing.stderr).not.toContain('s3cret');
  }, 60_000);

  it('serve refuses a bad connection string with exit 2, showing no password', async () => {
    const refused = await startServer(
      ['--db', 'postgres://intentguard:s3cret@127.0.0.1:1/'],
      { INTENTGUARD_TOKEN: token },
      60_000,
    ).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/exited with 2/);
    expect(refused).toMatch(/names no database/);
    expect(refused).not.toContain('s3cret');
  }, 60_000);
});
