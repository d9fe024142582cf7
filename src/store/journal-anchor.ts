import { createHash } from 'node:crypto';
import { isRecord } from '../support/is-record.js';
import type { AuditEntry, AuditRecord } from './audit-chain.js';
import { type SessionRow, sessionOf } from './service-store.js';
import type { SqliteDatabase } from './sqlite.js';

/**
 * The service's journal (and each session's row) tied to the hash-chained audit log, so
 * that what a restart acts on is what the audit recorded (G2). Every write that adds
 * journal events carries, in the body of its last audit record, the journal's length
 * and a running SHA-256 over the events' stored text (`"journal": {events, digest}`);
 * each session's first record holds what its row holds. A restore, and
 * `intentguard audit verify`, recompute both from the tables and compare: a row
 * inserted, edited or deleted outside the service no longer matches the chain.
 */

export interface JournalAnchor {
  /** How many journal events the session had after the write. */
  readonly events: number;
  /** The running digest over those events' stored JSON text. */
  readonly digest: string;
}

/** A session with no events yet. */
export const emptyJournal: JournalAnchor = { events: 0, digest: '0'.repeat(64) };

/** The anchor after appending events (their text exactly as stored) to `from`. */
export function extendAnchor(from: JournalAnchor, texts: readonly string[]): JournalAnchor {
  let digest = from.digest;
  for (const text of texts) {
    digest = createHash('sha256').update(`${digest}\n${text}`).digest('hex');
  }
  return { events: from.events + texts.length, digest };
}

/** The write's audit records with the journal's new anchor in the body of the last one. */
export function anchored(
  session: string,
  audit: readonly AuditRecord[],
  anchor: JournalAnchor,
): readonly AuditRecord[] {
  const last = audit.at(-1);
  const body = last?.body;
  if (last === undefined || typeof body !== 'object' || body === null || Array.isArray(body))
    return [...audit, { session, kind: 'journal', body: { journal: anchor } }];
  return [...audit.slice(0, -1), { ...last, body: { ...body, journal: anchor } }];
}

/** What a session's row holds that decides how it restores: compared with its audit record. */
export interface SessionFields {
  readonly id: string;
  readonly tokenHash: string;
  readonly specText: string | null;
  readonly schemaKind: string;
  readonly schemaJson: string;
  readonly optionsJson: string;
  readonly now: string;
  readonly timeZone: string;
}

/** The part of a session's first audit record that `sessionProblem` compares with its row. */
export function sessionRecordFields(session: SessionFields): Record<string, unknown> {
  return {
    spec: session.specText,
    schema: { kind: session.schemaKind, json: session.schemaJson },
    now: session.now,
    timeZone: session.timeZone,
    options: session.optionsJson,
    token: session.tokenHash,
  };
}

const comparedFields = ['spec', 'schema', 'now', 'timeZone', 'options', 'token'] as const;

function fieldHash(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(value) ?? 'undefined')
    .digest('hex');
}

/** What the audit log says of one session: its first record and its latest journal anchor. */
export interface AuditedSession {
  /** The creation record: the SHA-256 of each compared field's JSON (bodies can be large). */
  created?: {
    readonly seq: number;
    readonly fields: ReadonlyMap<string, string>;
    /** Whether it records everything compared (older versions left options and token out). */
    readonly complete: boolean;
  };
  journal?: { readonly seq: number; readonly anchor: JournalAnchor };
}

