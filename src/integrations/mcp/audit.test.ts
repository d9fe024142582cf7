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
});
