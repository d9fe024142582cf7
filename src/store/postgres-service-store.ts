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
  continuationProblem,
  emptyJournal,
  extendAnchor,
  type JournalAnchor,
  sessionProblem,
} from './journal-anchor.js';
import type { StoreSchema } from './migrations.js';
import { inTransaction, openPostgres, type PostgresClient, type PostgresPool } from './postgres.js';
import { redactedUrl } from './postgres-url.js';
import {
  JournalTamperedError,
  type ListedSession,
  listedOf,
  type ServiceStore,
  type SessionCatchUp,
  type SessionRow,
  type SessionState,
  type SessionStep,
  type SessionWrite,
  type StoredJournal,
  type StoredSession,
  sessionOf,
  TooManySessionsError,
} from './service-store.js';

/**
 * The service's tables in PostgreSQL. Migration 1 is the SQLite store's `service` and
 * `audit` parts in PostgreSQL's words (the same columns, so that both hold the same rows
 * and the same chain); migration 2 adds what several instances on one database need:
 * each session's journal length and running digest (so that an instance sees at once
 * whether its copy is behind, and extends the journal's anchor without reading it), how
 * many of its calls wait for approval (the approvals page, across instances), and the
 * indexes that read one session's entries and one token's open sessions; migration 3
 * the index that lists a token's sessions, newest first (`GET /v1/sessions`).
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
    {
      version: 3,
      sql: 'CREATE INDEX sessions_by_token ON sessions (token_hash, created_at, id);',
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

/** What a group locks and reads of each session's row (columns of migration 2). */
interface LockedSessionRow {
  id: string;
  events: number;
  finished: number;
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
): Promise<AuditEntry[]> {
  if (records.length === 0) return [];
  const head = await lockedHead(client);
  const entries = chainEntries(head, records, at);
  const last = entries.at(-1) ?? head;
  await client.query(
    `WITH appended AS (${insertAudit(1)})
     UPDATE audit_head SET seq = $8, hash = $9 WHERE one = 1`,
    [...auditColumns(entries), last.seq, last.hash],
  );
  return entries;
}

/**
 * A session's audit entries after `afterSeq`, each checked against its content, and
 * what they record of it; or why one was changed after it was written. The links
 * between entries of different sessions are the whole chain's, which
 * `intentguard audit verify` checks.
 */
async function auditedSince(
  client: PostgresClient,
  id: string,
  afterSeq: number,
): Promise<{ audited: AuditedSession | undefined; lastSeq: number } | { problem: string }> {
  const rows = await client.query<AuditRow>(
    'SELECT seq, at, session, kind, body, prev, hash FROM audit WHERE session = $1 AND seq > $2 ORDER BY seq',
    [id, afterSeq],
  );
  const audited = new Map<string, AuditedSession>();
  let lastSeq = afterSeq;
  for (const row of rows.rows) {
    const entry = auditEntryOf(row);
    if (entryHash(entry) !== entry.hash)
      return {
        problem: `audit entry ${entry.seq} was changed after it was written (its hash does not match its content)`,
      };
    collectAudited(audited, entry);
    lastSeq = entry.seq;
  }
  return { audited: audited.get(id), lastSeq };
}

async function journalTexts(client: PostgresClient, id: string, from = 0): Promise<string[]> {
  const rows = await client.query<{ event: string }>(
    'SELECT event FROM journal WHERE session = $1 AND seq >= $2 ORDER BY seq',
    [id, from],
  );
  return rows.rows.map((row) => row.event);
}

/**
 * Where this process has checked a session's journal against the audit log, or written
 * it: its first `events` events (with their running digest) and every audit entry of
 * the session up to `auditSeq`. An instance whose copy is there and behind the store
 * reads and checks only what was written since.
 */
interface CheckedPosition extends JournalAnchor {
  readonly auditSeq: number;
}

/** The advisory lock's first key for creations of one token's sessions (any fixed number). */
const tokenCapLock = 0x1e7e_0c4b;

/** Positions kept (least recently used dropped first): a few hundred bytes each. */
const maxPositions = 10_000;

/** Mutations one group commit takes at most (one per session). */
const maxGroup = 256;

