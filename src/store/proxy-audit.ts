import { createHash } from 'node:crypto';
import { AuditChain, auditSchema } from './audit-chain.js';
import { openSqlite, type SqliteSchema } from './sqlite.js';

/** One row of the proxy's `events` table, before it is written: what the guard decided or saw. */
export interface ProxyAuditEvent {
  readonly kind: string;
  readonly callId: string | null;
  readonly tool: string | null;
  /** The call's arguments: only their SHA-256 digest is stored (they may carry secrets). */
  readonly args: unknown;
  readonly action: string | null;
  readonly decision: string | null;
  readonly approved: boolean | null;
  readonly ok: boolean | null;
  readonly method: string | null;
  readonly message: string | null;
}

/** A proxy start: the spec it guards with and the upstream it fronts. */
export interface ProxyRun {
  readonly spec: string;
  readonly upstream: string;
  readonly instruction?: string;
  /** The operator's policy text the run is decided under as well (`--policy`). */
  readonly policy?: string;
}

/** The proxy's tables; the audit chain's are `auditSchema`, in the same file. */
export const proxyAuditSchema: SqliteSchema = {
  name: 'proxy-audit',
  migrations: [
    {
      version: 1,
      sql: `
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY,
  started_at TEXT NOT NULL,
  upstream TEXT NOT NULL,
  instruction TEXT,
  spec TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  at TEXT NOT NULL,
  kind TEXT NOT NULL,
  call_id TEXT,
  tool TEXT,
  args_sha256 TEXT,
  action TEXT,
  decision TEXT,
  approved INTEGER,
  ok INTEGER,
  method TEXT,
  message TEXT
);`,
    },
  ],
};

function digest(value: unknown): string | null {
  try {
    const text = JSON.stringify(value ?? null);
    return createHash('sha256').update(text).digest('hex');
  } catch {
    return null;
  }
}

const flag = (value: boolean | null): number | null => (value === null ? null : value ? 1 : 0);

/**
 * The audit file of `intentguard mcp-proxy --audit` (WAL): `runs` (the spec of each
 * proxy start) and `events` (every decision with the tool, the action, the verdict and
 * the feedback), to query; and the same records in the hash-chained `audit` table,
 * written in the same transaction, which `intentguard audit verify` checks for edits,
 * deletions and reordering. Arguments are stored as a SHA-256 digest only.
 */
export class ProxyAuditFile {
  readonly #database;
  readonly #insertRun;
  readonly #insertEvent;
  readonly #chain: AuditChain;
  #runId = 0;

  constructor(path: string) {
    const database = openSqlite(path, {
      schemas: [proxyAuditSchema, auditSchema],
      what: `the audit file '${path}'`,
    });
    this.#database = database;
    this.#insertRun = database.prepare(
      'INSERT INTO runs (started_at, upstream, instruction, spec) VALUES (?, ?, ?, ?)',
    );
    this.#insertEvent = database.prepare(`INSERT INTO events
    (run_id, at, kind, call_id, tool, args_sha256, action, decision, approved, ok, method, message)
    VALUES (@run, @at, @kind, @callId, @tool, @args, @action, @decision, @approved, @ok, @method, @message)`);
    this.#chain = new AuditChain(database);
  }

  // Immediate: several proxies may share the file, and each append reads the chain's head.
  #transaction(write: () => void): void {
    this.#database.transaction(write).immediate();
  }

  /** Records a new proxy run and returns its id; later events belong to it. */
  start(run: ProxyRun): number {
    const at = new Date().toISOString();
    this.#transaction(() => {
      const info = this.#insertRun.run(at, run.upstream, run.instruction ?? null, run.spec);
      this.#runId = Number(info.lastInsertRowid);
      // The policy is in the chained record only (no column): which rules decided this run.
      const body = {
        upstream: run.upstream,
        instruction: run.instruction ?? null,
        spec: run.spec,
        ...(run.policy !== undefined ? { policy: run.policy } : {}),
      };
      this.#chain.append([{ session: `run-${this.#runId}`, kind: 'run', body }], at);
    });
    return this.#runId;
  }

  /** Records one event in its own transaction. */
  record(event: ProxyAuditEvent): void {
    this.recordAll([event]);
  }

  /**
   * Records events in order, in one transaction: committed together or not at all, and
   * one commit instead of one each (the proxy groups a call's result and observation).
   */
  recordAll(events: readonly ProxyAuditEvent[]): void {
    if (events.length === 0) return;
    const run = this.#runId;
    const rows = events.map((event) => ({
      run,
      at: new Date().toISOString(),
      kind: event.kind,
      callId: event.callId,
      tool: event.tool,
      args: event.kind === 'decision' ? digest(event.args) : null,
      action: event.action,
      decision: event.decision,
      approved: flag(event.approved),
      ok: flag(event.ok),
      method: event.method,
      message: event.message,
    }));
    this.#transaction(() => {
      for (const row of rows) {
        const { run: _run, at, kind, ...body } = row;
        this.#insertEvent.run(row);
        this.#chain.append([{ session: `run-${run}`, kind, body }], at);
      }
    });
  }

  close(): void {
    this.#database.close();
  }
}
