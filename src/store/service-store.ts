import { createHash } from 'node:crypto';
import { IntentguardError } from '../support/errors.js';
import type { AuditRecord } from './audit-chain.js';

/**
 * What `intentguard serve` keeps of its sessions, as one interface with two backends:
 * an SQLite file for one process (sqlite-service-store.ts, the default) and a PostgreSQL
 * database that several service instances share (postgres-service-store.ts). Both hold
 * the same tables, built by numbered migrations of the same design (migrations.ts), and
 * the same hash-chained audit log (audit-chain.ts).
 */

export type { AuditRecord };

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

/**
 * A session's journal as stored: its events as the guard wrote them (JSON), unchecked;
 * restoring a guard from it checks them (`restoreGuard`).
 */
export interface StoredJournal {
  readonly version: 1;
  readonly now: string;
  readonly timeZone: string;
  readonly events: readonly unknown[];
}

/** A session whose row or journal does not match the audit log: it is not restored (fail closed). */
export class JournalTamperedError extends IntentguardError {
  static override readonly marker = 'intentguard.error.JournalTamperedError';
  static readonly errorName = 'IntentguardJournalTamperedError';
  override readonly name = JournalTamperedError.errorName;

  constructor(message: string) {
    super({ code: 'journal-tampered', message });
  }
}

/** A token already has as many open sessions as it may: nothing was written. */
export class TooManySessionsError extends IntentguardError {
  static override readonly marker = 'intentguard.error.TooManySessionsError';
  static readonly errorName = 'IntentguardTooManySessionsError';
  override readonly name = TooManySessionsError.errorName;

  constructor(readonly maxOpen: number) {
    super({
      code: 'too-many-sessions',
      message: `this token has ${maxOpen} open sessions, as many as it may; finish some first`,
    });
  }
}

/** A session as a list of sessions names it. */
export interface ListedSession {
  readonly id: string;
  readonly createdAt: string;
  readonly finished: boolean;
}

/** What one mutation of a session adds to the store. */
export interface SessionWrite {
  /** The journal's length before the write: `events` are stored from there on. */
  readonly from: number;
  readonly events: readonly unknown[];
  readonly audit: readonly AuditRecord[];
  /** Whether the session finished with it. */
  readonly finished: boolean;
  /** How many of its calls wait for a person's answer after it (the approvals page's list). */
  readonly awaiting: number;
}

/** What a mutation decided, and what it adds to the store (nothing: no `write`). */
export interface SessionStep<T> {
  readonly answer: T;
  readonly write?: SessionWrite | undefined;
}

/**
 * A session as the store holds it when this process's copy is behind it (another
 * instance wrote it since), checked against the audit log: the events written after
 * the copy's (`from` = the copy's length; the copy replays them), or — when the store
 * cannot vouch for the copy's position — its row and whole journal (the copy is
 * replaced).
 */
export type SessionCatchUp =
  | { readonly session: StoredSession; readonly journal: StoredJournal }
  | { readonly from: number; readonly events: readonly unknown[]; readonly finished: boolean };

/** Where a session stands in the store: how many journal events, and whether it finished. */
export interface SessionState {
  readonly events: number;
  readonly finished: boolean;
}

/**
 * The service's store. Every method that writes resolves once what it wrote is
 * committed: the service answers only then, so a killed process loses no answered
 * decision.
 */
export interface ServiceStore {
  /**
   * Whether other processes write the same sessions (several instances on one
   * PostgreSQL): then what a process holds in memory may be behind the store, `update`
   * says so, and reads check `state` first.
   */
  readonly shared: boolean;
  /** What the store is, for messages (`the service's file 'x.db'`, `PostgreSQL db@host`). */
  readonly what: string;
  /**
   * Records a new session and its audit entry, in one transaction — unless its token
   * already has `maxOpen` open sessions (`TooManySessionsError`), counted so that
   * creations in flight, in any process, cannot pass the cap together.
   */
  createSession(
    session: StoredSession,
    audit: readonly AuditRecord[],
    maxOpen?: number,
  ): Promise<void>;
  /**
   * A page of the sessions of one token (of all for `undefined`), open and finished,
   * newest first, at most `limit`; `after`: those listed after that session (of the
   * same token), for the next page.
   */
  listSessions(
    tokenHash: string | undefined,
    limit: number,
    after?: string,
  ): Promise<ListedSession[]>;
  session(id: string): Promise<StoredSession | undefined>;
  /** Where the session stands (shared stores); undefined when there is no such session. */
  state(id: string): Promise<SessionState | undefined>;
  /**
   * The session's journal, once its row and events are shown to be what the audit log
   * recorded (G2); otherwise `JournalTamperedError`.
   */
  journal(session: StoredSession): Promise<StoredJournal>;
  /** The open sessions a starting service restores, each already checked against the audit log. */
  restorable(): Promise<StoredSession[]>;
  /** How many sessions of this token are open (not finished). */
  openSessionCount(tokenHash: string): Promise<number>;
  /**
   * Runs one mutation of a session, serialized with every other mutation of it, in any
   * process: `step` decides (synchronously) and says what to write, and the promise
   * resolves with its answer once that is committed. `known` says, when the session is
   * locked and just before `step` runs, how many journal events the caller's copy
   * holds; when the store holds others, `step` is given what the copy lacks
   * (`SessionCatchUp`) to decide on. A failed commit writes nothing of the step and
   * rejects.
   */
  update<T>(
    id: string,
    known: () => number,
    step: (behind: SessionCatchUp | undefined) => SessionStep<T>,
  ): Promise<T>;
  /**
   * Open sessions with calls waiting for a person's answer (of one token, or of all
   * for `undefined`), newest first, at most `limit`: the approvals of a shared store,
   * whichever process decided them. A store no other process writes lists none: the
   * service holds those sessions in memory.
   */
  awaitingSessions(tokenHash: string | undefined, limit: number): Promise<string[]>;
  /** Commits what is queued, then closes the store. */
  close(): Promise<void>;
}

/** A `sessions` row as both backends store it. */
export interface SessionRow {
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

export function sessionOf(row: SessionRow): StoredSession {
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

/** A listed session from its row's columns. */
export function listedOf(row: { id: string; created_at: string; finished: number }): ListedSession {
  return { id: row.id, createdAt: row.created_at, finished: row.finished === 1 };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
