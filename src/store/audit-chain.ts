import { createHash } from 'node:crypto';
import { type AuditedSession, collectAudited } from './journal-anchor.js';
import type { SqliteDatabase, SqliteSchema, SqliteStatement } from './sqlite.js';

/**
 * The hash-chained audit log that `intentguard serve` and `intentguard mcp-proxy` keep:
 * every decision, approval, result, observation and finish, appended in the same SQLite
 * transaction as whatever else records it.
 * Each entry carries the SHA-256 of the previous entry and its own hash over its
 * content and that link, so that an edit, a deletion or a reordering breaks the chain.
 * `audit_head` holds the last entry's sequence and hash: deleting the newest entries
 * shows as well.
 */

export interface AuditEntry {
  readonly seq: number;
  readonly at: string;
  readonly session: string;
  readonly kind: string;
  /** The event as JSON text. */
  readonly body: string;
  readonly prev: string;
  readonly hash: string;
}

/** The hash that starts the chain (the "previous" of entry 1). */
export const genesisHash = '0'.repeat(64);

/** The chain's tables, in the service's file and in the proxy's audit file alike. */
export const auditSchema: SqliteSchema = {
  name: 'audit',
  migrations: [
    {
      version: 1,
      sql: `
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  session TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  prev TEXT NOT NULL,
  hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_head (
  one INTEGER PRIMARY KEY CHECK (one = 1),
  seq INTEGER NOT NULL,
  hash TEXT NOT NULL
);`,
    },
  ],
};

/** An audit record before it is chained: which session (or proxy run), what, and its JSON body. */
export interface AuditRecord {
  readonly session: string;
  readonly kind: string;
  readonly body: unknown;
}

/**
 * Appends records to the chain of one open database (opened with `auditSchema`). Call
 * `append` inside the caller's write transaction (`.immediate()`): it reads the head
 * from the file each time, so that several processes sharing one file (proxies with one
 * `--audit` file) extend one chain instead of forking it, and a failed transaction
 * leaves nothing behind.
 */
export class AuditChain {
  readonly #insert: SqliteStatement;
  readonly #head: SqliteStatement;
  readonly #setHead: SqliteStatement;

  constructor(db: SqliteDatabase) {
    this.#insert = db.prepare(
      'INSERT INTO audit (seq, at, session, kind, body, prev, hash) VALUES (@seq, @at, @session, @kind, @body, @prev, @hash)',
    );
    this.#head = db.prepare('SELECT seq, hash FROM audit_head WHERE one = 1');
    this.#setHead = db.prepare(
      'INSERT INTO audit_head (one, seq, hash) VALUES (1, ?, ?) ON CONFLICT(one) DO UPDATE SET seq = excluded.seq, hash = excluded.hash',
    );
  }

  append(records: readonly AuditRecord[], at: string): void {
    if (records.length === 0) return;
    const head = (this.#head.get() as AuditHead | undefined) ?? chainStart;
    const entries = chainEntries(head, records, at);
    for (const entry of entries) this.#insert.run(entry);
    const last = entries.at(-1) ?? head;
    this.#setHead.run(last.seq, last.hash);
  }
}

/** The chain's last entry as `audit_head` records it. */
export interface AuditHead {
  readonly seq: number;
  readonly hash: string;
}

/** The head of an empty chain. */
export const chainStart: AuditHead = { seq: 0, hash: genesisHash };

/**
 * The entries that extend the chain at `head` with `records`, each linked to the one
 * before: what both backends insert (SQLite here, PostgreSQL in postgres-service-store.ts).
 */
export function chainEntries(
  head: AuditHead,
  records: readonly AuditRecord[],
  at: string,
): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let previous = head;
  for (const record of records) {
    const base = {
      seq: previous.seq + 1,
      at,
      session: record.session,
      kind: record.kind,
      body: JSON.stringify(record.body) ?? 'null',
      prev: previous.hash,
    };
    const entry: AuditEntry = { ...base, hash: entryHash(base) };
    entries.push(entry);
    previous = entry;
  }
  return entries;
}

/** The hash of an entry: its content and the previous entry's hash, length-prefixed. */
export function entryHash(entry: Omit<AuditEntry, 'hash'>): string {
  const fields = [String(entry.seq), entry.at, entry.session, entry.kind, entry.body, entry.prev];
  const hash = createHash('sha256');
  for (const field of fields) hash.update(`${Buffer.byteLength(field)}:${field}\n`);
  return hash.digest('hex');
}

