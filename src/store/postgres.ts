import { Pool, type PoolClient } from 'pg';
import { errorMessage } from '../support/error-message.js';
import { IntentguardError } from '../support/errors.js';
import {
  migrationsTable,
  newerSchemaProblem,
  pendingMigrations,
  type StoreSchema,
} from './migrations.js';
import { redactedUrl } from './postgres-url.js';

/**
 * Every PostgreSQL database intentguard uses is opened here, through the `pg` driver's
 * pool: one place checks the URL, sets the timeouts that make a database that went away
 * an error instead of a hang, and applies each part's numbered migrations (the design of
 * migrations.ts, as in sqlite.ts) under an advisory lock, so that instances starting
 * together migrate once. This is the only module that imports `pg`.
 */

export type PostgresPool = Pool;
export type PostgresClient = PoolClient;

/** Why a database could not be used; `code` says which. */
export type PostgresStoreErrorCode =
  /** The URL is not a PostgreSQL URL intentguard can use. */
  | 'bad-url'
  /** The database could not be reached, or refused the connection. */
  | 'unreachable'
  /** The database records a migration this version does not have: a newer intentguard wrote it. */
  | 'newer-schema';

/** A PostgreSQL database refused or not reached (fail closed): nothing was read or written. */
export class PostgresStoreError extends IntentguardError {
  static override readonly marker = 'intentguard.error.PostgresStoreError';
  static readonly errorName = 'IntentguardPostgresStoreError';
  override readonly name = PostgresStoreError.errorName;
  override readonly code: PostgresStoreErrorCode;

  constructor(code: PostgresStoreErrorCode, message: string) {
    super({ code, message });
    this.code = code;
  }
}

/** Checks the URL before the driver sees it: a clear error instead of the driver's guess. */
function checkedUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PostgresStoreError(
      'bad-url',
      `${redactedUrl(url)} is not a URL: write postgres://USER:PASSWORD@HOST:PORT/DATABASE`,
    );
  }
  if (!/^postgres(?:ql)?:$/i.test(parsed.protocol))
    throw new PostgresStoreError(
      'bad-url',
      `${redactedUrl(url)} is not a PostgreSQL URL (postgres:// or postgresql://)`,
    );
  const socket = parsed.searchParams.get('host');
  if (parsed.hostname === '' && (socket === null || socket === ''))
    throw new PostgresStoreError(
      'bad-url',
      `${redactedUrl(url)} names no host: write postgres://USER@HOST:PORT/DATABASE (or ?host=/socket/directory)`,
    );
  if (parsed.port !== '' && !(Number(parsed.port) >= 1 && Number(parsed.port) <= 65535))
    throw new PostgresStoreError('bad-url', `${redactedUrl(url)} has no valid port`);
  if (parsed.pathname.replace(/^\//, '') === '')
    throw new PostgresStoreError(
      'bad-url',
      `${redactedUrl(url)} names no database: write postgres://USER@HOST:PORT/DATABASE`,
    );
  return parsed;
}

export interface OpenPostgresOptions {
  /** The parts whose tables this database holds, migrated in this order. */
  readonly schemas: readonly StoreSchema[];
  /** Connections the pool may open (default 10). */
  readonly poolSize?: number;
  /** Where the pool reports a connection that failed while idle (default: ignored). */
  readonly log?: (line: string) => void;
  /** Open for reading only: nothing is migrated (`intentguard audit verify`). */
  readonly readonly?: boolean;
}

/** How long a connection, a statement or a lock may take before it is an error (ms). */
const connectTimeoutMs = 5_000;
const statementTimeoutMs = 15_000;

/** The advisory lock instances take to migrate one at a time (any fixed number). */
const migrationLock = 0x1e7e_9a2d;

/**
 * Opens a pool on the database at `url`, checks that it answers, and migrates it.
 * Errors say what is wrong without showing the password: `bad-url`, `unreachable`,
 * `newer-schema` (PostgresStoreError).
 */
export async function openPostgres(url: string, options: OpenPostgresOptions): Promise<Pool> {
  checkedUrl(url);
  const pool = new Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: connectTimeoutMs,
    // Client side as well: a database that stops answering fails the request in bounded time.
    query_timeout: statementTimeoutMs,
    statement_timeout: statementTimeoutMs,
    // A transaction left open by a stuck process must not hold a session's lock for ever.
    idle_in_transaction_session_timeout: statementTimeoutMs,
    keepAlive: true,
    application_name: 'intentguard',
  });
  // An idle connection that breaks (the server restarted) is replaced on next use; the
  // pool reports it here, and without a listener the process would exit.
  pool.on('error', (error) =>
    options.log?.(`a database connection failed: ${errorMessage(error)}`),
  );
  try {
    const client = await pool.connect().catch((error: unknown) => {
      throw new PostgresStoreError(
        'unreachable',
        `could not connect to ${redactedUrl(url)}: ${errorMessage(error)}`,
      );
    });
    try {
      if (options.readonly === true) await refuseNewer(client, options.schemas, redactedUrl(url));
      else await migrate(client, options.schemas, redactedUrl(url));
    } finally {
      client.release();
    }
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** The versions the database records per part; empty when it records none. */
async function recordedVersions(client: PoolClient): Promise<Map<string, number>> {
  const table = await client.query<{ name: string | null }>('SELECT to_regclass($1) AS name', [
    migrationsTable,
  ]);
  if (table.rows[0]?.name == null) return new Map();
  const rows = await client.query<{ part: string; version: number }>(
    `SELECT part, max(version) AS version FROM ${migrationsTable} GROUP BY part`,
  );
  return new Map(rows.rows.map((row) => [row.part, Number(row.version)]));
}

async function refuseNewer(
  client: PoolClient,
  schemas: readonly StoreSchema[],
  what: string,
): Promise<void> {
  const problem = newerSchemaProblem(await recordedVersions(client), schemas, what);
  if (problem !== undefined) throw new PostgresStoreError('newer-schema', problem);
}

/** Applies each part's migrations the database has not had, in one transaction, one instance at a time. */
async function migrate(
  client: PoolClient,
  schemas: readonly StoreSchema[],
  what: string,
): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [migrationLock]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${migrationsTable} (
      part TEXT NOT NULL,
      version INTEGER NOT NULL,
      applied_at TEXT NOT NULL,
      PRIMARY KEY (part, version)
    )`);
    const recorded = await recordedVersions(client);
    const problem = newerSchemaProblem(recorded, schemas, what);
    if (problem !== undefined) throw new PostgresStoreError('newer-schema', problem);
    const at = new Date().toISOString();
    for (const schema of schemas) {
      for (const step of pendingMigrations(schema, recorded.get(schema.name) ?? 0)) {
        await client.query(step.sql);
        await client.query(
          `INSERT INTO ${migrationsTable} (part, version, applied_at) VALUES ($1, $2, $3)`,
          [schema.name, step.version, at],
        );
      }
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Runs `work` in one transaction on a connection of the pool: committed when it
 * resolves, rolled back when it throws. A connection that failed is not given back to
 * the pool (the next request opens a new one). `snapshot`: a read-only transaction
 * whose statements all see one snapshot (REPEATABLE READ), for reads that must agree
 * with each other while other instances write.
 */
export async function inTransaction<T>(
  pool: Pool,
  work: (client: PoolClient) => Promise<T>,
  options: { readonly snapshot?: boolean } = {},
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(
      options.snapshot === true ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN',
    );
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (failed) {
      broken = failed instanceof Error ? failed : new Error(errorMessage(failed));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}
