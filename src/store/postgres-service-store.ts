import {
  type AuditEntry,
  type AuditHead,
  type AuditRecord,
  chainEntries,
  entryHash,
  genesisHash,
} from './audit-chain.js';
import {
  type AuditedSession,
  anchored,
  collectAudited,
  emptyJournal,
  extendAnchor,
  sessionProblem,
} from './journal-anchor.js';
import type { StoreSchema } from './migrations.js';
import { inTransaction, openPostgres, type PostgresClient, type PostgresPool } from './postgres.js';
import { redactedUrl } from './postgres-url.js';
import {
  JournalTamperedError,
  type ServiceStore,
  type SessionCatchUp,
  type SessionRow,
  type SessionState,
  type SessionStep,
  type SessionWrite,
  type StoredJournal,
  type StoredSession,
  sessionOf,
} from './service-store.js';

/**
 * The service's tables in PostgreSQL. Migration 1 is the SQLite store's `service` and
 * `audit` parts in PostgreSQL's words (the same columns, so that both hold the same rows
 * and the same chain); migration 2 adds what several instances on one database need:
 * each session's journal length and running digest (so that an instance sees at once
 * whether its copy is behind, and extends the journal's anchor without reading it), how
 * many of its calls wait for approval (the approvals page, across instances), and the
 * indexes that read one session's entries and one token's open sessions.
 */
export const postgresServiceSchema: StoreSchema = {
  name: 'service',
  migrations: [
    {
      version: 1,
      sql: `
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  token_hash TEXT NOT NULL,
  spec_text TEXT,
  schema_kind TEXT NOT NULL,
  schema_json TEXT NOT NULL,
  options_json TEXT NOT NULL,
  now TEXT NOT NULL,
  time_zone TEXT NOT NULL,
  created_at TEXT NOT NULL,
  finished INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE journal (
  session TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (session, seq)
);`,
    },
    {
      version: 2,
      sql: `
ALTER TABLE sessions ADD COLUMN events INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN journal_digest TEXT;
ALTER TABLE sessions ADD COLUMN awaiting INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET events = (SELECT count(*) FROM journal WHERE journal.session = sessions.id);
CREATE INDEX sessions_open_by_token ON sessions (token_hash, created_at) WHERE finished = 0;`,
    },
  ],
};

/** The audit chain's tables in PostgreSQL (audit-chain.ts), with the head's row from the start. */
export const postgresAuditSchema: StoreSchema = {
  name: 'audit',
  migrations: [
    {
      version: 1,
      sql: `
CREATE TABLE audit (
  seq BIGINT PRIMARY KEY,
  at TEXT NOT NULL,
  session TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  prev TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE TABLE audit_head (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  seq BIGINT NOT NULL,
  hash TEXT NOT NULL
);
INSERT INTO audit_head (one, seq, hash) VALUES (1, 0, '${genesisHash}');`,
    },
    {
      version: 2,
      sql: 'CREATE INDEX audit_by_session ON audit (session, seq);',
    },
  ],
};

/** What a mutation locks and reads of a session's row (columns of migration 2). */
interface LockedSessionRow {
  id: string;
  events: number;
  journal_digest: string | null;
}

interface AuditRow {
  seq: string | number;
  at: string;
  session: string;
  kind: string;
  body: string;
  prev: string;
  hash: string;
}

/** An audit row as read: `seq` is a BIGINT, which the driver gives as text. */
export function auditEntryOf(row: AuditRow): AuditEntry {
  return { ...row, seq: Number(row.seq) };
}

/**
 * Locks the chain's head row until the transaction ends and reads it: appends of
 * several instances then extend one chain in commit order instead of forking it.
 */
async function lockedHead(client: PostgresClient): Promise<AuditHead> {
  const found = await client.query<{ seq: string; hash: string }>(
    'SELECT seq, hash FROM audit_head WHERE one = 1 FOR UPDATE',
  );
  const row = found.rows[0];
  if (row === undefined) throw new Error('the audit log has no head row (audit_head)');
  return { seq: Number(row.seq), hash: row.hash };
}

/** The columns of `audit` as arrays, for one `unnest` insert (parameters `$from`…`$from+6`). */
function auditColumns(entries: readonly AuditEntry[]): unknown[][] {
  return [
    entries.map((entry) => entry.seq),
    entries.map((entry) => entry.at),
    entries.map((entry) => entry.session),
    entries.map((entry) => entry.kind),
    entries.map((entry) => entry.body),
    entries.map((entry) => entry.prev),
    entries.map((entry) => entry.hash),
  ];
}

const insertAudit = (from: number) =>
  `INSERT INTO audit (seq, at, session, kind, body, prev, hash)
   SELECT * FROM unnest(${['bigint', 'text', 'text', 'text', 'text', 'text', 'text']
     .map((type, index) => `$${from + index}::${type}[]`)
     .join(', ')})`;

