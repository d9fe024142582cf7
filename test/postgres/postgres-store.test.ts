import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from '../../src/integrations/http/app.js';
import { openServiceStore } from '../../src/integrations/http/open-store.js';
import { chainEntries, chainStart } from '../../src/store/audit-chain.js';
import { verifyAuditDatabase } from '../../src/store/audit-postgres.js';
import { emptyJournal, extendAnchor, sessionRecordFields } from '../../src/store/journal-anchor.js';
import { openPostgres, PostgresStoreError } from '../../src/store/postgres.js';
import {
  PostgresServiceStore,
  postgresAuditSchema,
  postgresServiceSchema,
} from '../../src/store/postgres-service-store.js';
import { type StoredSession, sha256Hex } from '../../src/store/service-store.js';
import { type PostgresCluster, startPostgresCluster } from '../support/postgres-cluster.js';

/**
 * The PostgreSQL store against a real server this file starts: migrations, URLs, and
 * two service instances (two apps, each with its own store and connection pool, as two
 * processes have) sharing one database.
 */

let cluster: PostgresCluster;
beforeAll(async () => {
  cluster = await startPostgresCluster();
}, 120_000);
afterAll(async () => {
  await cluster?.remove();
});

const token = 'pg-agent-token-0123456789';
const approver = 'pg-approver-token-0123456789';
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
/** Carol is paid once: a second payment, whatever its id, is refused. */
const payOnce = 'Pay(payee = "Carol", amount = 750) -> Paid\nPaid -> Done\n';
const payAsked = `@confirm(financial, "Confirm the payment")\n${payOnce}`;
const pay = (id: string) => ({ id, name: 'Pay', args: { payee: 'Carol', amount: 750 } });

interface Answer {
  readonly id?: string;
  readonly action?: string;
  readonly code?: string;
  readonly [key: string]: unknown;
}

