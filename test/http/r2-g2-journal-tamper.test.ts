import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from '../../src/integrations/http/app.js';
import { type AuditEntry, entryHash, genesisHash } from '../../src/store/audit-chain.js';
import { verifyAuditFile } from '../../src/store/audit-file.js';
import { SqliteServiceStore } from '../../src/store/sqlite-service-store.js';
import { run } from '../cli/run.js';
import { callService, killAll, startServer } from './server-process.js';

/**
 * G2 through the real `intentguard serve` process and a real SQLite file: rows changed
 * outside the service — a forged approval appended to the journal (the review's
 * reproduction), an edited or deleted journal event, a session row given another spec
 * or options — are not acted on after a restart (the session fails closed, 503), and
 * `intentguard audit verify` reports the file as tampered with (exit 1).
 */

const token = 'review-token-0123456789abcdef';
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
  '@confirm(financial, "Confirm the payment")\nPay(payee = "Carol", amount = 750) -> Paid\nPaid -> Done\n';
const carol = { id: 'p-7', name: 'Pay', args: { payee: 'Carol', amount: 750 } };

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-g2-'));
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
  readonly message?: string;
}

function post(url: string, path: string, body: unknown) {
  return callService<Answer>(url, token, 'POST', `/v1/sessions${path}`, body);
}

/** A file with one session whose payment waits for approval, written by a real service. */
let files = 0;
async function askedSession(): Promise<{ db: string; sid: string }> {
  const db = join(dir, `asked-${++files}.db`);
  const server = await startServer(['--db', db], { INTENTGUARD_TOKEN: token });
  const created = await post(server.url, '', { spec, tools, now: '2025-06-02T09:00' });
  const sid = created.body.id as string;
  expect((await post(server.url, `/${sid}/check`, carol)).body.action).toBe('ask');
  expect(await server.stop()).toBe(0);
  expect((await run(['audit', 'verify', db])).code).toBe(0);
  return { db, sid };
}

function tampered(source: string, name: string, change: (db: Database.Database) => void): string {
  const path = join(dir, `${name}.db`);
  copyFileSync(source, path);
  const db = new Database(path);
  change(db);
  db.close();
  return path;
}

/** The review's script: the last propose again, then an approval. */
function forgedApproval(sid: string) {
  return (db: Database.Database) => {
    const last = db
      .prepare('SELECT seq, event FROM journal WHERE session = ? ORDER BY seq DESC LIMIT 1')
      .get(sid) as { seq: number; event: string };
    const insert = db.prepare('INSERT INTO journal (session, seq, event) VALUES (?, ?, ?)');
    insert.run(sid, last.seq + 1, last.event);
    insert.run(sid, last.seq + 2, JSON.stringify({ resolve: { approved: true }, id: 'p-7' }));
  };
}

