import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import type { GuardJournal, JournalEvent } from '../../guard/index.js';
import { AuditChain, type AuditRecord } from '../../store/audit-chain.js';

/** What the service keeps of a session: enough to restore its guard exactly. */
export interface StoredSession {
  readonly id: string;
  /** SHA-256 (hex) of the bearer token that created it. */
  readonly tokenHash: string;
  /** The checked spec text; null for a session without a valid spec (it refuses everything). */
  readonly specText: string | null;
  readonly schemaKind: 'states' | 'tools';
  readonly schemaJson: string;
  /** Guard options as JSON (`mode`, `finishWaitsForResults`). */
  readonly optionsJson: string;
  readonly now: string;
  readonly timeZone: string;
  readonly createdAt: string;
  readonly finished: boolean;
}

/** A write waiting for the next group commit. */
interface QueuedWrite {
  readonly sessionId: string;
  readonly from: number;
  readonly events: readonly JournalEvent[];
  readonly audit: readonly AuditRecord[];
  readonly finished: boolean;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export type { AuditRecord };

const schemaSql = `
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
) WITHOUT ROWID;`;

interface SessionRow {
  id: string;
  token_hash: string;
  spec_text: string | null;
  schema_kind: 'states' | 'tools';
  schema_json: string;
  options_json: string;
  now: string;
  time_zone: string;
  created_at: string;
  finished: number;
}

function sessionOf(row: SessionRow): StoredSession {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    specText: row.spec_text,
    schemaKind: row.schema_kind,
    schemaJson: row.schema_json,
    optionsJson: row.options_json,
    now: row.now,
    timeZone: row.time_zone,
    createdAt: row.created_at,
    finished: row.finished === 1,
  };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The service's SQLite file (WAL): sessions, their journals event by event, and the
 * hash-chained audit log. Writes are grouped into one transaction per turn of the event
 * loop (`write`), committed before the service answers; with WAL and `synchronous =
 * NORMAL` a killed process loses nothing committed.
 */
export class ServiceStore {
  readonly #db: Database.Database;
  readonly #statements;
  readonly #audit: AuditChain;
  #queue: QueuedWrite[] = [];

  constructor(path: string) {
    this.#db = new Database(path);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('synchronous = NORMAL');
    this.#db.pragma('busy_timeout = 5000');
    this.#db.exec(schemaSql);
    const db = this.#db;
    this.#statements = {
      insertSession: db.prepare(
        `INSERT INTO sessions (id, token_hash, spec_text, schema_kind, schema_json, options_json, now, time_zone, created_at)
         VALUES (@id, @tokenHash, @specText, @schemaKind, @schemaJson, @optionsJson, @now, @timeZone, @createdAt)`,
      ),
      session: db.prepare('SELECT * FROM sessions WHERE id = ?'),
      openSessions: db.prepare('SELECT * FROM sessions WHERE finished = 0 ORDER BY created_at, id'),
      finish: db.prepare('UPDATE sessions SET finished = 1 WHERE id = ?'),
      events: db.prepare('SELECT event FROM journal WHERE session = ? ORDER BY seq'),
      eventCount: db.prepare('SELECT COUNT(*) AS n FROM journal WHERE session = ?'),
      insertEvent: db.prepare('INSERT INTO journal (session, seq, event) VALUES (?, ?, ?)'),
    };
    this.#audit = new AuditChain(db);
  }

  get database(): Database.Database {
    return this.#db;
  }

  /** Records a new session and its audit entry, in one transaction. */
  createSession(session: StoredSession, audit: readonly AuditRecord[]): void {
    this.#db
      .transaction(() => {
        this.#statements.insertSession.run({ ...session });
        this.#audit.append(audit, session.createdAt);
      })
      .immediate();
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
    events: readonly JournalEvent[],
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
    try {
      this.#db
        .transaction(() => {
          const at = new Date().toISOString();
          for (const write of group) {
            write.events.forEach((event, index) => {
              this.#statements.insertEvent.run(
                write.sessionId,
                write.from + index,
                JSON.stringify(event),
              );
            });
            this.#audit.append(write.audit, at);
            if (write.finished) this.#statements.finish.run(write.sessionId);
          }
        })
        .immediate();
    } catch (error) {
      for (const write of group) write.reject(error);
      return;
    }
    this.groupCommits++;
    for (const write of group) write.resolve();
  }

  /** How many group commits have landed (for tests and the bench: writes per commit). */
  groupCommits = 0;

  session(id: string): StoredSession | undefined {
    const row = this.#statements.session.get(id) as SessionRow | undefined;
    return row && sessionOf(row);
  }

  openSessions(): StoredSession[] {
    return (this.#statements.openSessions.all() as SessionRow[]).map(sessionOf);
  }

  journal(session: StoredSession): GuardJournal {
    const rows = this.#statements.events.all(session.id) as { event: string }[];
    return {
      version: 1,
      now: session.now,
      timeZone: session.timeZone,
      events: rows.map((row) => JSON.parse(row.event) as JournalEvent),
    };
  }

  /** Commits what is queued, then closes the file. */
  close(): void {
    if (!this.#db.open) return;
    this.#flush();
    this.#db.close();
  }
}
