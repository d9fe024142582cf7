import Database from 'better-sqlite3';
import { IntentguardError } from '../language/index.js';
import {
  type Migration,
  migrationsTable,
  newerSchemaProblem,
  pendingMigrations,
  type StoreSchema,
} from './migrations.js';

/**
 * Every SQLite file intentguard writes is opened here: the experience memory, the
 * service's sessions and journals, the proxy's audit file, and the hash-chained audit
 * log inside the last two. One place sets the pragmas, and one place applies each
 * part's numbered migrations and records them in the file, so that a file written by
 * this version opens in the next, and a file written by a later version is refused
 * instead of being read (or written) with a schema this version does not know.
 *
 * This is the only module that imports the native binding.
 */

export type SqliteDatabase = Database.Database;
export type SqliteStatement = Database.Statement;

/**
 * The tables of one part of a file (`audit`, `service`, `proxy-audit`, `memory`), as the
 * migrations that build them (migrations.ts). Migration 1 of a part that existed before
 * migrations were recorded creates its tables only if absent, so that files written then
 * open and keep their rows.
 */
export type SqliteSchema = StoreSchema;
export type { Migration };

/** Why a file was refused; `code` says which. */
export type SqliteSchemaErrorCode =
  /** The file records a migration this version does not have: a newer intentguard wrote it. */
  'newer-schema';

/** A database file refused for its schema (fail closed): nothing was read or written. */
export class SqliteSchemaError extends IntentguardError {
  static override readonly marker = 'intentguard.error.SqliteSchemaError';
  static readonly errorName = 'IntentguardSqliteSchemaError';
  override readonly name = SqliteSchemaError.errorName;
  override readonly code: SqliteSchemaErrorCode;

  constructor(code: SqliteSchemaErrorCode, message: string) {
    super({ code, message });
    this.code = code;
  }
}

export interface OpenSqliteOptions {
  /** The parts whose tables this file holds, migrated in this order. */
  readonly schemas: readonly SqliteSchema[];
  /** Open for reading only: nothing is migrated, and the file must exist. */
  readonly readonly?: boolean;
  /** What the file is, for messages (`the memory file`). */
  readonly what?: string;
}

const migrationsTableSql = `CREATE TABLE IF NOT EXISTS ${migrationsTable} (
  part TEXT NOT NULL,
  version INTEGER NOT NULL,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (part, version)
)`;

/** The versions a file records per part; empty for a file written before they were recorded. */
function recordedVersions(database: SqliteDatabase): Map<string, number> {
  const table = database
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?")
    .get(migrationsTable);
  if (table === undefined) return new Map();
  const rows = database
    .prepare(`SELECT part, max(version) AS version FROM ${migrationsTable} GROUP BY part`)
    .all() as { part: string; version: number }[];
  return new Map(rows.map((row) => [row.part, row.version]));
}

/** Refuses a file that records a later migration of a part than this version knows. */
function refuseNewer(
  recorded: ReadonlyMap<string, number>,
  schemas: readonly SqliteSchema[],
  what: string,
): void {
  const problem = newerSchemaProblem(recorded, schemas, what);
  if (problem !== undefined) throw new SqliteSchemaError('newer-schema', problem);
}

/**
 * Throws `SqliteSchemaError` when the open file records a later migration of one of
 * `schemas` than this version knows (for a file opened read-only with no schemas).
 */
export function refuseNewerSchemas(
  database: SqliteDatabase,
  schemas: readonly SqliteSchema[],
  what: string,
): void {
  refuseNewer(recordedVersions(database), schemas, what);
}

/** Applies each part's migrations the file has not had, in one immediate transaction. */
function migrate(database: SqliteDatabase, schemas: readonly SqliteSchema[], what: string): void {
  database
    .transaction(() => {
      database.exec(migrationsTableSql);
      const recorded = recordedVersions(database);
      refuseNewer(recorded, schemas, what);
      const record = database.prepare(
        `INSERT INTO ${migrationsTable} (part, version, applied_at) VALUES (?, ?, ?)`,
      );
      const at = new Date().toISOString();
      for (const schema of schemas) {
        const from = recorded.get(schema.name) ?? 0;
        for (const step of pendingMigrations(schema, from)) {
          database.exec(step.sql);
          record.run(schema.name, step.version, at);
        }
      }
    })
    .immediate();
}

/**
 * Opens (creating if needed) the SQLite file at `path` (`:memory:` for a temporary one)
 * in WAL mode with `synchronous = NORMAL` (a killed process loses nothing committed) and
 * a 5 s busy timeout (several processes may share a file), and migrates it. A file
 * written by a newer version is refused with `SqliteSchemaError`; read-only, nothing is
 * migrated and such a file is refused as well.
 */
export function openSqlite(path: string, options: OpenSqliteOptions): SqliteDatabase {
  const readonly = options.readonly === true;
  const what = options.what ?? `'${path}'`;
  const database = new Database(path, { readonly, fileMustExist: readonly, timeout: 5000 });
  try {
    if (readonly) {
      refuseNewer(recordedVersions(database), options.schemas, what);
      return database;
    }
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    migrate(database, options.schemas, what);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}