/** A mutation waiting for the next group commit. */
interface QueuedUpdate {
  readonly id: string;
  readonly known: () => number;
  readonly step: (behind: SessionCatchUp | undefined) => SessionStep<unknown>;
  readonly resolve: (answer: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/** A step's write as the group commit stores it. */
interface PreparedWrite {
  readonly id: string;
  readonly from: number;
  readonly texts: readonly string[];
  readonly audit: readonly AuditRecord[];
  readonly anchor: JournalAnchor;
  readonly awaiting: number;
  readonly finished: boolean;
}

/**
 * The service's store in PostgreSQL, shared by any number of `intentguard serve`
 * instances: any instance serves any session. Mutations are group-committed: those that
 * arrive together, of different sessions, share one transaction, which locks their
 * sessions' rows (`SELECT … FOR UPDATE`, in id order: instances never deadlock), so that
 * mutations of one session are serialized across instances, then the audit chain's head
 * (one chain, in commit order) for the one statement that writes every journal event,
 * audit entry and row of the group. A mutation waiting behind another of its session
 * goes in the next group. An instance whose copy is behind a row's journal length reads
 * and checks what it lacks, under the lock, and decides on that. Every answer waits for
 * its group's commit: a killed instance loses no answered decision, and its sessions
 * continue on the others.
 *
 * @example
 * const store = await PostgresServiceStore.open('postgres://intentguard@db.internal/intentguard');
 * const { app } = createServiceApp({ store, tokens: [token] });
 */
export class PostgresServiceStore implements ServiceStore {
  readonly shared = true;
  readonly what: string;
  readonly #pool: PostgresPool;
  /** Mutations waiting for a group commit, in the order they came. */
  #queue: QueuedUpdate[] = [];
  /** Whether a group commit is under way (one at a time: the next takes what queued meanwhile). */
  #committing: Promise<void> | undefined;
  #scheduled = false;
  /** Where this process has checked or written each session's journal (incremental catch-up). */
  readonly #positions = new Map<string, CheckedPosition>();
  #closed = false;

  /** How many group commits have landed (for tests and the bench: mutations per commit). */
  groupCommits = 0;
  /** Journal events read to restore or catch up sessions (for tests: a catch-up reads what it lacks). */
  eventsRead = 0;

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

  async createSession(
    session: StoredSession,
    audit: readonly AuditRecord[],
    maxOpen?: number,
  ): Promise<void> {
    const entries = await inTransaction(this.#pool, async (client) => {
      if (maxOpen !== undefined) {
        // One creation per token at a time, across instances, until it commits: the count
        // then sees every session created before it.
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
          tokenCapLock,
          session.tokenHash,
        ]);
        const open = await client.query<{ n: string }>(
          'SELECT count(*) AS n FROM sessions WHERE token_hash = $1 AND finished = 0',
          [session.tokenHash],
        );
        if (Number(open.rows[0]?.n ?? 0) >= maxOpen) throw new TooManySessionsError(maxOpen);
      }
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
      return appendAudit(client, audit, session.createdAt);
    });
    this.#checked(session.id, { ...emptyJournal, auditSeq: entries.at(-1)?.seq ?? 0 });
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

