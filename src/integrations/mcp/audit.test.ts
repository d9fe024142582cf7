import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GuardEvent } from '../../guard/index.js';
import { verifyAuditFile } from '../../store/audit-file.js';
import { openSqliteAudit } from './audit.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'intentguard-mcp-audit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const result = (id: string, ok: boolean): GuardEvent =>
  ({ kind: 'result', id, ok, rolledBack: !ok }) as GuardEvent;

const decision = (id: string): GuardEvent =>
  ({
    kind: 'decision',
    call: { id, name: 'read_text_file', args: { path: '/notes.txt' } },
    decision: { id, action: 'run', verdict: { decision: 'allow' }, message: 'allowed' },
  }) as unknown as GuardEvent;

describe('the proxy audit file', () => {
  it('keeps one chain when several proxies share the file, and shows a deleted run', () => {
    const path = join(dir, 'audit.db');
    const first = openSqliteAudit(path);
    const second = openSqliteAudit(path);
    first.start({ spec: 'A() -> Done', upstream: 'one' });
    second.start({ spec: 'B() -> Done', upstream: 'two' });
    for (let i = 0; i < 5; i++) {
      first.record(result(`a${i}`, true));
      second.record(result(`b${i}`, i % 2 === 0));
    }
    first.close();
    second.close();
    expect(verifyAuditFile(path)).toMatchObject({ ok: true, entries: 12 });
    const database = new Database(path);
    const sessions = database.prepare('SELECT session FROM audit ORDER BY seq').all() as {
      session: string;
    }[];
    expect(new Set(sessions.map((row) => row.session))).toEqual(new Set(['run-1', 'run-2']));
    // Removing one proxy's records (to hide what it did) breaks the chain.
    database.prepare("DELETE FROM audit WHERE session = 'run-2'").run();
    database.close();
    expect(verifyAuditFile(path)).toMatchObject({ ok: false });
  });

  it("commits a decision before record returns, and a call's result and observation together just after", async () => {
    const path = join(dir, 'audit.db');
    const audit = openSqliteAudit(path);
    audit.start({ spec: 'A() -> Done', upstream: 'one' });
    const reader = new Database(path, { readonly: true });
    const kinds = () =>
      (
        reader.prepare('SELECT kind, call_id FROM events ORDER BY seq').all() as {
          kind: string;
          call_id: string | null;
        }[]
      ).map((row) => `${row.kind}:${row.call_id}`);
    try {
      audit.record(decision('c1'));
      // Another connection sees it: committed before the call could go upstream.
      expect(kinds()).toEqual(['decision:c1']);
      audit.record(result('c1', true));
      audit.record({ kind: 'observation', ok: true });
      expect(kinds()).toEqual(['decision:c1']);
      await new Promise((resolve) => setImmediate(resolve));
      expect(kinds()).toEqual(['decision:c1', 'result:c1', 'observation:null']);

      // A decision that comes first commits what waits before itself, in order.
      audit.record(result('c2', false));
      audit.record(decision('c3'));
      expect(kinds().slice(3)).toEqual(['result:c2', 'decision:c3']);
      // Closing commits what waits.
      audit.record(result('c3', true));
      audit.close();
      expect(kinds().slice(5)).toEqual(['result:c3']);
      expect(verifyAuditFile(path)).toMatchObject({ ok: true, entries: 7 });
    } finally {
      reader.close();
    }
  });
});