/** Appends records to the one chain inside the caller's transaction (head locked). */
async function appendAudit(
  client: PostgresClient,
  records: readonly AuditRecord[],
  at: string,
): Promise<void> {
  if (records.length === 0) return;
  const head = await lockedHead(client);
  const entries = chainEntries(head, records, at);
  const last = entries.at(-1) ?? head;
  await client.query(
    `WITH appended AS (${insertAudit(1)})
     UPDATE audit_head SET seq = $8, hash = $9 WHERE one = 1`,
    [...auditColumns(entries), last.seq, last.hash],
  );
}

/**
 * Why a session's row and journal do not match what its own audit entries recorded
 * (each entry's hash checked against its content), or undefined when they do (G2). The
 * links between entries of different sessions are the whole chain's, which
 * `intentguard audit verify` checks.
 */
async function sessionAuditProblem(
  client: PostgresClient | PostgresPool,
  session: StoredSession,
  texts: readonly string[],
): Promise<string | undefined> {
  const rows = await client.query<AuditRow>(
    'SELECT seq, at, session, kind, body, prev, hash FROM audit WHERE session = $1 ORDER BY seq',
    [session.id],
  );
  const audited = new Map<string, AuditedSession>();
  for (const row of rows.rows) {
    const entry = auditEntryOf(row);
    if (entryHash(entry) !== entry.hash)
      return `audit entry ${entry.seq} was changed after it was written (its hash does not match its content)`;
    collectAudited(audited, entry);
  }
  return sessionProblem(session, texts, audited.get(session.id));
}

async function journalTexts(client: PostgresClient | PostgresPool, id: string): Promise<string[]> {
  const rows = await client.query<{ event: string }>(
    'SELECT event FROM journal WHERE session = $1 ORDER BY seq',
    [id],
  );
  return rows.rows.map((row) => row.event);
}

/**
 * The service's store in PostgreSQL, shared by any number of `intentguard serve`
 * instances: any instance serves any session. Each mutation is one transaction that
 * first locks the session's row (`SELECT … FOR UPDATE`), so that mutations of one
 * session are serialized across instances; an instance whose copy is behind the row's
 * journal length reads the session again (checked against its audit entries) and
 * decides on that. The transaction commits before the answer is sent: a killed
 * instance loses no answered decision, and its sessions continue on the others.
 *
 * @example
 * const store = await PostgresServiceStore.open('postgres://intentguard@db.internal/intentguard');
 * const { app } = createServiceApp({ store, tokens: [token] });
 */
export class PostgresServiceStore implements ServiceStore {
  readonly shared = true;
  readonly what: string;
  readonly #pool: PostgresPool;
  /**
   * The mutation under way per session in this process: the next one waits for it here
   * rather than on the row lock, so that one busy session holds one connection, not the
   * whole pool.
   */
  readonly #queues = new Map<string, Promise<unknown>>();

  private constructor(pool: PostgresPool, what: string) {
    this.#pool = pool;
    this.what = what;
  }

  /** Connects, migrates (under an advisory lock: instances starting together migrate once) and opens. */
  static async open(
    url: string,
    options: { readonly poolSize?: number; readonly log?: (line: string) => void } = {},
  ): Promise<PostgresServiceStore> {
    const pool = await openPostgres(url, {
      schemas: [postgresServiceSchema, postgresAuditSchema],
      ...options,
    });
    return new PostgresServiceStore(pool, `the database ${redactedUrl(url)}`);
  }

