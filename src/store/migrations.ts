/**
 * Numbered migrations, one design for both backends (SQLite, PostgreSQL): each part of
 * a database (`audit`, `service`, …) is built by numbered steps, each applied once, in
 * order, in one transaction, and recorded in `intentguard_migrations (part, version,
 * applied_at)`. A database that records a later step than this version knows was
 * written by a newer intentguard and is refused instead of being read or written with a
 * schema this version does not know.
 */

/** One numbered step of a part's schema: SQL run once, in order, in one transaction. */
export interface Migration {
  readonly version: number;
  readonly sql: string;
}

/**
 * The tables of one part of a database, as the migrations that build them: version n
 * is applied to a database at version n − 1. Several parts may share a database; each
 * keeps its own version.
 */
export interface StoreSchema {
  readonly name: string;
  readonly migrations: readonly Migration[];
}

/** The table recording which migrations of which part a database has had. */
export const migrationsTable = 'intentguard_migrations';

/** The latest version of a part this intentguard knows. */
export function latestVersion(schema: StoreSchema): number {
  return schema.migrations.reduce((max, migration) => Math.max(max, migration.version), 0);
}

/**
 * Why the database is refused: it records a later migration of one of `schemas` than
 * this version knows. Undefined when it may be opened.
 */
export function newerSchemaProblem(
  recorded: ReadonlyMap<string, number>,
  schemas: readonly StoreSchema[],
  what: string,
): string | undefined {
  for (const schema of schemas) {
    const version = recorded.get(schema.name) ?? 0;
    if (version > latestVersion(schema))
      return `${what} was written by a newer intentguard (${schema.name} schema ${version}; this version knows up to ${latestVersion(schema)}): it is not opened.`;
  }
  return undefined;
}

/** The steps of `schema` a database at version `from` has not had, in order. */
export function pendingMigrations(schema: StoreSchema, from: number): Migration[] {
  return [...schema.migrations]
    .sort((a, b) => a.version - b.version)
    .filter((step) => step.version > from);
}