  /** The whole journal, read in one snapshot (another instance may be writing it). */
  async journal(session: StoredSession): Promise<StoredJournal> {
    return inTransaction(this.#pool, (client) => this.#checkedJournal(client, session), {
      snapshot: true,
    });
  }

  /** The session's whole journal, checked with its row against all its audit entries (G2). */
  async #checkedJournal(client: PostgresClient, session: StoredSession): Promise<StoredJournal> {
    const texts = await journalTexts(client, session.id);
    this.eventsRead += texts.length;
    const audited = await auditedSince(client, session.id, 0);
    const problem =
      'problem' in audited ? audited.problem : sessionProblem(session, texts, audited.audited);
    if (problem !== undefined || 'problem' in audited) {
      this.#positions.delete(session.id);
      throw new JournalTamperedError(problem ?? 'its audit entries do not verify');
    }
    this.#checked(session.id, { ...extendAnchor(emptyJournal, texts), auditSeq: audited.lastSeq });
    return {
      version: 1,
      now: session.now,
      timeZone: session.timeZone,
      events: texts.map((text): unknown => JSON.parse(text)),
    };
  }

  /** Records a checked position, keeping the most recent `maxPositions`. */
  #checked(id: string, position: CheckedPosition): void {
    this.#positions.delete(id);
    this.#positions.set(id, position);
    if (this.#positions.size > maxPositions) {
      const oldest = this.#positions.keys().next().value;
      if (oldest !== undefined) this.#positions.delete(oldest);
    }
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

  async listSessions(
    tokenHash: string | undefined,
    limit: number,
    after?: string,
  ): Promise<ListedSession[]> {
    const found = await this.#pool.query<{ id: string; created_at: string; finished: number }>(
      `SELECT id, created_at, finished FROM sessions
       WHERE ($1::text IS NULL OR token_hash = $1)
         AND ($2::text IS NULL OR (created_at, id) < (
           SELECT created_at, id FROM sessions WHERE id = $2 AND ($1::text IS NULL OR token_hash = $1)))
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      [tokenHash ?? null, after ?? null, limit],
    );
    return found.rows.map(listedOf);
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
    known: () => number,
    step: (behind: SessionCatchUp | undefined) => SessionStep<T>,
  ): Promise<T> {
    if (this.#closed) return Promise.reject(new Error(`${this.what} is closed`));
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ id, known, step, resolve: resolve as (answer: unknown) => void, reject });
      this.#schedule();
    });
  }

  /**
   * Starts the next group commit once the current one has landed, in a `setImmediate`
   * after the event loop's I/O phase: requests that arrived together share it.
   */
  #schedule(): void {
    if (this.#scheduled || this.#committing !== undefined || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (this.#committing !== undefined || this.#queue.length === 0) return;
      const group: QueuedUpdate[] = [];
      const waiting: QueuedUpdate[] = [];
      const sessions = new Set<string>();
      // One mutation per session: the next one of a session decides on what this group commits.
      for (const update of this.#queue) {
        if (sessions.has(update.id) || group.length === maxGroup) waiting.push(update);
        else {
          sessions.add(update.id);
          group.push(update);
        }
      }
      this.#queue = waiting;
      this.#committing = this.#commitGroup(group).finally(() => {
        this.#committing = undefined;
        this.#schedule();
      });
    });
  }

  /**
   * One group in one transaction: the sessions' rows locked, each mutation caught up
   * and decided in turn, then every write in one statement after the chain's head lock
   * (held only for that statement and the commit). A mutation that fails on its own
   * (its session is gone, its journal does not check, its step throws) is rejected
   * alone; a failed commit rejects the whole group, which wrote nothing.
   */
  async #commitGroup(group: readonly QueuedUpdate[]): Promise<void> {
    const decided: { update: QueuedUpdate; answer: unknown; write?: PreparedWrite }[] = [];
    const positions = new Map<string, CheckedPosition>();
    const refused = new Set<QueuedUpdate>();
    try {
      await inTransaction(this.#pool, async (client) => {
        const locked = await client.query<LockedSessionRow>(
          'SELECT id, events, finished, journal_digest FROM sessions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE',
          [group.map((update) => update.id)],
        );
        const rows = new Map(locked.rows.map((row) => [row.id, row]));
        for (const update of group) {
          try {
            const row = rows.get(update.id);
            if (row === undefined)
              throw new Error(`there is no session ${update.id} in ${this.what}`);
            const known = update.known();
            const behind =
              row.events === known ? undefined : await this.#catchUp(client, row, known);
            const { answer, write } = update.step(behind);
            decided.push({
              update,
              answer,
              ...(write === undefined ? {} : { write: await this.#prepare(client, row, write) }),
            });
          } catch (error) {
            refused.add(update);
            update.reject(error);
          }
        }
        const writes = decided.flatMap(({ write }) => (write === undefined ? [] : [write]));
        if (writes.length > 0) await this.#write(client, writes, positions);
      });
    } catch (error) {
      // Decided, or never reached (no connection, the lock query failed): none committed.
      for (const update of group) if (!refused.has(update)) update.reject(error);
      return;
    }
    for (const [id, position] of positions) this.#checked(id, position);
    this.groupCommits++;
    for (const { update, answer } of decided) update.resolve(answer);
  }

  /**
   * What a copy that holds `known` events lacks of a locked session: the events written
   * since, checked against the audit entries written since, when this process has
   * checked or written the session up to `known`; otherwise the row and whole journal.
   */
  async #catchUp(
    client: PostgresClient,
    row: LockedSessionRow,
    known: number,
  ): Promise<SessionCatchUp> {
    const position = this.#positions.get(row.id);
    if (position === undefined || position.events !== known || known < 0) {
      const whole = await client.query<SessionRow>('SELECT * FROM sessions WHERE id = $1', [
        row.id,
      ]);
      const stored = whole.rows[0];
      if (stored === undefined) throw new Error(`there is no session ${row.id} in ${this.what}`);
      const session = sessionOf(stored);
      return { session, journal: await this.#checkedJournal(client, session) };
    }
    const texts = await journalTexts(client, row.id, known);
    this.eventsRead += texts.length;
    const audited = await auditedSince(client, row.id, position.auditSeq);
    const problem =
      'problem' in audited
        ? audited.problem
        : continuationProblem(position, texts, audited.audited?.journal);
    if (problem !== undefined || 'problem' in audited) {
      this.#positions.delete(row.id);
      throw new JournalTamperedError(problem ?? 'its audit entries do not verify');
    }
    // Kept once the group commits (or at once: what was read is committed either way).
    this.#checked(row.id, { ...extendAnchor(position, texts), auditSeq: audited.lastSeq });
    return {
      from: known,
      events: texts.map((text): unknown => JSON.parse(text)),
      finished: row.finished === 1,
    };
  }

  /** A step's write, its journal's anchor extended, checked against the locked row. */
  async #prepare(
    client: PostgresClient,
    row: LockedSessionRow,
    write: SessionWrite,
  ): Promise<PreparedWrite> {
    // Never extend a journal the row does not hold: the write fails, nothing is stored.
    if (write.from !== row.events)
      throw new Error(`the journal of session ${row.id} is not in step with its row`);
    const texts = write.events.map((event) => JSON.stringify(event));
    // A row migrated from version 1 has no digest yet: it is computed once, from the journal.
    const digest =
      row.journal_digest ?? extendAnchor(emptyJournal, await journalTexts(client, row.id)).digest;
    const anchor = extendAnchor({ events: row.events, digest }, texts);
    return {
      id: row.id,
      from: write.from,
      texts,
      audit: texts.length > 0 ? anchored(row.id, write.audit, anchor) : write.audit,
      anchor,
      awaiting: write.awaiting,
      finished: write.finished,
    };
  }

  /**
   * Stores a group's journal events, audit entries and rows in one statement after the
   * head's lock (a round trip per group counts: the head's lock is held until the
   * commit, and every instance waits for it).
   */
  async #write(
    client: PostgresClient,
    writes: readonly PreparedWrite[],
    positions: Map<string, CheckedPosition>,
  ): Promise<void> {
    const head = await lockedHead(client);
    const entries = chainEntries(
      head,
      writes.flatMap((write) => write.audit),
      new Date().toISOString(),
    );
    const last = entries.at(-1) ?? head;
    const events = writes.flatMap((write) =>
      write.texts.map((text, index) => ({ id: write.id, seq: write.from + index, text })),
    );
    await client.query(
      `WITH events AS (
         INSERT INTO journal (session, seq, event) SELECT * FROM unnest($1::text[], $2::int[], $3::text[])
       ), appended AS (${insertAudit(4)}
       ), moved AS (
         UPDATE audit_head SET seq = $11, hash = $12 WHERE one = 1
       )
       UPDATE sessions SET events = u.events, journal_digest = u.digest, awaiting = u.awaiting,
         finished = CASE WHEN u.finished THEN 1 ELSE sessions.finished END
       FROM unnest($13::text[], $14::int[], $15::text[], $16::int[], $17::bool[])
         AS u(id, events, digest, awaiting, finished)
       WHERE sessions.id = u.id`,
      [
        events.map((event) => event.id),
        events.map((event) => event.seq),
        events.map((event) => event.text),
        ...auditColumns(entries),
        last.seq,
        last.hash,
        writes.map((write) => write.id),
        writes.map((write) => write.anchor.events),
        writes.map((write) => write.anchor.digest),
        writes.map((write) => write.awaiting),
        writes.map((write) => write.finished),
      ],
    );
    // Each session's position once this commits: its anchor, and its last entry.
    const lastEntry = new Map(entries.map((entry) => [entry.session, entry.seq]));
    for (const write of writes) {
      const before = this.#positions.get(write.id);
      // Only a position this process vouches for moves on: otherwise the next catch-up reads it all.
      if (before?.events !== write.from) continue;
      positions.set(write.id, {
        ...write.anchor,
        auditSeq: lastEntry.get(write.id) ?? before.auditSeq,
      });
    }
  }

  /** Commits the mutations queued and under way, then closes the pool. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    while (this.#committing !== undefined || this.#queue.length > 0 || this.#scheduled) {
      await (this.#committing ?? new Promise((resolve) => setImmediate(resolve)));
    }
    await this.#pool.end();
  }
}
