import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import type { GuardEvent } from '../../guard/index.js';
import { AuditChain } from '../../store/audit-chain.js';

/** Where the proxy records what it decided: one row per decision, approval, result and finish. */
export interface McpAudit {
  /** A new proxy run: the spec it guards with and the upstream it fronts; returns the run id. */
  start(run: { spec: string; upstream: string; instruction?: string }): number;
  record(event: GuardEvent, extra?: { method?: string }): void;
  close(): void;
}

function digest(value: unknown): string | null {
  try {
    const text = JSON.stringify(value ?? null);
    return createHash('sha256').update(text).digest('hex');
  } catch {
    return null;
  }
}

/**
 * An audit log in one SQLite file (WAL): `runs` (the spec of each proxy start) and
 * `events` (every decision with the tool, the action, the verdict and the feedback), to
 * query; and the same records in the hash-chained `audit` table, written in the same
 * transaction, which `intentguard audit verify` checks for edits, deletions and
 * reordering. Arguments are stored as a SHA-256 digest only — they may carry secrets.
 */
export function openSqliteAudit(path: string): McpAudit {
  const database = new Database(path);
  database.pragma('journal_mode = WAL');
  database.pragma('synchronous = NORMAL');
  database.pragma('busy_timeout = 5000');
  database.exec(`
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
    );
  `);
  const insertRun = database.prepare(
    'INSERT INTO runs (started_at, upstream, instruction, spec) VALUES (?, ?, ?, ?)',
  );
  const insertEvent = database.prepare(`INSERT INTO events
    (run_id, at, kind, call_id, tool, args_sha256, action, decision, approved, ok, method, message)
    VALUES (@run, @at, @kind, @callId, @tool, @args, @action, @decision, @approved, @ok, @method, @message)`);
  const chain = new AuditChain(database);
  // Immediate: several proxies may share the file, and each append reads the chain's head.
  const transaction = (write: () => void) => database.transaction(write).immediate();
  let runId = 0;
  return {
    start(run) {
      const at = new Date().toISOString();
      transaction(() => {
        const info = insertRun.run(at, run.upstream, run.instruction ?? null, run.spec);
        runId = Number(info.lastInsertRowid);
        chain.append(
          [
            {
              session: `run-${runId}`,
              kind: 'run',
              body: {
                upstream: run.upstream,
                instruction: run.instruction ?? null,
                spec: run.spec,
              },
            },
          ],
          at,
        );
      });
      return runId;
    },
    record(event, extra = {}) {
      const row = {
        run: runId,
        at: new Date().toISOString(),
        kind: event.kind,
        callId: null as string | null,
        tool: null as string | null,
        args: null as string | null,
        action: null as string | null,
        decision: null as string | null,
        approved: null as number | null,
        ok: null as number | null,
        method: extra.method ?? null,
        message: null as string | null,
      };
      if (event.kind === 'decision') {
        row.callId = event.call.id;
        row.tool = event.call.name;
        row.args = digest(event.call.args);
      }
      if (event.kind === 'decision' || event.kind === 'approval' || event.kind === 'finish') {
        row.callId = event.decision.id;
        row.action = event.decision.action;
        row.decision = event.decision.verdict.decision;
        row.message = event.decision.action === 'run' ? null : event.decision.message;
      }
      if (event.kind === 'approval') row.approved = event.approved ? 1 : 0;
      if (event.kind === 'result') {
        row.callId = event.id;
        row.ok = event.ok ? 1 : 0;
      }
      if (event.kind === 'observation') row.ok = event.ok ? 1 : 0;
      const { run, at, kind, ...body } = row;
      transaction(() => {
        insertEvent.run(row);
        chain.append([{ session: `run-${run}`, kind, body }], at);
      });
    },
    close() {
      database.close();
    },
  };
}
