import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AuditEntry, entryHash, genesisHash } from './audit-chain.js';
import { AuditFileError, verifyAuditFile } from './audit-file.js';
import { ExperienceMemory, MemoryError } from './experience-memory.js';
import { emptyJournal, extendAnchor, sessionRecordFields } from './journal-anchor.js';
import { ProxyAuditFile } from './proxy-audit.js';
import type { StoredSession } from './service-store.js';
import { type Migration, openSqlite, SqliteSchemaError } from './sqlite.js';
import { SqliteServiceStore } from './sqlite-service-store.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-sqlite-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const migrationRows = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare('SELECT part, version FROM intentguard_migrations ORDER BY part, version')
      .all();
  } finally {
    db.close();
  }
};

/** Makes the file claim a later migration of `part` than this version has. */
function fromTheFuture(path: string, part: string): void {
  const db = new Database(path);
  db.prepare(
    "INSERT INTO intentguard_migrations (part, version, applied_at) VALUES (?, 99, '2030-01-01')",
  ).run(part);
  db.close();
}

describe('openSqlite', () => {
  const first: Migration = { version: 1, sql: 'CREATE TABLE notes (text TEXT NOT NULL);' };
  const second: Migration = { version: 2, sql: "INSERT INTO notes (text) VALUES ('from 2');" };

  it('applies each numbered migration once, in order, and records it in the file', () => {
    const path = join(dir, 'notes.db');
    // Listed out of order: applied by number.
    let db = openSqlite(path, { schemas: [{ name: 'notes', migrations: [second, first] }] });
    db.close();
    db = openSqlite(path, { schemas: [{ name: 'notes', migrations: [first, second] }] });
    expect(db.prepare('SELECT text FROM notes').pluck().all()).toEqual(['from 2']);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    db.close();
    expect(migrationRows(path)).toEqual([
      { part: 'notes', version: 1 },
      { part: 'notes', version: 2 },
    ]);
  });

  it('applies to an older file only the migrations it has not had', () => {
    const path = join(dir, 'notes.db');
    openSqlite(path, { schemas: [{ name: 'notes', migrations: [first] }] }).close();
    const db = openSqlite(path, { schemas: [{ name: 'notes', migrations: [first, second] }] });
    expect(db.prepare('SELECT count(*) FROM notes').pluck().get()).toBe(1);
    db.close();
  });

  it('refuses a file written by a newer version, and writes nothing to it', () => {
    const path = join(dir, 'notes.db');
    openSqlite(path, { schemas: [{ name: 'notes', migrations: [first, second] }] }).close();
    const before = readFileSync(path);
    const open = (readonly: boolean) => () =>
      openSqlite(path, {
        schemas: [{ name: 'notes', migrations: [first] }],
        readonly,
        what: 'the notes file',
      });
    for (const readonly of [false, true]) {
      expect(open(readonly)).toThrow(SqliteSchemaError);
      expect(open(readonly)).toThrow(
        'the notes file was written by a newer intentguard (notes schema 2; this version knows up to 1): it is not opened.',
      );
    }
    try {
      open(false)();
    } catch (error) {
      expect(SqliteSchemaError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'newer-schema' });
    }
    expect(readFileSync(path).equals(before)).toBe(true);
  });

  it('records nothing of a migration that fails', () => {
    const path = join(dir, 'notes.db');
    const broken: Migration = { version: 2, sql: 'INSERT INTO missing VALUES (1);' };
    expect(() =>
      openSqlite(path, { schemas: [{ name: 'notes', migrations: [first, broken] }] }),
    ).toThrow(/no such table/);
    openSqlite(path, { schemas: [{ name: 'other', migrations: [] }] }).close();
    expect(migrationRows(path)).toEqual([]);
  });
});

// The CREATE statements the files were written with before migrations were recorded.
const todaysAuditSql = `
CREATE TABLE IF NOT EXISTS audit (
  seq INTEGER PRIMARY KEY, at TEXT NOT NULL, session TEXT NOT NULL, kind TEXT NOT NULL,
  body TEXT NOT NULL, prev TEXT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS audit_head (
  one INTEGER PRIMARY KEY CHECK (one = 1), seq INTEGER NOT NULL, hash TEXT NOT NULL);`;

