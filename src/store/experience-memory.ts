import { IntentguardError } from '../language/index.js';
import { ftsQuery } from './fts-query.js';
import { defaultMemoryLimits, type MemoryLimits } from './limits.js';
import { openSqlite, type SqliteDatabase, type SqliteSchema, SqliteSchemaError } from './sqlite.js';

export type MemoryOutcome = 'pending' | 'success' | 'failure';

export const memoryOutcomes: readonly MemoryOutcome[] = ['pending', 'success', 'failure'];

/** A spec remembered for an instruction on a schema. */
export interface MemoryEntry {
  readonly id: number;
  readonly instruction: string;
  readonly schemaId: string;
  readonly spec: string;
  readonly outcome: MemoryOutcome;
  readonly model?: string;
  readonly note?: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface NewMemoryEntry {
  readonly instruction: string;
  readonly schemaId: string;
  /** The spec text; callers store only specs that checked against the schema. */
  readonly spec: string;
  /** Default `pending`: the task has not been judged yet. */
  readonly outcome?: MemoryOutcome;
  readonly model?: string;
  readonly note?: string;
}

export interface MemorySearch {
  readonly schemaId?: string;
  readonly outcome?: MemoryOutcome;
  readonly limit?: number;
}

export interface ExperienceMemoryOptions {
  readonly limits?: Partial<MemoryLimits>;
  readonly readonly?: boolean;
  /** The clock for timestamps (tests). */
  readonly now?: () => Date;
}

/** Why a memory operation was refused. */
export type MemoryErrorCode =
  /** A field is longer than its limit (`MemoryLimits`). */
  | 'too-long'
  /** The instruction, spec or schema id is empty. */
  | 'empty-field'
  /** An outcome other than pending, success or failure. */
  | 'unknown-outcome'
  /** The file was written by a newer intentguard (a later schema version). */
  | 'newer-schema'
  /** An entry just written could not be read back. */
  | 'read-back-failed';

/** A memory operation refused for its input (too long, unknown outcome); `code` says which. */
export class MemoryError extends IntentguardError {
  static override readonly marker = 'intentguard.error.MemoryError';
  static readonly errorName = 'IntentguardMemoryError';
  override readonly name = MemoryError.errorName;
  override readonly code: MemoryErrorCode;

