import { IntentguardError } from '../support/errors.js';

/** Why `verifyAuditFile` (or `verifyAuditDatabase`) could not check a log. */
export type AuditFileErrorCode =
  /** There is no file at the path. */
  | 'missing-file'
  /** The file is not an SQLite database, or one this version may not read. */
  | 'not-a-database'
  /** The database holds no audit log. */
  | 'no-audit-log'
  /** Reading the log failed. */
  | 'unreadable';

/**
 * A log that could not be checked: a missing file, one that is not SQLite, a database
 * that cannot be reached, or one without an audit log.
 */
export class AuditFileError extends IntentguardError {
  static override readonly marker = 'intentguard.error.AuditFileError';
  static readonly errorName = 'IntentguardAuditFileError';
  override readonly name = AuditFileError.errorName;
  override readonly code: AuditFileErrorCode;

  constructor(code: AuditFileErrorCode, message: string) {
    super({ code, message });
    this.code = code;
  }
}
