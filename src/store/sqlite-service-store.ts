import { AuditChain, type AuditRecord, auditedSessions, auditSchema } from './audit-chain.js';
import {
  anchored,
  emptyJournal,
  extendAnchor,
  type JournalAnchor,
  sessionProblem,
} from './journal-anchor.js';
import {
  JournalTamperedError,
  type ListedSession,
  listedOf,
  type ServiceStore,
  type SessionCatchUp,
  type SessionRow,
  type SessionState,
  type SessionStep,
  type StoredJournal,
  type StoredSession,
  sessionOf,
  TooManySessionsError,
} from './service-store.js';
import { openSqlite, type SqliteDatabase, type SqliteSchema } from './sqlite.js';

/** A write waiting for the next group commit. */
interface QueuedWrite {
  readonly sessionId: string;
  readonly from: number;
  readonly events: readonly unknown[];
  readonly audit: readonly AuditRecord[];
  readonly finished: boolean;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/** The service's tables; the audit chain's are `auditSchema`, in the same file. */
export const serviceSchema: SqliteSchema = {
  name: 'service',
  migrations: [
    {
      version: 1,
      sql: `
CREATE TABLE IF NOT EXISTS sessions (
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
CREATE TABLE IF NOT EXISTS journal (
  session TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event TEXT NOT NULL,
  PRIMARY KEY (session, seq)
) WITHOUT ROWID;`,
    },
  ],
};

/**
 * The service's SQLite file (WAL): sessions, their journals event by event, and the
 * hash-chained audit log, for one service process. Writes are grouped into one
 * transaction per turn of the event loop (`write`), committed before the service
 * answers; with WAL and `synchronous = NORMAL` a killed process loses nothing committed.
 *
 * @example
 * const store = new SqliteServiceStore('intentguard.db');
 * const { app } = createServiceApp({ store, tokens: [token] });
 */
export class SqliteServiceStore implements ServiceStore {
  /** One process writes the file: what it holds in memory is never behind it. */
  readonly shared = false;
  readonly what: string;
  readonly #db: SqliteDatabase;
  readonly #statements;
  readonly #audit: AuditChain;
  #queue: QueuedWrite[] = [];
  /**
   * Each session's journal as the audit log anchors it, for the sessions this process
   * created, wrote or checked against the verified log: what the next write extends,
   * and what a restore compares the journal table with (G2).
   */
  readonly #anchors = new Map<string, JournalAnchor>();
  /** Sessions found not to match the log, with why (not checked again). */
  readonly #tampered = new Map<string, string>();
  /** Open sessions per token hash (the per-token cap, S3). */
  readonly #open = new Map<string, number>();

