import { existsSync } from 'node:fs';
import { errorMessage } from '../support/error-message.js';
import { type AuditVerification, auditSchema, verifyAuditChain } from './audit-chain.js';
import { AuditFileError } from './audit-file-error.js';
import { type AuditedSession, collectAudited, firstTamperedSession } from './journal-anchor.js';
import { openSqlite, refuseNewerSchemas, type SqliteDatabase } from './sqlite.js';
import { serviceSchema } from './sqlite-service-store.js';

export { AuditFileError, type AuditFileErrorCode } from './audit-file-error.js';

/** Opens `path` read-only and checks its audit chain. */
export function verifyAuditFile(path: string): AuditVerification {
  if (!existsSync(path)) throw new AuditFileError('missing-file', `there is no file '${path}'`);
  let db: SqliteDatabase;
  try {
    db = openSqlite(path, { readonly: true, schemas: [] });
  } catch (error) {
    throw new AuditFileError(
      'not-a-database',
      `'${path}' is not a database the service wrote: ${errorMessage(error)}`,
    );
  }
  try {
    const table = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'audit'")
      .get();
    if (table === undefined)
      throw new AuditFileError('no-audit-log', `'${path}' holds no audit log`);
    refuseNewerSchemas(db, [auditSchema, serviceSchema], `'${path}'`);
    // The service's sessions and journals are what a restart acts on: they must match
    // what the chain recorded of them (G2).
    const audited = new Map<string, AuditedSession>();
    const verified = verifyAuditChain(db, (entry) => collectAudited(audited, entry));
    if (!verified.ok) return verified;
    const tampered = firstTamperedSession(db, audited);
    return tampered === undefined
      ? verified
      : { ok: false, entries: verified.entries, ...tampered };
  } catch (error) {
    if (error instanceof AuditFileError) throw error;
    throw new AuditFileError('unreadable', `'${path}' could not be read: ${errorMessage(error)}`);
  } finally {
    db.close();
  }
}