  constructor(code: MemoryErrorCode, message: string) {
    super({ code, message });
    this.code = code;
  }
}

interface EntryRow {
  id: number;
  instruction: string;
  schema_id: string;
  spec: string;
  outcome: MemoryOutcome;
  model: string | null;
  note: string | null;
  created_at: string;
  updated_at: string;
}

/**
 * The version files written before migrations were recorded keep in `meta`; a file
 * whose `meta` names a later one is refused as well.
 */
const legacySchemaVersion = 1;

/** The memory's tables: migration 1 is the schema files were written with before. */
export const memorySchema: SqliteSchema = {
  name: 'memory',
  migrations: [
    {
      version: 1,
      sql: `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS experiences (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  instruction TEXT NOT NULL,
  schema_id TEXT NOT NULL,
  spec TEXT NOT NULL,
  outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'success', 'failure')),
  model TEXT,
  note TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS experiences_by_schema ON experiences (schema_id, outcome);
CREATE VIRTUAL TABLE IF NOT EXISTS experiences_fts USING fts5(
  instruction, content = 'experiences', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS experiences_after_insert AFTER INSERT ON experiences BEGIN
  INSERT INTO experiences_fts (rowid, instruction) VALUES (new.id, new.instruction);
END;
CREATE TRIGGER IF NOT EXISTS experiences_after_delete AFTER DELETE ON experiences BEGIN
  INSERT INTO experiences_fts (experiences_fts, rowid, instruction) VALUES ('delete', old.id, old.instruction);
END;
CREATE TABLE IF NOT EXISTS embeddings (
  model TEXT NOT NULL,
  text TEXT NOT NULL,
  vector BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (model, text)
);
CREATE INDEX IF NOT EXISTS embeddings_by_age ON embeddings (created_at);
INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '1');
`,
    },
  ],
};

function refuseLegacyNewer(database: SqliteDatabase): void {
  const version = database.prepare('SELECT value FROM meta WHERE key = ?').get('schema_version') as
    | { value: string }
    | undefined;
  if (version !== undefined && Number(version.value) > legacySchemaVersion) {
    throw new MemoryError(
      'newer-schema',
      `the memory file was written by a newer intentguard (schema ${version.value}).`,
    );
  }
}

function toEntry(row: EntryRow): MemoryEntry {
  return {
    id: row.id,
    instruction: row.instruction,
    schemaId: row.schema_id,
    spec: row.spec,
    outcome: row.outcome,
    ...(row.model !== null ? { model: row.model } : {}),
    ...(row.note !== null ? { note: row.note } : {}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Experience memory in one SQLite file (better-sqlite3): specs with the instruction
 * and schema they were made for and whether the task then succeeded, found again by
 * full-text search (FTS5, BM25) over instructions; plus a cache of embeddings. Every
 * query is parameterized, every size bounded (`MemoryLimits`). It serves the
 * formalizer as an `ExperienceSource` (successful specs prime the prompt) and an
 * `EmbeddingCache`.
 *
 * @example
 * const memory = ExperienceMemory.open('memory.db');
 * const entry = memory.record({ instruction, schemaId: schema.id, spec: text });
 * memory.setOutcome(entry.id, 'success');
 * memory.search('delete test tasks', { schemaId: schema.id, outcome: 'success', limit: 3 });
 */
export class ExperienceMemory {
  readonly #database: SqliteDatabase;
  readonly #limits: MemoryLimits;
  readonly #now: () => Date;

  private constructor(database: SqliteDatabase, options: ExperienceMemoryOptions) {
    this.#database = database;
    this.#limits = Object.freeze({ ...defaultMemoryLimits, ...options.limits });
    this.#now = options.now ?? (() => new Date());
  }

  /** Opens (creating if needed) the memory file at `path`; `:memory:` for a temporary one. */
  static open(path: string, options: ExperienceMemoryOptions = {}): ExperienceMemory {
    let database: SqliteDatabase;
    try {
      database = openSqlite(path, {
        schemas: [memorySchema],
        readonly: options.readonly === true,
        what: 'the memory file',
      });
    } catch (error) {
      if (SqliteSchemaError.isInstance(error)) throw new MemoryError('newer-schema', error.message);
      throw error;
    }
    try {
      if (options.readonly !== true) refuseLegacyNewer(database);
    } catch (error) {
      database.close();
      throw error;
    }
    return new ExperienceMemory(database, options);
  }

  get limits(): MemoryLimits {
    return this.#limits;
  }

  close(): void {
    if (this.#database.open) this.#database.close();
  }

  #check(what: string, value: string | undefined, limit: number): void {
    if (value !== undefined && value.length > limit) {
      throw new MemoryError('too-long', `the ${what} is longer than ${limit} characters.`);
    }
  }

  #checkOutcome(outcome: string): asserts outcome is MemoryOutcome {
    if (!(memoryOutcomes as readonly string[]).includes(outcome)) {
      throw new MemoryError(
        'unknown-outcome',
        `'${outcome}' is not an outcome; use ${memoryOutcomes.join(', ')}.`,
      );
    }
  }

  /** Stores an entry and returns it; the oldest entries go when the memory is full. */
  record(input: NewMemoryEntry): MemoryEntry {
    const limits = this.#limits;
    if (input.instruction.trim() === '')
      throw new MemoryError('empty-field', 'the instruction is empty.');
    if (input.spec.trim() === '') throw new MemoryError('empty-field', 'the spec is empty.');
    if (input.schemaId.trim() === '')
      throw new MemoryError('empty-field', 'the schema id is empty.');
    this.#check('instruction', input.instruction, limits.maxInstructionLength);
    this.#check('spec', input.spec, limits.maxSpecLength);
    this.#check('schema id', input.schemaId, limits.maxSchemaIdLength);
    this.#check('model', input.model, limits.maxModelLength);
    this.#check('note', input.note, limits.maxNoteLength);
    const outcome = input.outcome ?? 'pending';
    this.#checkOutcome(outcome);
    const now = this.#now().toISOString();
    const insert = this.#database.transaction(() => {
      const result = this.#database
        .prepare(
          `INSERT INTO experiences (instruction, schema_id, spec, outcome, model, note, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          input.instruction,
          input.schemaId,
          input.spec,
          outcome,
          input.model ?? null,
          input.note ?? null,
          now,
          now,
        );
      const count = (
        this.#database.prepare('SELECT count(*) AS count FROM experiences').get() as {
          count: number;
        }
      ).count;
      const excess = count - limits.maxEntries;
      if (excess > 0) {
        this.#database
          .prepare(
            `DELETE FROM experiences WHERE id IN (
               SELECT id FROM experiences WHERE id != ? ORDER BY (outcome = 'pending') DESC, id ASC LIMIT ?)`,
          )
          .run(result.lastInsertRowid, excess);
      }
      return Number(result.lastInsertRowid);
    });
    const id = insert();
    const entry = this.get(id);
    if (!entry) throw new MemoryError('read-back-failed', 'the entry could not be read back.');
    return entry;
  }

  /** Records what became of the task; returns the updated entry, or undefined for an unknown id. */
  setOutcome(id: number, outcome: MemoryOutcome, note?: string): MemoryEntry | undefined {
    this.#checkOutcome(outcome);
    this.#check('note', note, this.#limits.maxNoteLength);
    const result = this.#database
      .prepare(
        'UPDATE experiences SET outcome = ?, note = coalesce(?, note), updated_at = ? WHERE id = ?',
      )
      .run(outcome, note ?? null, this.#now().toISOString(), id);
    return result.changes === 0 ? undefined : this.get(id);
  }

  get(id: number): MemoryEntry | undefined {
    if (!Number.isSafeInteger(id)) return undefined;
    const row = this.#database.prepare('SELECT * FROM experiences WHERE id = ?').get(id) as
      | EntryRow
      | undefined;
    return row ? toEntry(row) : undefined;
  }

  delete(id: number): boolean {
    if (!Number.isSafeInteger(id)) return false;
    return this.#database.prepare('DELETE FROM experiences WHERE id = ?').run(id).changes > 0;
  }

  count(): number {
    return (
      this.#database.prepare('SELECT count(*) AS count FROM experiences').get() as { count: number }
    ).count;
  }

  #limit(limit: number | undefined, fallback: number): number {
    const value = limit === undefined || !Number.isFinite(limit) ? fallback : Math.floor(limit);
    return Math.max(0, Math.min(value, this.#limits.maxResults));
  }

  /** Entries, newest first, optionally of one schema and outcome. */
  list(options: MemorySearch = {}): MemoryEntry[] {
    const rows = this.#database
      .prepare(
        `SELECT * FROM experiences
         WHERE (@schemaId IS NULL OR schema_id = @schemaId) AND (@outcome IS NULL OR outcome = @outcome)
         ORDER BY id DESC LIMIT @limit`,
      )
      .all({
        schemaId: options.schemaId ?? null,
        outcome: options.outcome ?? null,
        limit: this.#limit(options.limit, 20),
      }) as EntryRow[];
    return rows.map(toEntry);
  }

  /**
   * Entries whose instructions share words with `instruction`, best BM25 match first
   * (newer first among equals). The instruction is never used as FTS5 syntax.
   */
  search(instruction: string, options: MemorySearch = {}): MemoryEntry[] {
    const query = ftsQuery(
      instruction.slice(0, this.#limits.maxInstructionLength),
      this.#limits.maxQueryTerms,
    );
    if (query === undefined) return [];
    const rows = this.#database
      .prepare(
        `SELECT experiences.* FROM experiences_fts
         JOIN experiences ON experiences.id = experiences_fts.rowid
         WHERE experiences_fts MATCH @query
           AND (@schemaId IS NULL OR experiences.schema_id = @schemaId)
           AND (@outcome IS NULL OR experiences.outcome = @outcome)
         ORDER BY experiences_fts.rank, experiences.id DESC LIMIT @limit`,
      )
      .all({
        query,
        schemaId: options.schemaId ?? null,
        outcome: options.outcome ?? null,
        limit: this.#limit(options.limit, 5),
      }) as EntryRow[];
    return rows.map(toEntry);
  }

  /** Cached embeddings of `texts` under `model` (texts not cached are absent). */
  getEmbeddings(model: string, texts: readonly string[]): Map<string, readonly number[]> {
    const found = new Map<string, readonly number[]>();
    const statement = this.#database.prepare(
      'SELECT vector FROM embeddings WHERE model = ? AND text = ?',
    );
    for (const text of texts) {
      if (text.length > this.#limits.maxEmbeddingTextLength || found.has(text)) continue;
      const row = statement.get(model, text) as { vector: Buffer } | undefined;
      if (!row || row.vector.byteLength % 4 !== 0) continue;
      const vector = new Float32Array(
        row.vector.buffer,
        row.vector.byteOffset,
        row.vector.byteLength / 4,
      );
      found.set(text, Array.from(vector));
    }
    return found;
  }

  /** Stores embeddings; oversized texts and vectors are skipped, the oldest rows go when full. */
  putEmbeddings(model: string, embeddings: ReadonlyMap<string, readonly number[]>): void {
    if (model.length > this.#limits.maxModelLength) return;
    const limits = this.#limits;
    const insert = this.#database.prepare(
      'INSERT OR REPLACE INTO embeddings (model, text, vector, created_at) VALUES (?, ?, ?, ?)',
    );
    const store = this.#database.transaction(() => {
      const now = this.#now().getTime();
      for (const [text, vector] of embeddings) {
        if (
          text.length > limits.maxEmbeddingTextLength ||
          vector.length === 0 ||
          vector.length > limits.maxEmbeddingDimensions
        )
          continue;
        if (!vector.every((value) => Number.isFinite(value))) continue;
        insert.run(model, text, Buffer.from(new Float32Array(vector).buffer), now);
      }
      const count = (
        this.#database.prepare('SELECT count(*) AS count FROM embeddings').get() as {
          count: number;
        }
      ).count;
      if (count > limits.maxEmbeddings) {
        this.#database
          .prepare(
            'DELETE FROM embeddings WHERE rowid IN (SELECT rowid FROM embeddings ORDER BY created_at ASC, rowid ASC LIMIT ?)',
          )
          .run(count - limits.maxEmbeddings);
      }
    });
    store();
  }
}