function objectOf(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function anchorOf(value: unknown): JournalAnchor | undefined {
  const candidate = value as Partial<JournalAnchor> | null;
  return typeof candidate === 'object' &&
    candidate !== null &&
    Number.isSafeInteger(candidate.events) &&
    typeof candidate.digest === 'string'
    ? { events: candidate.events as number, digest: candidate.digest }
    : undefined;
}

/** Collects a session's records from one audit entry (in sequence order). */
export function collectAudited(audited: Map<string, AuditedSession>, entry: AuditEntry): void {
  const body = objectOf(entry.body);
  if (body === undefined) return;
  const known = audited.get(entry.session) ?? {};
  if (entry.kind === 'session' && known.created === undefined)
    known.created = {
      seq: entry.seq,
      fields: new Map(comparedFields.map((name) => [name, fieldHash(body[name])])),
      complete: comparedFields.every((name) => Object.hasOwn(body, name)),
    };
  const anchor = anchorOf(body['journal']);
  if (anchor !== undefined) known.journal = { seq: entry.seq, anchor };
  audited.set(entry.session, known);
}

/**
 * Why a session's row and journal do not match what the audit log recorded, or
 * undefined when they do. `texts` are the journal events as stored, in order.
 */
export function sessionProblem(
  session: SessionFields,
  texts: readonly string[],
  audited: AuditedSession | undefined,
): string | undefined {
  if (audited?.created === undefined)
    return 'the audit log has no record of its creation (a session from before journals were chained, or a row added outside the service)';
  if (!audited.created.complete)
    return `the audit log's record of its creation (entry ${audited.created.seq}) was written by a version that did not tie journals to the log: its row and journal cannot be vouched for`;
  const recorded = audited.created.fields;
  for (const [name, value] of Object.entries(sessionRecordFields(session))) {
    if (recorded.get(name) !== fieldHash(value))
      return `the ${name} of its row differs from the audit log's record of its creation (entry ${audited.created.seq})`;
  }
  const anchor = audited.journal?.anchor ?? emptyJournal;
  if (texts.length !== anchor.events)
    return `its journal has ${texts.length} events, the audit log recorded ${anchor.events}${audited.journal ? ` (entry ${audited.journal.seq})` : ''}`;
  if (extendAnchor(emptyJournal, texts).digest !== anchor.digest)
    return `its journal differs from what the audit log recorded (entry ${audited.journal?.seq ?? audited.created.seq})`;
  return undefined;
}

/**
 * Why journal events stored after a position the caller has checked (`from`, the
 * journal's first `from.events` events) do not match the latest anchor the audit log
 * recorded after that position (`latest`: none when it recorded no events since), or
 * undefined when they do: what a service instance that is behind checks before it
 * replays only the events it lacks.
 */
export function continuationProblem(
  from: JournalAnchor,
  texts: readonly string[],
  latest: AuditedSession['journal'],
): string | undefined {
  const anchor = latest?.anchor ?? from;
  const where = latest === undefined ? '' : ` (entry ${latest.seq})`;
  if (from.events + texts.length !== anchor.events)
    return `its journal has ${from.events + texts.length} events, the audit log recorded ${anchor.events}${where}`;
  if (extendAnchor(from, texts).digest !== anchor.digest)
    return `its journal differs from what the audit log recorded${where}`;
  return undefined;
}

/**
 * Checks every session of a service file against what the verified audit log says of
 * it (`audited`, collected while verifying): the first session whose row or journal was changed, or undefined.
 * A file without the service's tables (the MCP proxy's) has nothing to check.
 */
export function firstTamperedSession(
  db: SqliteDatabase,
  audited: ReadonlyMap<string, AuditedSession>,
): { readonly seq: number; readonly message: string } | undefined {
  const tables = new Set(
    (
      db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'journal')",
        )
        .all() as { name: string }[]
    ).map((row) => row.name),
  );
  if (!tables.has('sessions') || !tables.has('journal')) return undefined;
  const events = db.prepare('SELECT event FROM journal WHERE session = ? ORDER BY seq').pluck();
  const rows = db
    .prepare('SELECT * FROM sessions ORDER BY created_at, id')
    .iterate() as IterableIterator<SessionRow>;
  for (const row of rows) {
    const known = audited.get(row.id);
    const problem = sessionProblem(sessionOf(row), events.all(row.id) as string[], known);
    if (problem !== undefined)
      return {
        seq: known?.journal?.seq ?? known?.created?.seq ?? 0,
        message: `session ${row.id}: ${problem}`,
      };
  }
  // Journal rows of a session that has no row: inserted outside the service.
  const orphan = db
    .prepare('SELECT session FROM journal WHERE session NOT IN (SELECT id FROM sessions) LIMIT 1')
    .pluck()
    .get() as string | undefined;
  if (orphan !== undefined)
    return {
      seq: 0,
      message: `the journal holds events of '${orphan.slice(0, 80)}', which is no session`,
    };
  return undefined;
}