export type AuditVerification =
  | { readonly ok: true; readonly entries: number; readonly head: string }
  | {
      readonly ok: false;
      readonly entries: number;
      /** The sequence number of the first entry that does not check out (0: the log as a whole). */
      readonly seq: number;
      readonly message: string;
    };

/**
 * The check of a chain read entry by entry in sequence order, whichever database holds
 * it: `entry` for each row (a failure ends the check), then `end` with the head the
 * database records.
 */
export class ChainCheck {
  #previous = genesisHash;
  #expectedSeq = 1;
  #count = 0;

  /** Checks the next entry; the failure when it does not check out. */
  entry(row: AuditEntry): AuditVerification | undefined {
    this.#count++;
    const count = this.#count;
    const expectedSeq = this.#expectedSeq;
    if (row.seq !== expectedSeq) {
      return {
        ok: false,
        entries: count,
        seq: row.seq,
        message: `entry ${row.seq} follows entry ${expectedSeq - 1}: entr${row.seq - expectedSeq === 1 ? 'y' : 'ies'} ${expectedSeq}${row.seq - expectedSeq > 1 ? `–${row.seq - 1}` : ''} deleted`,
      };
    }
    if (row.prev !== this.#previous) {
      return {
        ok: false,
        entries: count,
        seq: row.seq,
        message: `entry ${row.seq} does not link to entry ${row.seq - 1} (its previous hash differs): entries were edited, removed or reordered`,
      };
    }
    if (entryHash(row) !== row.hash) {
      return {
        ok: false,
        entries: count,
        seq: row.seq,
        message: `entry ${row.seq} was changed after it was written (its hash does not match its content)`,
      };
    }
    this.#previous = row.hash;
    this.#expectedSeq++;
    return undefined;
  }

  /** The verdict once every entry checked out, given the head the database records. */
  end(head: AuditHead | undefined): AuditVerification {
    const count = this.#count;
    const previous = this.#previous;
    const last = this.#expectedSeq - 1;
    if (head === undefined ? last !== 0 : head.seq !== last || head.hash !== previous) {
      const headSeq = head?.seq ?? 0;
      return {
        ok: false,
        entries: count,
        seq: headSeq > last ? last + 1 : headSeq === last ? last : headSeq + 1,
        message:
          headSeq > last
            ? `the log ends at entry ${last} but was written up to entry ${headSeq}: entr${headSeq - last === 1 ? 'y' : 'ies'} ${last + 1}${headSeq - last > 1 ? `–${headSeq}` : ''} deleted`
            : `the log's head (entry ${headSeq}) does not match its last entry ${last}`,
      };
    }
    return { ok: true, entries: count, head: previous };
  }
}

/**
 * Checks the chain of an open database, entry by entry, in sequence order; `onEntry`
 * sees each entry that checked out (what the log says can be read in the same pass).
 */
export function verifyAuditChain(
  db: SqliteDatabase,
  onEntry?: (entry: AuditEntry) => void,
): AuditVerification {
  const rows = db
    .prepare('SELECT seq, at, session, kind, body, prev, hash FROM audit ORDER BY seq')
    .iterate() as IterableIterator<AuditEntry>;
  const check = new ChainCheck();
  for (const row of rows) {
    const failure = check.entry(row);
    if (failure !== undefined) return failure;
    onEntry?.(row);
  }
  const head = db.prepare('SELECT seq, hash FROM audit_head WHERE one = 1').get() as
    | AuditHead
    | undefined;
  return check.end(head);
}

/**
 * Verifies the whole chain and, in the same pass, collects what the log says of the
 * sessions `wanted` picks (journal-anchor.ts). When the chain does not verify, nothing
 * it says can be trusted: `problem` says why.
 */
export function auditedSessions(
  db: SqliteDatabase,
  wanted: (session: string) => boolean,
): { readonly problem?: string; readonly sessions: Map<string, AuditedSession> } {
  const sessions = new Map<string, AuditedSession>();
  const verified = verifyAuditChain(db, (entry) => {
    if (wanted(entry.session)) collectAudited(sessions, entry);
  });
  if (!verified.ok)
    return {
      problem: `the audit log does not verify (entry ${verified.seq}: ${verified.message})`,
      sessions,
    };
  return { sessions };
}