const todaysServiceSql = `
CREATE TABLE IF NOT EXISTS sessions (
  id TEXT PRIMARY KEY, token_hash TEXT NOT NULL, spec_text TEXT, schema_kind TEXT NOT NULL,
  schema_json TEXT NOT NULL, options_json TEXT NOT NULL, now TEXT NOT NULL,
  time_zone TEXT NOT NULL, created_at TEXT NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS journal (
  session TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL,
  PRIMARY KEY (session, seq)) WITHOUT ROWID;`;

const todaysProxySql = `
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY, started_at TEXT NOT NULL, upstream TEXT NOT NULL,
  instruction TEXT, spec TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id), at TEXT NOT NULL,
  kind TEXT NOT NULL, call_id TEXT, tool TEXT, args_sha256 TEXT, action TEXT, decision TEXT,
  approved INTEGER, ok INTEGER, method TEXT, message TEXT);`;

const todaysMemorySql = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS experiences (
  id INTEGER PRIMARY KEY AUTOINCREMENT, instruction TEXT NOT NULL, schema_id TEXT NOT NULL,
  spec TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'success', 'failure')),
  model TEXT, note TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS experiences_by_schema ON experiences (schema_id, outcome);
CREATE VIRTUAL TABLE IF NOT EXISTS experiences_fts USING fts5(
  instruction, content = 'experiences', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS experiences_after_insert AFTER INSERT ON experiences BEGIN
  INSERT INTO experiences_fts (rowid, instruction) VALUES (new.id, new.instruction);
END;
CREATE TRIGGER IF NOT EXISTS experiences_after_delete AFTER DELETE ON experiences BEGIN
  INSERT INTO experiences_fts (experiences_fts, rowid, instruction) VALUES ('delete', old.id, old.instruction);
END;
CREATE TABLE IF NOT EXISTS embeddings (
  model TEXT NOT NULL, text TEXT NOT NULL, vector BLOB NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (model, text));
CREATE INDEX IF NOT EXISTS embeddings_by_age ON embeddings (created_at);
INSERT INTO meta (key, value) VALUES ('schema_version', '1');`;

/** Appends chained entries the way today's version wrote them. */
function appendChain(
  db: Database.Database,
  records: readonly { session: string; kind: string; body: unknown }[],
): void {
  const head = (db.prepare('SELECT seq, hash FROM audit_head').get() as
    | { seq: number; hash: string }
    | undefined) ?? { seq: 0, hash: genesisHash };
  let { seq, hash } = head;
  for (const record of records) {
    const base = {
      seq: seq + 1,
      at: '2026-01-01T00:00:00.000Z',
      session: record.session,
      kind: record.kind,
      body: JSON.stringify(record.body),
      prev: hash,
    };
    const entry: AuditEntry = { ...base, hash: entryHash(base) };
    db.prepare('INSERT INTO audit VALUES (@seq, @at, @session, @kind, @body, @prev, @hash)').run(
      entry,
    );
    ({ seq, hash } = entry);
  }
  db.prepare('INSERT OR REPLACE INTO audit_head (one, seq, hash) VALUES (1, ?, ?)').run(seq, hash);
}

const session: StoredSession = {
  id: 's-1',
  tokenHash: 'a'.repeat(64),
  specText: 'A() -> Done\n',
  schemaKind: 'tools',
  schemaJson: '[]',
  optionsJson: '{}',
  now: '2026-01-01T00:00:00.000Z',
  timeZone: 'UTC',
  createdAt: '2026-01-01T00:00:00.000Z',
  finished: false,
};

describe('files written before migrations were recorded', () => {
  it('a service file opens, migrates, keeps its sessions, journals and chain, and extends the chain', async () => {
    const path = join(dir, 'service.db');
    const raw = new Database(path);
    raw.exec(todaysServiceSql + todaysAuditSql);
    raw
      .prepare(
        `INSERT INTO sessions VALUES (@id, @tokenHash, @specText, @schemaKind, @schemaJson, @optionsJson, @now, @timeZone, @createdAt, 0)`,
      )
      .run({ ...session, finished: undefined });
    const events = [
      JSON.stringify({ propose: { A: {} }, id: 'c1', expect: { decision: 'allow' } }),
    ];
    raw.prepare('INSERT INTO journal VALUES (?, 0, ?)').run(session.id, events[0]);
    appendChain(raw, [
      { session: session.id, kind: 'session', body: sessionRecordFields(session) },
      {
        session: session.id,
        kind: 'decision',
        body: { action: 'run', journal: extendAnchor(emptyJournal, events) },
      },
    ]);
    raw.close();
    expect(verifyAuditFile(path)).toMatchObject({ ok: true, entries: 2 });

    const store = new SqliteServiceStore(path);
    expect(await store.restorable()).toEqual([session]);
    expect((await store.journal(session)).events).toEqual([JSON.parse(events[0] ?? '')]);
    await store.createSession({ ...session, id: 's-2' }, [
      { session: 's-2', kind: 'session', body: sessionRecordFields({ ...session, id: 's-2' }) },
    ]);
    await store.close();
    expect(migrationRows(path)).toEqual([
      { part: 'audit', version: 1 },
      { part: 'service', version: 1 },
    ]);
    expect(verifyAuditFile(path)).toMatchObject({ ok: true, entries: 3 });
  });

  it('a proxy audit file opens, migrates, keeps its runs and events, and extends the chain', () => {
    const path = join(dir, 'audit.db');
    const raw = new Database(path);
    raw.exec(todaysProxySql + todaysAuditSql);
    raw.prepare("INSERT INTO runs VALUES (1, '2026-01-01', 'upstream', NULL, 'A() -> Done')").run();
    raw.prepare("INSERT INTO events (run_id, at, kind) VALUES (1, '2026-01-01', 'result')").run();
    appendChain(raw, [{ session: 'run-1', kind: 'run', body: { spec: 'A() -> Done' } }]);
    raw.close();

    const file = new ProxyAuditFile(path);
    expect(file.start({ spec: 'B() -> Done', upstream: 'other' })).toBe(2);
    file.record({
      kind: 'result',
      callId: 'c1',
      tool: null,
      args: null,
      action: null,
      decision: null,
      approved: null,
      ok: true,
      method: null,
      message: null,
    });
    file.close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare('SELECT upstream FROM runs ORDER BY id').pluck().all()).toEqual([
      'upstream',
      'other',
    ]);
    expect(db.prepare('SELECT run_id, ok FROM events ORDER BY seq').all()).toEqual([
      { run_id: 1, ok: null },
      { run_id: 2, ok: 1 },
    ]);
    db.close();
    expect(migrationRows(path)).toEqual([
      { part: 'audit', version: 1 },
      { part: 'proxy-audit', version: 1 },
    ]);
    expect(verifyAuditFile(path)).toMatchObject({ ok: true, entries: 3 });
  });

  it('a memory file opens, migrates and keeps its entries, found by full-text search', () => {
    const path = join(dir, 'memory.db');
    const raw = new Database(path);
    raw.exec(todaysMemorySql);
    raw
      .prepare(
        "INSERT INTO experiences (instruction, schema_id, spec, outcome, created_at, updated_at) VALUES ('delete the test tasks', 'todo', 'A() -> Done', 'success', 'x', 'x')",
      )
      .run();
    raw.close();
    const memory = ExperienceMemory.open(path);
    expect(memory.search('test tasks').map((entry) => entry.spec)).toEqual(['A() -> Done']);
    memory.record({ instruction: 'archive tasks', schemaId: 'todo', spec: 'B() -> Done' });
    expect(memory.count()).toBe(2);
    memory.close();
    expect(migrationRows(path)).toEqual([{ part: 'memory', version: 1 }]);
  });
});

describe('a file written by a newer version is refused (fail closed)', () => {
  it('the service store', async () => {
    const path = join(dir, 'service.db');
    await new SqliteServiceStore(path).close();
    fromTheFuture(path, 'service');
    expect(() => new SqliteServiceStore(path)).toThrow(SqliteSchemaError);
    expect(() => new SqliteServiceStore(path)).toThrow(/newer intentguard \(service schema 99/);
  });

  it('the proxy audit file', () => {
    const path = join(dir, 'audit.db');
    new ProxyAuditFile(path).close();
    fromTheFuture(path, 'audit');
    expect(() => new ProxyAuditFile(path)).toThrow(/newer intentguard \(audit schema 99/);
    expect(() => verifyAuditFile(path)).toThrow(AuditFileError);
    expect(() => verifyAuditFile(path)).toThrow(/newer intentguard \(audit schema 99/);
  });

  it('the experience memory, read-only as well', () => {
    const path = join(dir, 'memory.db');
    ExperienceMemory.open(path).close();
    fromTheFuture(path, 'memory');
    for (const readonly of [false, true]) {
      try {
        ExperienceMemory.open(path, { readonly });
        expect.unreachable();
      } catch (error) {
        expect(MemoryError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ code: 'newer-schema' });
        expect((error as Error).message).toMatch(/^the memory file was written by a newer/);
      }
    }
  });
});