/** One service instance: an app on its own store (its own pool) on the database. */
async function instance(
  url: string,
  roles = false,
  memory?: { maxSessionText: number; maxServiceText: number },
  maxOpenSessions?: number,
) {
  const store = await openServiceStore(url);
  if (!(store instanceof PostgresServiceStore)) throw new Error('not the PostgreSQL store');
  const { app } = createServiceApp({
    store,
    tokens: [token],
    ...(roles ? { approverTokens: [approver] } : {}),
    ...(memory ? { memory } : {}),
    ...(maxOpenSessions !== undefined ? { maxOpenSessions } : {}),
    log: () => undefined,
  });
  const call = async (method: string, path: string, body?: unknown, bearer = token) => {
    const response = await app.request(path, {
      method,
      headers: { Authorization: `Bearer ${bearer}`, 'Content-Type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  return { store, call };
}

let databases = 0;
async function database(): Promise<string> {
  return cluster.createDatabase(`intentguard_${++databases}`);
}

async function migrations(name: string) {
  return cluster.sql<{ part: string; version: number }>(
    name,
    'SELECT part, version FROM intentguard_migrations ORDER BY part, version',
  );
}

describe('migrations', () => {
  it('build an empty database once, even when two instances start together', async () => {
    const url = await database();
    const name = `intentguard_${databases}`;
    const [a, b] = await Promise.all([openServiceStore(url), openServiceStore(url)]);
    expect(await migrations(name)).toEqual([
      { part: 'audit', version: 1 },
      { part: 'audit', version: 2 },
      { part: 'service', version: 1 },
      { part: 'service', version: 2 },
      { part: 'service', version: 3 },
    ]);
    expect(await verifyAuditDatabase(url)).toEqual({ ok: true, entries: 0, head: '0'.repeat(64) });
    await Promise.all([a.close(), b.close()]);
  });

  it('bring a database of the previous version (1) to 2, keeping its sessions, journals and chain', async () => {
    const url = await database();
    const name = `intentguard_${databases}`;
    // A database at version 1, with a session of one checked call as version 1 wrote it.
    const first = [postgresServiceSchema, postgresAuditSchema].map((schema) => ({
      ...schema,
      migrations: schema.migrations.filter((step) => step.version === 1),
    }));
    await (await openPostgres(url, { schemas: first })).end();
    expect(await migrations(name)).toEqual([
      { part: 'audit', version: 1 },
      { part: 'service', version: 1 },
    ]);
    const session: StoredSession = {
      id: 'old-session',
      tokenHash: sha256Hex(token),
      specText: payOnce,
      schemaKind: 'tools',
      schemaJson: JSON.stringify(tools),
      optionsJson: '{}',
      now: '2026-01-05T09:00:00.000Z',
      timeZone: 'UTC',
      createdAt: '2026-01-05T09:00:00.000Z',
      finished: false,
    };
    await cluster.sql(
      name,
      `INSERT INTO sessions (id, token_hash, spec_text, schema_kind, schema_json, options_json, now, time_zone, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        session.id,
        session.tokenHash,
        session.specText,
        session.schemaKind,
        session.schemaJson,
        session.optionsJson,
        session.now,
        session.timeZone,
        session.createdAt,
      ],
    );
    const entries = chainEntries(
      chainStart,
      [{ session: session.id, kind: 'session', body: sessionRecordFields(session) }],
      session.createdAt,
    );
    for (const entry of entries)
      await cluster.sql(
        name,
        'INSERT INTO audit (seq, at, session, kind, body, prev, hash) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [entry.seq, entry.at, entry.session, entry.kind, entry.body, entry.prev, entry.hash],
      );
    await cluster.sql(name, 'UPDATE audit_head SET seq = $1, hash = $2', [
      entries.at(-1)?.seq,
      entries.at(-1)?.hash,
    ]);
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true, entries: 1 });

    const service = await instance(url);
    expect(await migrations(name)).toHaveLength(5);
    const check = await service.call('POST', `/v1/sessions/${session.id}/check`, pay('p-1'));
    expect(check.body.action).toBe('run');
    const again = await service.call('POST', `/v1/sessions/${session.id}/check`, pay('p-2'));
    expect(again.body.action).toBe('refuse');
    const [row] = await cluster.sql<{ events: number; journal_digest: string }>(
      name,
      'SELECT events, journal_digest FROM sessions WHERE id = $1',
      [session.id],
    );
    const texts = (
      await cluster.sql<{ event: string }>(
        name,
        'SELECT event FROM journal WHERE session = $1 ORDER BY seq',
        [session.id],
      )
    ).map((journal) => journal.event);
    expect(row).toEqual({
      events: texts.length,
      journal_digest: extendAnchor(emptyJournal, texts).digest,
    });
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
    await service.store.close();
  });

  it('refuses a database a newer version wrote, and touches nothing', async () => {
    const url = await database();
    const name = `intentguard_${databases}`;
    await (await openServiceStore(url)).close();
    await cluster.sql(
      name,
      "INSERT INTO intentguard_migrations VALUES ('service', 99, '2030-01-01T00:00:00Z')",
    );
    const refused = openServiceStore(url);
    await expect(refused).rejects.toThrow(PostgresStoreError);
    await expect(refused).rejects.toMatchObject({ code: 'newer-schema' });
    await expect(refused).rejects.toThrow(/newer intentguard \(service schema 99/);
  });
});

describe('connection strings and a database that cannot be reached', () => {
  it('names what is wrong with a URL, never its password', async () => {
    const cases: Array<[string, RegExp]> = [
      ['postgres:///intentguard', /names no host/],
      ['postgres://user:s3cret@/intentguard', /is not a URL/],
      ['postgres://user:s3cret@127.0.0.1:5432/', /names no database/],
      ['postgres://user:s3cret@127.0.0.1:99999/db', /not a URL|no valid port/],
      ['postgres://user:s3cret@[::1/db', /is not a URL/],
    ];
    for (const [url, message] of cases) {
      const opened = openServiceStore(url);
      await expect(opened).rejects.toMatchObject({ code: 'bad-url' });
      await expect(opened).rejects.toThrow(message);
      await expect(opened).rejects.not.toThrow(/s3cret/);
    }
  });

  it('says which database could not be reached, without its password', async () => {
    const closed = `postgres://intentguard:s3cret@127.0.0.1:${cluster.port}/no_such_database`;
    const opened = openServiceStore(closed);
    await expect(opened).rejects.toMatchObject({ code: 'unreachable' });
    await expect(opened).rejects.toThrow(
      /could not connect to postgres:\/\/intentguard:\*\*\*@127\.0\.0\.1/,
    );
    await expect(opened).rejects.not.toThrow(/s3cret/);
  });
});

describe('several instances on one database', () => {
  let url: string;
  let a: Awaited<ReturnType<typeof instance>>;
  let b: Awaited<ReturnType<typeof instance>>;
  beforeAll(async () => {
    url = await database();
    [a, b] = await Promise.all([instance(url), instance(url)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.store.close(), b?.store.close()]);
  });

  async function session(spec: string, on = a): Promise<string> {
    const created = await on.call('POST', '/v1/sessions', { spec, tools });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  it('serve any session on any instance: what one decided, the other knows', async () => {
    const sid = await session(payAsked);
    expect((await a.call('POST', `/v1/sessions/${sid}/check`, pay('p-1'))).body.action).toBe('ask');
    // The other instance never saw the session: it reads it, approves, and reports.
    expect(
      (await b.call('POST', `/v1/sessions/${sid}/approve`, { id: 'p-1', approved: true })).body
        .action,
    ).toBe('run');
    // The first instance's copy is behind: its next step catches up, under the lock.
    const result = await a.call('POST', `/v1/sessions/${sid}/result`, { id: 'p-1', output: {} });
    expect(result.status).toBe(200);
    // A call id stays idempotent across instances: the same call, the same answer, nothing written.
    const journal = await cluster.sql<{ n: string }>(
      `intentguard_${databases}`,
      'SELECT count(*) AS n FROM journal WHERE session = $1',
      [sid],
    );
    expect((await b.call('POST', `/v1/sessions/${sid}/check`, pay('p-2'))).body.action).toBe(
      'refuse',
    );
    expect((await a.call('GET', `/v1/sessions/${sid}`)).body).toMatchObject({
      status: { achieved: { Paid: 1 } },
    });
    const finished = await b.call('POST', `/v1/sessions/${sid}/finish`, {});
    expect(finished.body.action).toBe('run');
    expect((await a.call('POST', `/v1/sessions/${sid}/check`, pay('p-3'))).body.code).toBe(
      'session-finished',
    );
    expect(Number(journal[0]?.n)).toBeGreaterThan(0);
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
  });

  it('serialize a race of two instances on one session: one payment runs, none is lost', async () => {
    const sid = await session(payOnce);
    const ids = Array.from({ length: 24 }, (_, index) => `race-${index}`);
    const answers = await Promise.all(
      ids.map((id, index) =>
        (index % 2 === 0 ? a : b).call('POST', `/v1/sessions/${sid}/check`, pay(id)),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
    const ran = answers.filter((answer) => answer.body.action === 'run');
    expect(ran).toHaveLength(1);
    // Every answer was recorded (no lost update), and each id answers again as it did.
    const described = await b.call('GET', `/v1/sessions/${sid}`);
    const decisions = described.body.decisions as { id: string; action: string }[];
    expect(decisions.map((decision) => decision.id).sort()).toEqual([...ids].sort());
    for (const [index, id] of ids.entries()) {
      const again = await (index % 2 === 0 ? b : a).call(
        'POST',
        `/v1/sessions/${sid}/check`,
        pay(id),
      );
      expect(again.body.action).toBe(answers[index]?.body.action);
    }
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
  });

  it('refuses to act on a journal changed outside the service, and audit verify names it', async () => {
    const sid = await session(payAsked);
    expect((await a.call('POST', `/v1/sessions/${sid}/check`, pay('p-1'))).body.action).toBe('ask');
    const name = `intentguard_${databases}`;
    // A forged approval, with the row's length moved along so that instances catch up on it.
    const [last] = await cluster.sql<{ seq: number; event: string }>(
      name,
      'SELECT seq, event FROM journal WHERE session = $1 ORDER BY seq DESC LIMIT 1',
      [sid],
    );
    const forged = JSON.stringify({ resolve: { id: 'p-1', approved: true } });
    await cluster.sql(name, 'INSERT INTO journal (session, seq, event) VALUES ($1, $2, $3)', [
      sid,
      (last?.seq ?? 0) + 1,
      forged,
    ]);
    await cluster.sql(name, 'UPDATE sessions SET events = events + 1 WHERE id = $1', [sid]);
    for (const on of [a, b]) {
      const answer = await on.call('POST', `/v1/sessions/${sid}/result`, { id: 'p-1', output: {} });
      expect(answer.status).toBe(503);
      expect(answer.body.code).toBe('session-unavailable');
      const check = await on.call('POST', `/v1/sessions/${sid}/check`, pay('p-9'));
      expect(check.body.action).not.toBe('run');
    }
    expect(await verifyAuditDatabase(url)).toMatchObject({
      ok: false,
      message: expect.stringContaining(`session ${sid}: its journal has`),
    });
    await cluster.sql(name, 'DELETE FROM journal WHERE session = $1 AND event = $2', [sid, forged]);
    await cluster.sql(name, 'UPDATE sessions SET events = events - 1 WHERE id = $1', [sid]);
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
  });

  it('catch an edited audit row', async () => {
    const name = `intentguard_${databases}`;
    await cluster.sql(name, "UPDATE audit SET body = replace(body, '750', '75') WHERE seq = 2");
    const verified = await verifyAuditDatabase(url);
    expect(verified).toMatchObject({ ok: false, seq: 2 });
    expect(verified.ok ? '' : verified.message).toMatch(/entry 2 was changed after it was written/);
    await cluster.sql(name, "UPDATE audit SET body = replace(body, '75', '750') WHERE seq = 2");
  });

  it('list approvals across instances, on the API and for approvers', async () => {
    const roled = await instance(url, true);
    const other = await instance(url, true);
    try {
      const sid = await session(payAsked, roled);
      expect(
        (await roled.call('POST', `/v1/sessions/${sid}/check`, pay('ask-1'))).body.action,
      ).toBe('ask');
      const listed = await other.call('GET', '/v1/approvals', undefined, approver);
      expect(listed.body.approvals).toEqual(
        expect.arrayContaining([expect.objectContaining({ session: sid, id: 'ask-1' })]),
      );
      const approved = await other.call(
        'POST',
        `/v1/sessions/${sid}/approve`,
        { id: 'ask-1', approved: true },
        approver,
      );
      expect(approved.body.action).toBe('run');
      const after = await roled.call('GET', '/v1/approvals', undefined, approver);
      expect(
        (after.body.approvals as { session: string }[]).filter((entry) => entry.session === sid),
      ).toEqual([]);
    } finally {
      await Promise.all([roled.store.close(), other.store.close()]);
    }
  });
});

/** Rewrites a session's stored approval answer outside the service (its row left alone). */
async function rewriteApproval(name: string, sid: string, approved: boolean) {
  await cluster.sql(
    name,
    `UPDATE journal SET event = replace(event, '"approved":${!approved}', '"approved":${approved}')
     WHERE session = $1 AND event LIKE '%"resolve"%'`,
    [sid],
  );
}

describe('group commit and catch-up', () => {
  let url: string;
  let name: string;
  let a: Awaited<ReturnType<typeof instance>>;
  let b: Awaited<ReturnType<typeof instance>>;
  beforeAll(async () => {
    url = await database();
    name = `intentguard_${databases}`;
    [a, b] = await Promise.all([instance(url), instance(url)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.store.close(), b?.store.close()]);
  });

  const journaled = async (sid: string, id: string) =>
    Number(
      (
        await cluster.sql<{ n: string }>(
          name,
          'SELECT count(*) AS n FROM journal WHERE session = $1 AND event LIKE $2',
          [sid, `%"id":"${id}"%`],
        )
      )[0]?.n,
    );

  it('commit concurrent checks of many sessions together, each answer committed before it is sent', async () => {
    const sids = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const created = await a.call('POST', '/v1/sessions', { spec: payOnce, tools });
        return created.body.id as string;
      }),
    );
    const commits = a.store.groupCommits;
    // Two checks per session at once: the second of a session waits for the next group.
    const stored = await Promise.all(
      sids.flatMap((sid) =>
        ['first', 'second'].map(async (id) => {
          const answer = await a.call('POST', `/v1/sessions/${sid}/check`, pay(id));
          // The answer arrives once its decision is in the database.
          return { sid, action: answer.body.action, stored: await journaled(sid, id) };
        }),
      ),
    );
    for (const sid of sids)
      expect(stored.filter((each) => each.sid === sid).map((each) => each.action)).toEqual([
        'run',
        'refuse',
      ]);
    expect(stored.every((each) => each.stored === 1)).toBe(true);
    const used = a.store.groupCommits - commits;
    expect(used).toBeGreaterThanOrEqual(2);
    expect(used).toBeLessThan(stored.length / 2);
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
  });

  it('an instance that is behind reads only the journal lines it lacks, alternating on one long session', async () => {
    const sid = (await a.call('POST', '/v1/sessions', { spec: payOnce, tools })).body.id as string;
    expect((await b.call('POST', `/v1/sessions/${sid}/check`, pay('c-0'))).body.action).toBe('run');
    for (let index = 1; index <= 20; index++) {
      const on = index % 2 === 0 ? b : a;
      const read = on.store.eventsRead;
      const answer = await on.call('POST', `/v1/sessions/${sid}/check`, pay(`c-${index}`));
      expect(answer.status).toBe(200);
      expect(answer.body.action).not.toBe('run');
      // The other instance wrote one line since this one's last step: that line alone is read.
      expect(on.store.eventsRead - read).toBe(1);
    }
    const described = await a.call('GET', `/v1/sessions/${sid}`);
    expect((described.body.decisions as unknown[]).length).toBe(21);
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
  });

  it("a line changed after the instance's position is caught: the session fails closed", async () => {
    const sid = (await a.call('POST', '/v1/sessions', { spec: payAsked, tools })).body.id as string;
    expect((await a.call('POST', `/v1/sessions/${sid}/check`, pay('p-1'))).body.action).toBe('ask');
    // `b` withdraws the call; `a` has not seen that line yet.
    expect(
      (await b.call('POST', `/v1/sessions/${sid}/approve`, { id: 'p-1', approved: false })).body
        .action,
    ).toBe('refuse');
    // The withdrawal rewritten as an approval, the row untouched: the log recorded otherwise.
    await rewriteApproval(name, sid, true);
    const read = a.store.eventsRead;
    const answer = await a.call('POST', `/v1/sessions/${sid}/check`, pay('p-2'));
    expect(answer.status).toBe(503);
    expect(answer.body.code).toBe('session-unavailable');
    expect(a.store.eventsRead - read).toBe(1);
    // Never run, on either instance, while the journal does not match the log.
    for (const on of [a, b])
      expect((await on.call('POST', `/v1/sessions/${sid}/check`, pay('p-3'))).body.action).not.toBe(
        'run',
      );
    expect(await verifyAuditDatabase(url)).toMatchObject({
      ok: false,
      message: expect.stringContaining(`session ${sid}: its journal differs`),
    });
    await rewriteApproval(name, sid, false);
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
  });
});

/** Pays on one instance, reports and finishes on the other: the session is done. */
async function payAndFinish(
  sid: string,
  one: Awaited<ReturnType<typeof instance>>,
  other: Awaited<ReturnType<typeof instance>>,
) {
  expect((await one.call('POST', `/v1/sessions/${sid}/check`, pay('done-1'))).body.action).toBe(
    'run',
  );
  expect(
    (await other.call('POST', `/v1/sessions/${sid}/result`, { id: 'done-1', output: {} })).status,
  ).toBe(200);
  expect((await other.call('POST', `/v1/sessions/${sid}/finish`, {})).body.action).toBe('run');
}

describe('a group with a session that does not check', () => {
  it('refuses that session alone: the others of the group are committed and answered', async () => {
    const url = await database();
    const name = `intentguard_${databases}`;
    const [a, b] = await Promise.all([instance(url), instance(url)]);
    try {
      const sids: string[] = [];
      for (let index = 0; index < 4; index++)
        sids.push(
          (await a.call('POST', '/v1/sessions', { spec: payAsked, tools })).body.id as string,
        );
      const [bad, ...good] = sids as [string, ...string[]];
      expect((await a.call('POST', `/v1/sessions/${bad}/check`, pay('p-1'))).body.action).toBe(
        'ask',
      );
      expect(
        (await b.call('POST', `/v1/sessions/${bad}/approve`, { id: 'p-1', approved: false })).body
          .action,
      ).toBe('refuse');
      await rewriteApproval(name, bad, true);
      const answers = await Promise.all(
        sids.map((sid) => a.call('POST', `/v1/sessions/${sid}/check`, pay('p-2'))),
      );
      expect(answers.map((answer) => answer.status)).toEqual([503, 200, 200, 200]);
      expect(answers.slice(1).map((answer) => answer.body.action)).toEqual(['ask', 'ask', 'ask']);
      for (const sid of good) {
        const [row] = await cluster.sql<{ n: string }>(
          name,
          'SELECT count(*) AS n FROM journal WHERE session = $1',
          [sid],
        );
        expect(Number(row?.n)).toBe(1);
      }
    } finally {
      await Promise.all([a.store.close(), b.store.close()]);
    }
  });
});

describe('sessions listed and capped in the database', () => {
  it('GET /v1/sessions lists the sessions of every instance, newest first, page by page', async () => {
    const url = await database();
    const [a, b] = await Promise.all([instance(url, true), instance(url, true)]);
    try {
      const created: string[] = [];
      for (let index = 0; index < 5; index++) {
        const on = index % 2 === 0 ? a : b;
        created.push(
          (await on.call('POST', '/v1/sessions', { spec: payOnce, tools })).body.id as string,
        );
      }
      expect(
        (await a.call('POST', `/v1/sessions/${created[1]}/check`, pay('p-1'))).body.action,
      ).toBe('run');
      await payAndFinish(created[0] as string, a, b);
      const seen: { id: string; finished: boolean; decisions: unknown[] }[] = [];
      let after: string | undefined;
      for (let page = 0; page < 3; page++) {
        const listed = await b.call('GET', `/v1/sessions?limit=2${after ? `&after=${after}` : ''}`);
        expect(listed.status).toBe(200);
        seen.push(...(listed.body.sessions as typeof seen));
        after = listed.body.next as string | undefined;
        expect(after === undefined).toBe(page === 2);
      }
      expect(seen.map((session) => session.id)).toEqual([...created].reverse());
      // Read fresh: what `a` decided and `b` finished shows on either.
      expect(seen[3]?.decisions).toHaveLength(1);
      expect(seen[4]?.finished).toBe(true);
      const byApprover = await a.call('GET', '/v1/sessions?limit=200', undefined, approver);
      expect((byApprover.body.sessions as unknown[]).length).toBe(5);
      for (const bad of ['0', '201', 'x', '1e2'])
        expect((await a.call('GET', `/v1/sessions?limit=${bad}`)).status).toBe(400);
    } finally {
      await Promise.all([a.store.close(), b.store.close()]);
    }
  });

  it('a race of creations on two instances never passes the per-token cap', async () => {
    const url = await database();
    const name = `intentguard_${databases}`;
    const [a, b] = await Promise.all([
      instance(url, false, undefined, 3),
      instance(url, false, undefined, 3),
    ]);
    try {
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          (index % 2 === 0 ? a : b).call('POST', '/v1/sessions', { spec: payOnce, tools }),
        ),
      );
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses).toEqual([...Array(3).fill(201), ...Array(9).fill(429)]);
      expect(answers.find((answer) => answer.status === 429)?.body.code).toBe('too-many-sessions');
      const [open] = await cluster.sql<{ n: string }>(
        name,
        'SELECT count(*) AS n FROM sessions WHERE finished = 0',
      );
      expect(Number(open?.n)).toBe(3);
      // A finished session frees its place, on whichever instance.
      const first = answers.find((answer) => answer.status === 201)?.body.id as string;
      await payAndFinish(first, a, b);
      expect((await a.call('POST', '/v1/sessions', { spec: payOnce, tools })).status).toBe(201);
      expect((await b.call('POST', '/v1/sessions', { spec: payOnce, tools })).status).toBe(429);
    } finally {
      await Promise.all([a.store.close(), b.store.close()]);
    }
  });
});

describe('restart', () => {
  it('a restarted instance reads each session when asked for it, a waiting approval included', async () => {
    const url = await database();
    const before = await instance(url, true);
    const sid = (await before.call('POST', '/v1/sessions', { spec: payAsked, tools })).body
      .id as string;
    expect((await before.call('POST', `/v1/sessions/${sid}/check`, pay('ask-1'))).body.action).toBe(
      'ask',
    );
    await before.store.close();
    // A new process on the database: nothing in memory; the request reads the session.
    const after = await instance(url, true);
    try {
      const approvals = await after.call('GET', '/v1/approvals', undefined, approver);
      expect(approvals.body.approvals).toEqual([
        expect.objectContaining({
          session: sid,
          id: 'ask-1',
          prompt: expect.stringContaining('Confirm the payment'),
        }),
      ]);
      const listed = await after.call('GET', '/v1/sessions');
      expect(listed.body.sessions).toEqual([
        expect.objectContaining({
          id: sid,
          status: expect.objectContaining({ pendingIds: ['ask-1'] }),
        }),
      ]);
      const approved = await after.call(
        'POST',
        `/v1/sessions/${sid}/approve`,
        { id: 'ask-1', approved: true },
        approver,
      );
      expect(approved.body.action).toBe('run');
      // The call id answers as recorded before the restart; a second payment is refused.
      expect(
        (await after.call('POST', `/v1/sessions/${sid}/check`, pay('ask-1'))).body.action,
      ).toBe('run');
      expect(
        (await after.call('POST', `/v1/sessions/${sid}/check`, pay('ask-2'))).body.action,
      ).toBe('refuse');
      expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
    } finally {
      await after.store.close();
    }
  });
});

describe('memory bounds per instance (S1)', () => {
  it('an instance counts what a session holds once it has caught up, whoever wrote it', async () => {
    const url = await database();
    const roomy = await instance(url);
    const tight = await instance(url, false, { maxSessionText: 4_000, maxServiceText: 40_000 });
    try {
      const sid = (await roomy.call('POST', '/v1/sessions', { spec: payAsked, tools })).body
        .id as string;
      expect((await tight.call('POST', `/v1/sessions/${sid}/check`, pay('p-1'))).body.action).toBe(
        'ask',
      );
      // The session grows on the roomy instance, past what the tight one lets a session hold.
      const observed = await roomy.call('POST', `/v1/sessions/${sid}/observe`, {
        updates: { note: 'x'.repeat(5_000) },
      });
      expect(observed.status).toBe(200);
      const refused = await tight.call('POST', `/v1/sessions/${sid}/check`, pay('p-2'));
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe('session-full');
      // The roomy instance, with its own bounds, goes on.
      expect((await roomy.call('POST', `/v1/sessions/${sid}/check`, pay('p-3'))).status).toBe(200);
    } finally {
      await Promise.all([roomy.store.close(), tight.store.close()]);
    }
  });
});

describe('a database that goes away', () => {
  it('fails checks closed (never run), and serves again when it is back', async () => {
    const url = await database();
    const service = await instance(url);
    const sid = (await service.call('POST', '/v1/sessions', { spec: payOnce, tools })).body
      .id as string;
    await cluster.stop();
    try {
      const check = await service.call('POST', `/v1/sessions/${sid}/check`, pay('p-1'));
      expect(check.status).toBe(200);
      expect(check.body.action).toBe('refuse');
      const created = await service.call('POST', '/v1/sessions', { spec: payOnce, tools });
      expect(created.status).toBe(500);
      expect(created.body.code).toBe('internal-error');
    } finally {
      await cluster.start();
    }
    const check = await service.call('POST', `/v1/sessions/${sid}/check`, pay('p-1'));
    expect(check.body.action).toBe('run');
    expect(await verifyAuditDatabase(url)).toMatchObject({ ok: true });
    await service.store.close();
  }, 60_000);
});
