import { auditRowOf } from '../../guard/adapter-kit/audit-record.js';
import type { GuardEvent } from '../../guard/index.js';
import { ProxyAuditFile } from '../../store/proxy-audit.js';

/** Where the proxy records what it decided: one row per decision, approval, result and finish. */
export interface McpAudit {
  /** A new proxy run: the spec it guards with and the upstream it fronts; returns the run id. */
  start(run: { spec: string; upstream: string; instruction?: string }): number;
  record(event: GuardEvent, extra?: { method?: string }): void;
  close(): void;
}

/**
 * The proxy's audit log in one SQLite file (`ProxyAuditFile`, src/store/proxy-audit.ts):
 * each guard event as a queryable row and as an entry of the hash-chained log.
 */
export function openSqliteAudit(path: string): McpAudit {
  const file = new ProxyAuditFile(path);
  return {
    start: (run) => file.start(run),
    record: (event, extra = {}) => file.record(auditRowOf(event, extra.method)),
    close: () => file.close(),
  };
}
