import { isPostgresUrl } from '../../store/postgres-url.js';
import type { ServiceStore } from '../../store/service-store.js';
import { SqliteServiceStore } from '../../store/sqlite-service-store.js';

/**
 * The service's store for `--db`: a PostgreSQL database that several service
 * instances share for a `postgres://` or `postgresql://` URL, otherwise an SQLite file
 * (created if missing) for one process. Resolves once the store is open and migrated;
 * a bad URL or a database that cannot be reached is an error that says which.
 *
 * @example
 * const store = await openServiceStore('postgres://intentguard@db.internal/intentguard');
 * const { app } = createServiceApp({ store, tokens: [token] });
 */
export async function openServiceStore(
  db: string,
  log?: (line: string) => void,
): Promise<ServiceStore> {
  if (isPostgresUrl(db)) {
    // Loaded only for a database URL: `pg` is an optional package an SQLite service never needs.
    const { PostgresServiceStore } = await import('../../store/postgres-service-store.js');
    return PostgresServiceStore.open(db, log === undefined ? {} : { log });
  }
  return new SqliteServiceStore(db);
}
