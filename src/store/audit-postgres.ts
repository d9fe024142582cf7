import { errorMessage } from '../support/error-message.js';
import { type AuditHead, type AuditVerification, ChainCheck } from './audit-chain.js';
import { AuditFileError } from './audit-file-error.js';
import { type AuditedSession, collectAudited, sessionProblem } from './journal-anchor.js';
import { openPostgres, PostgresStoreError } from './postgres.js';
import {
  auditEntryOf,
  postgresAuditSchema,
  postgresServiceSchema,
} from './postgres-service-store.js';
import { redactedUrl } from './postgres-url.js';
import { type SessionRow, sessionOf } from './service-store.js';

/** Rows read per query: the chain is checked page by page, never held whole in memory. */
const pageSize = 2_000;

/**
 * Checks the audit chain of the PostgreSQL database of `intentguard serve --db
 * postgres://…` (one chain, which every instance extends under the lock of its head's
 * row), then every session's row and journal against what the chain recorded of them
 * (G2), as `verifyAuditFile` does for an SQLite file. Read only: nothing is migrated.
 * Throws `AuditFileError` when the database cannot be reached or holds no audit log.
 *
 * @example
 * const result = await verifyAuditDatabase('postgres://auditor@db.internal/intentguard');
 * if (!result.ok) console.log(`entry ${result.seq}: ${result.message}`);
 */
export async function verifyAuditDatabase(url: string): Promise<AuditVerification> {
  const what = redactedUrl(url);
  let pool: Awaited<ReturnType<typeof openPostgres>>;
  try {
    pool = await openPostgres(url, {
      schemas: [postgresServiceSchema, postgresAuditSchema],
      readonly: true,
      poolSize: 1,
    });
  } catch (error) {
    throw new AuditFileError(
      PostgresStoreError.isInstance(error) && error.code === 'bad-url'
        ? 'not-a-database'
        : 'unreadable',
      errorMessage(error),
    );
  }
  try {
    const tables = await pool.query<{ audit: string | null }>(
      "SELECT to_regclass('audit') AS audit",
    );
    if (tables.rows[0]?.audit == null)
      throw new AuditFileError('no-audit-log', `${what} holds no audit log`);
    // One snapshot for the whole check: appends of running instances do not show half-way.
    const client = await pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const check = new ChainCheck();
      const audited = new Map<string, AuditedSession>();
      let after = 0;
      for (;;) {
        const page = await client.query(
          'SELECT seq, at, session, kind, body, prev, hash FROM audit WHERE seq > $1 ORDER BY seq LIMIT $2',
          [after, pageSize],
        );
        for (const row of page.rows) {
          const entry = auditEntryOf(row);
          const failure = check.entry(entry);
          if (failure !== undefined) return failure;
          collectAudited(audited, entry);
          after = entry.seq;
        }
        if (page.rows.length < pageSize) break;
      }
      const head = await client.query<{ seq: string; hash: string }>(
        'SELECT seq, hash FROM audit_head WHERE one = 1',
      );
      const headRow = head.rows[0];
      const recorded: AuditHead | undefined =
        headRow && (Number(headRow.seq) !== 0 || after !== 0)
          ? { seq: Number(headRow.seq), hash: headRow.hash }
          : undefined;
      const verified = check.end(recorded);
      if (!verified.ok) return verified;
      let lastId = '';
      for (;;) {
        const sessions = await client.query<SessionRow>(
          'SELECT * FROM sessions WHERE id > $1 ORDER BY id LIMIT $2',
          [lastId, pageSize],
        );
        for (const row of sessions.rows) {
          const events = await client.query<{ event: string }>(
            'SELECT event FROM journal WHERE session = $1 ORDER BY seq',
            [row.id],
          );
          const known = audited.get(row.id);
          const problem = sessionProblem(
            sessionOf(row),
            events.rows.map((event) => event.event),
            known,
          );
          if (problem !== undefined)
            return {
              ok: false,
              entries: verified.entries,
              seq: known?.journal?.seq ?? known?.created?.seq ?? 0,
              message: `session ${row.id}: ${problem}`,
            };
          lastId = row.id;
        }
        if (sessions.rows.length < pageSize) break;
      }
      const orphan = await client.query<{ session: string }>(
        'SELECT session FROM journal WHERE session NOT IN (SELECT id FROM sessions) LIMIT 1',
      );
      const stray = orphan.rows[0]?.session;
      if (stray !== undefined)
        return {
          ok: false,
          entries: verified.entries,
          seq: 0,
          message: `the journal holds events of '${stray.slice(0, 80)}', which is no session`,
        };
      return verified;
    } finally {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  } catch (error) {
    if (error instanceof AuditFileError) throw error;
    throw new AuditFileError('unreadable', `${what} could not be read: ${errorMessage(error)}`);
  } finally {
    await pool.end();
  }
}