  constructor(path: string) {
    this.what = `the service's file '${path}'`;
    this.#db = openSqlite(path, {
      schemas: [serviceSchema, auditSchema],
      what: `the service's file '${path}'`,
    });
    const db = this.#db;
    this.#statements = {
      insertSession: db.prepare(
        `INSERT INTO sessions (id, token_hash, spec_text, schema_kind, schema_json, options_json, now, time_zone, created_at)
         VALUES (@id, @tokenHash, @specText, @schemaKind, @schemaJson, @optionsJson, @now, @timeZone, @createdAt)`,
      ),
      session: db.prepare('SELECT * FROM sessions WHERE id = ?'),
      openSessions: db.prepare('SELECT * FROM sessions WHERE finished = 0 ORDER BY created_at, id'),
      finish: db.prepare('UPDATE sessions SET finished = 1 WHERE id = ?'),
      list: db.prepare(
        `SELECT id, created_at, finished FROM sessions
         WHERE (@token IS NULL OR token_hash = @token)
           AND (@after IS NULL OR (created_at, id) < (
             SELECT created_at, id FROM sessions WHERE id = @after AND (@token IS NULL OR token_hash = @token)))
         ORDER BY created_at DESC, id DESC LIMIT @limit`,
      ),
      events: db.prepare('SELECT event FROM journal WHERE session = ? ORDER BY seq'),
      eventCount: db.prepare('SELECT COUNT(*) AS n FROM journal WHERE session = ?'),
      insertEvent: db.prepare('INSERT INTO journal (session, seq, event) VALUES (?, ?, ?)'),
    };
    this.#audit = new AuditChain(db);
    const counts = db
      .prepare(
        'SELECT token_hash AS token, COUNT(*) AS n FROM sessions WHERE finished = 0 GROUP BY token_hash',
      )
      .all() as { token: string; n: number }[];
    for (const { token, n } of counts) this.#open.set(token, n);
  }

  /** How many sessions of this token are open (not finished). */
  openSessionCount(tokenHash: string): Promise<number> {
    return Promise.resolve(this.#open.get(tokenHash) ?? 0);
  }

  #countOpen(tokenHash: string, change: number): void {
    const count = (this.#open.get(tokenHash) ?? 0) + change;
    if (count > 0) this.#open.set(tokenHash, count);
    else this.#open.delete(tokenHash);
  }

  get database(): SqliteDatabase {
    return this.#db;
  }

  /** Records a new session and its audit entry, in one transaction, within `maxOpen`. */
  async createSession(
    session: StoredSession,
    audit: readonly AuditRecord[],
    maxOpen?: number,
  ): Promise<void> {
    // This process alone writes the file, and counts synchronously: no creation passes together.
    if (maxOpen !== undefined && (this.#open.get(session.tokenHash) ?? 0) >= maxOpen)
      throw new TooManySessionsError(maxOpen);
    this.#db
      .transaction(() => {
        this.#statements.insertSession.run({ ...session });
        this.#audit.append(audit, session.createdAt);
      })
      .immediate();
    this.#anchors.set(session.id, emptyJournal);
    this.#countOpen(session.tokenHash, 1);
  }

  /**
   * Runs `step` at once (this process is the file's only writer, so its copy is never
   * behind: `step` is given nothing to catch up with) and queues what it writes for the
   * next group commit. Steps of one session run in the order they are called, each
   * seeing the ones before, committed or not; each answer waits for its own commit.
   */
  async update<T>(
    id: string,
    _known: () => number,
    step: (behind: SessionCatchUp | undefined) => SessionStep<T>,
  ): Promise<T> {
    const { answer, write } = step(undefined);
    if (write !== undefined)
      await this.write(id, write.from, write.events, write.audit, write.finished);
    return answer;
  }

  /**
   * Queues the journal events from `from` on and the audit records of one session (and
   * `finished`, which marks it done) for the next group commit. The promise settles when
   * that commit has landed — the caller answers only then — or failed: a failed commit
   * writes nothing of its group and rejects every write in it.
   *
   * Why a group commit: a transaction per request costs more than the check itself;
   * requests that arrive together (other clients, other sessions) share one transaction,
   * written in a `setImmediate` after the event loop's I/O phase. Every write queued
   * before the flush is in it, so no write ever depends on an earlier, uncommitted group.
   */
  write(
    sessionId: string,
    from: number,
    events: readonly unknown[],
    audit: readonly AuditRecord[],
    finished: boolean,
  ): Promise<void> {
    if (events.length === 0 && audit.length === 0 && !finished) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.#queue.push({ sessionId, from, events, audit, finished, resolve, reject });
      if (this.#queue.length === 1) setImmediate(() => this.#flush());
    });
  }

  /** Writes every queued write in one transaction and settles their promises. */
  #flush(): void {
    const group = this.#queue;
    if (group.length === 0) return;
    this.#queue = [];
    // The anchors this group moves to; kept only once it has committed.
    const anchors = new Map<string, JournalAnchor>();
    try {
      this.#db
        .transaction(() => {
          const at = new Date().toISOString();
          for (const write of group) {
            const texts = write.events.map((event) => JSON.stringify(event));
            texts.forEach((text, index) => {
              this.#statements.insertEvent.run(write.sessionId, write.from + index, text);
            });
            let audit = write.audit;
            if (texts.length > 0) {
              const before = anchors.get(write.sessionId) ?? this.#anchors.get(write.sessionId);
              // Never extend a journal the log does not vouch for: the write fails.
              if (before === undefined || before.events !== write.from)
                throw new Error(
                  `the journal of session ${write.sessionId} is not in step with the audit log`,
                );
              const after = extendAnchor(before, texts);
              anchors.set(write.sessionId, after);
              audit = anchored(write.sessionId, audit, after);
            }
            this.#audit.append(audit, at);
            if (write.finished) this.#statements.finish.run(write.sessionId);
          }
        })
        .immediate();
    } catch (error) {
      for (const write of group) write.reject(error);
      return;
    }
    for (const [id, anchor] of anchors) this.#anchors.set(id, anchor);
    for (const write of group) {
      if (!write.finished) continue;
      const owner = this.#session(write.sessionId)?.tokenHash;
      if (owner !== undefined) this.#countOpen(owner, -1);
    }
    this.groupCommits++;
    for (const write of group) write.resolve();
  }

  /** How many group commits have landed (for tests and the bench: writes per commit). */
  groupCommits = 0;

  async session(id: string): Promise<StoredSession | undefined> {
    return this.#session(id);
  }

  #session(id: string): StoredSession | undefined {
    const row = this.#statements.session.get(id) as SessionRow | undefined;
    return row && sessionOf(row);
  }

  async state(id: string): Promise<SessionState | undefined> {
    const session = this.#session(id);
    if (session === undefined) return undefined;
    const { n } = this.#statements.eventCount.get(id) as { n: number };
    return { events: n, finished: session.finished };
  }

  /** Every open session, checked against the audit log in one pass over the chain. */
  async restorable(): Promise<StoredSession[]> {
    const open = (this.#statements.openSessions.all() as SessionRow[]).map(sessionOf);
    this.verifySessions(open);
    return open;
  }

  async listSessions(
    tokenHash: string | undefined,
    limit: number,
    after?: string,
  ): Promise<ListedSession[]> {
    const rows = this.#statements.list.all({
      token: tokenHash ?? null,
      after: after ?? null,
      limit,
    }) as { id: string; created_at: string; finished: number }[];
    return rows.map(listedOf);
  }

  /** None: the service holds the sessions of a file it alone writes that wait for approval. */
  async awaitingSessions(): Promise<string[]> {
    return [];
  }

  /**
   * The session's journal, once its row and events are shown to be what the audit log
   * recorded (G2); otherwise `JournalTamperedError`. Sessions this process has not
   * anchored yet are checked against the whole verified chain (`verifyOpenSessions`
   * does that for all open sessions in one pass at start-up).
   */
  async journal(session: StoredSession): Promise<StoredJournal> {
    return this.#journal(session);
  }

  #journal(session: StoredSession): StoredJournal {
    const texts = (this.#statements.events.all(session.id) as { event: string }[]).map(
      (row) => row.event,
    );
    const known = this.#tampered.get(session.id);
    if (known !== undefined) throw new JournalTamperedError(known);
    const anchor = this.#anchors.get(session.id);
    let problem: string | undefined;
    if (anchor === undefined) {
      this.verifySessions([session]);
      problem = this.#tampered.get(session.id);
    } else if (
      texts.length !== anchor.events ||
      extendAnchor(emptyJournal, texts).digest !== anchor.digest
    ) {
      problem = `its journal (${texts.length} events) differs from what this service wrote (${anchor.events})`;
    }
    if (problem !== undefined) {
      this.#tampered.set(session.id, problem);
      this.#anchors.delete(session.id);
      throw new JournalTamperedError(problem);
    }
    return {
      version: 1,
      now: session.now,
      timeZone: session.timeZone,
      events: texts.map((text): unknown => JSON.parse(text)),
    };
  }

  /**
   * Checks sessions against the audit log in one pass over the whole chain: each that
   * matches is anchored (later writes extend it), each that does not is remembered as
   * tampered with. A chain that does not verify vouches for no session.
   */
  verifySessions(sessions: readonly StoredSession[]): void {
    const wanted = new Map(sessions.map((session) => [session.id, session]));
    if (wanted.size === 0) return;
    const { problem, sessions: audited } = auditedSessions(this.#db, (id) => wanted.has(id));
    for (const session of wanted.values()) {
      const texts = (this.#statements.events.all(session.id) as { event: string }[]).map(
        (row) => row.event,
      );
      const found = problem ?? sessionProblem(session, texts, audited.get(session.id));
      if (found === undefined) {
        this.#anchors.set(session.id, extendAnchor(emptyJournal, texts));
        this.#tampered.delete(session.id);
      } else this.#tampered.set(session.id, found);
    }
  }

  /** Commits what is queued, then closes the file. */
  async close(): Promise<void> {
    if (!this.#db.open) return;
    this.#flush();
    this.#db.close();
  }
}