describe('G2: the journal and session rows are vouched for by the audit chain', () => {
  it('refuses to act on a forged approval after a restart, and audit verify reports it', async () => {
    const { db, sid } = await askedSession();
    const forged = tampered(db, 'forged', forgedApproval(sid));

    const verified = await run(['audit', 'verify', forged, '--json']);
    expect(verified.code).toBe(1);
    expect(JSON.parse(verified.stdout)).toMatchObject({
      ok: false,
      message: expect.stringContaining(`session ${sid}: its journal has 3 events`),
    });

    const server = await startServer(['--db', forged], { INTENTGUARD_TOKEN: token });
    expect(server.stderr()).toContain('0 open sessions restored');
    expect(server.stderr()).toContain(`session ${sid} could not be restored`);
    const again = await post(server.url, `/${sid}/check`, carol);
    expect(again.status).toBe(503);
    expect(again.body.code).toBe('session-unavailable');
    const approved = await post(server.url, `/${sid}/approve`, { id: 'p-7', approved: true });
    expect(approved.status).toBe(503);

    // The untouched file restores and still asks.
    await server.stop();
    const intact = await startServer(['--db', db], { INTENTGUARD_TOKEN: token });
    expect(intact.stderr()).toContain('1 open session restored');
    expect((await post(intact.url, `/${sid}/check`, carol)).body.action).toBe('ask');
  });

  it('detects edited and deleted events, changed session rows, and a re-anchored audit entry', async () => {
    const { db, sid } = await askedSession();
    const cases: Array<[string, (db: Database.Database) => void, RegExp]> = [
      [
        'edited-event',
        (file) =>
          file
            .prepare("UPDATE journal SET event = replace(event, '750', '75') WHERE session = ?")
            .run(sid),
        /its journal differs/,
      ],
      [
        'deleted-event',
        (file) => file.prepare('DELETE FROM journal WHERE session = ?').run(sid),
        /its journal has 0 events, the audit log recorded 1/,
      ],
      [
        'other-spec',
        (file) =>
          file
            .prepare('UPDATE sessions SET spec_text = ? WHERE id = ?')
            .run(spec.replace('@confirm(financial, "Confirm the payment")\n', ''), sid),
        /the spec of its row differs/,
      ],
      [
        'shadow-mode',
        (file) =>
          file
            .prepare('UPDATE sessions SET options_json = ? WHERE id = ?')
            .run('{"mode":"shadow"}', sid),
        /the options of its row differs/,
      ],
      [
        'other-token',
        (file) =>
          file
            .prepare("UPDATE sessions SET token_hash = 'ab' || substr(token_hash, 3) WHERE id = ?")
            .run(sid),
        /the token of its row differs/,
      ],
      [
        // Forging the anchor too means rewriting an audit entry: the chain breaks.
        're-anchored',
        (file) => {
          forgedApproval(sid)(file);
          file
            .prepare(
              `UPDATE audit SET body = json_set(body, '$.journal.events', 3) WHERE session = ? AND json_extract(body, '$.journal') IS NOT NULL`,
            )
            .run(sid);
        },
        /was changed after it was written/,
      ],
    ];
    cases.push([
      // A file an older version wrote: its creation records lack options and token. The
      // chain is recomputed, so only the missing record can tell.
      'older-version',
      (file) => {
        file
          .prepare(
            "UPDATE audit SET body = json_remove(body, '$.options', '$.token') WHERE kind = 'session'",
          )
          .run();
        let prev = genesisHash;
        const rows = file.prepare('SELECT * FROM audit ORDER BY seq').all() as AuditEntry[];
        const update = file.prepare('UPDATE audit SET prev = ?, hash = ? WHERE seq = ?');
        for (const row of rows) {
          const hash = entryHash({ ...row, prev });
          update.run(prev, hash, row.seq);
          prev = hash;
        }
        file.prepare('UPDATE audit_head SET hash = ?').run(prev);
      },
      /written by a version that did not tie journals to the log/,
    ]);
    for (const [name, change, message] of cases) {
      const path = tampered(db, name, change);
      const verified = await run(['audit', 'verify', path]);
      expect(verified.code, name).toBe(1);
      expect(verified.stdout, name).toMatch(message);
    }
    // Each fails closed on restart (a process per file would be slow: three suffice).
    for (const name of ['shadow-mode', 're-anchored', 'older-version']) {
      const server = await startServer(['--db', join(dir, `${name}.db`)], {
        INTENTGUARD_TOKEN: token,
      });
      expect(server.stderr(), name).toContain('0 open sessions restored');
      expect((await post(server.url, `/${sid}/check`, carol)).status, name).toBe(503);
      await server.stop();
    }
  });

  it('checks a session restored on demand (a finished one) against the log as well', async () => {
    const path = join(dir, 'finished.db');
    const request = async (
      store: SqliteServiceStore,
      method: string,
      route: string,
      body?: unknown,
    ) => {
      const { app } = createServiceApp({ store, tokens: [token], log: () => undefined });
      const response = await app.request(`/v1/sessions${route}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      return { status: response.status, body: (await response.json()) as Answer };
    };
    let store = new SqliteServiceStore(path);
    const noAsk = { spec: 'Pay(payee = "Carol", amount = 750) -> Paid\nPaid -> Done\n', tools };
    const sid = (await request(store, 'POST', '', noAsk)).body.id as string;
    const { app } = createServiceApp({ store, tokens: [token], log: () => undefined });
    const post = (route: string, body: unknown) =>
      app.request(`/v1/sessions/${sid}${route}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    await post('/check', carol);
    await post('/result', { id: 'p-7', output: {} });
    expect((await (await post('/finish', {})).json()) as Answer).toMatchObject({ action: 'run' });
    store.close();

    // A later start restores open sessions only; this one comes back when asked for.
    store = new SqliteServiceStore(path);
    expect((await request(store, 'GET', `/${sid}`)).status).toBe(200);
    store.close();
    const db = new Database(path);
    // An edit that replays exactly as before (restoreGuard alone would accept it).
    db.prepare("UPDATE journal SET event = ' ' || event WHERE session = ? AND seq = 0").run(sid);
    db.close();
    store = new SqliteServiceStore(path);
    expect(verifyAuditFile(path)).toMatchObject({
      ok: false,
      message: expect.stringContaining(sid),
    });
    const tamperedAnswer = await request(store, 'GET', `/${sid}`);
    expect(tamperedAnswer.status).toBe(503);
    expect(tamperedAnswer.body.code).toBe('session-unavailable');
    store.close();
  });
});