  async createSession(session: StoredSession, audit: readonly AuditRecord[]): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      await client.query(
        `INSERT INTO sessions (id, token_hash, spec_text, schema_kind, schema_json, options_json, now, time_zone, created_at, events, journal_digest, awaiting)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 0, $10, 0)`,
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
          emptyJournal.digest,
        ],
      );
      await appendAudit(client, audit, session.createdAt);
    });
  }

  async session(id: string): Promise<StoredSession | undefined> {
    const found = await this.#pool.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [id]);
    const row = found.rows[0];
    return row && sessionOf(row);
  }

  async state(id: string): Promise<SessionState | undefined> {
    const found = await this.#pool.query<{ events: number; finished: number }>(
      'SELECT events, finished FROM sessions WHERE id = $1',
      [id],
    );
    const row = found.rows[0];
    return row && { events: row.events, finished: row.finished === 1 };
  }

  async journal(session: StoredSession): Promise<StoredJournal> {
    return this.#checkedJournal(this.#pool, session);
  }

  async #checkedJournal(
    client: PostgresClient | PostgresPool,
    session: StoredSession,
  ): Promise<StoredJournal> {
    const texts = await journalTexts(client, session.id);
    const problem = await sessionAuditProblem(client, session, texts);
    if (problem !== undefined) throw new JournalTamperedError(problem);
    return {
      version: 1,
      now: session.now,
      timeZone: session.timeZone,
      events: texts.map((text): unknown => JSON.parse(text)),
    };
  }

  /** None at start: a shared store's sessions are read, and checked, when a request asks for them. */
  async restorable(): Promise<StoredSession[]> {
    return [];
  }

  async openSessionCount(tokenHash: string): Promise<number> {
    const found = await this.#pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM sessions WHERE token_hash = $1 AND finished = 0',
      [tokenHash],
    );
    return Number(found.rows[0]?.n ?? 0);
  }

  async awaitingSessions(tokenHash: string | undefined, limit: number): Promise<string[]> {
    const found = await this.#pool.query<{ id: string }>(
      `SELECT id FROM sessions WHERE finished = 0 AND awaiting > 0 AND ($1::text IS NULL OR token_hash = $1)
       ORDER BY created_at DESC, id LIMIT $2`,
      [tokenHash ?? null, limit],
    );
    return found.rows.map((row) => row.id);
  }

  update<T>(
    id: string,
    known: number,
    step: (behind: SessionCatchUp | undefined) => SessionStep<T>,
  ): Promise<T> {
    const before = this.#queues.get(id) ?? Promise.resolve();
    const run = before.then(
      () => this.#locked(id, known, step),
      () => this.#locked(id, known, step),
    );
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#queues.set(id, settled);
    void settled.then(() => {
      if (this.#queues.get(id) === settled) this.#queues.delete(id);
    });
    return run;
  }

  /** One mutation in one transaction holding the session's row lock. */
  #locked<T>(
    id: string,
    known: number,
    step: (behind: SessionCatchUp | undefined) => SessionStep<T>,
  ): Promise<T> {
    return inTransaction(this.#pool, async (client) => {
      // The lock, and only what says whether this copy is behind (not the spec and schema).
      const found = await client.query<LockedSessionRow>(
        'SELECT id, events, journal_digest FROM sessions WHERE id = $1 FOR UPDATE',
        [id],
      );
      const row = found.rows[0];
      if (row === undefined) throw new Error(`there is no session ${id} in ${this.what}`);
      let behind: SessionCatchUp | undefined;
      if (row.events !== known) {
        const whole = await client.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [id]);
        const stored = whole.rows[0];
        if (stored === undefined) throw new Error(`there is no session ${id} in ${this.what}`);
        const session = sessionOf(stored);
        behind = { session, journal: await this.#checkedJournal(client, session) };
      }
      const { answer, write } = step(behind);
      if (write !== undefined) await this.#write(client, row, write);
      return answer;
    });
  }

  /**
   * Stores one step's journal events, audit records and row, extending the journal's
   * anchor: after the head's lock, one statement (a round trip per step counts: the
   * head's lock is held until the commit, and every instance waits for it).
   */
  async #write(client: PostgresClient, row: LockedSessionRow, write: SessionWrite): Promise<void> {
    // Never extend a journal the row does not hold: the write fails, nothing is stored.
    if (write.from !== row.events)
      throw new Error(`the journal of session ${row.id} is not in step with its row`);
    const texts = write.events.map((event) => JSON.stringify(event));
    let audit = write.audit;
    let digest = row.journal_digest;
    if (texts.length > 0) {
      // A row migrated from version 1 has no digest yet: it is computed once, from the journal.
      digest ??= extendAnchor(emptyJournal, await journalTexts(client, row.id)).digest;
      const after = extendAnchor({ events: row.events, digest }, texts);
      digest = after.digest;
      audit = anchored(row.id, audit, after);
    }
    const head = await lockedHead(client);
    const entries = chainEntries(head, audit, new Date().toISOString());
    const last = entries.at(-1) ?? head;
    await client.query(
      `WITH events AS (
         INSERT INTO journal (session, seq, event) SELECT $1, * FROM unnest($2::int[], $3::text[])
       ), appended AS (${insertAudit(4)}
       ), moved AS (
         UPDATE audit_head SET seq = $11, hash = $12 WHERE one = 1
       )
       UPDATE sessions SET events = $13, journal_digest = $14, awaiting = $15,
         finished = CASE WHEN $16 THEN 1 ELSE finished END
       WHERE id = $1`,
      [
        row.id,
        texts.map((_, index) => write.from + index),
        texts,
        ...auditColumns(entries),
        last.seq,
        last.hash,
        row.events + texts.length,
        digest,
        write.awaiting,
        write.finished,
      ],
    );
  }

  /** Waits for the mutations under way, then closes the pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all(this.#queues.values());
    await this.#pool.end();
  }

  #closed = false;
}
