import { auditRowOf } from '../../guard/adapter-kit/audit-record.js';
import type { GuardEvent } from '../../guard/index.js';
import { type ProxyAuditEvent, ProxyAuditFile } from '../../store/proxy-audit.js';

/** Where the proxy records what it decided: one row per decision, approval, result and finish. */
export interface McpAudit {
  /** A new proxy run: the spec it guards with and the upstream it fronts; returns the run id. */
  start(run: { spec: string; upstream: string; instruction?: string; policy?: string }): number;
  /**
   * Records a guard event. A decision, an approval or a finish is committed before this
   * returns (before the call goes upstream); a result or an observation may be committed
   * a moment later, after the client has its answer. Throws when a commit fails.
   */
  record(event: GuardEvent, extra?: { method?: string }): void;
  /** Commits what is waiting, then closes the file. */
  close(): void;
}

/** Events that come after the upstream answered: they wait, so the answer does not. */
const afterTheCall = new Set<GuardEvent['kind']>(['result', 'observation']);

/**
 * The proxy's audit log in one SQLite file (`ProxyAuditFile`, src/store/proxy-audit.ts):
 * each guard event as a queryable row and as an entry of the hash-chained log.
 *
 * What a record guarantees: a call's decision (and a person's approval) is committed
 * before the call is forwarded, so nothing reaches the upstream that the file does not
 * show as decided. Its result and observation are committed together, in one transaction,
 * right after the answer is on its way to the client (the next turn of the event loop),
 * and in any case before the next decision and before the file is closed. A proxy killed
 * in that moment leaves the decision without its result, as one killed while the upstream
 * runs does. Per call this is one commit before the answer instead of three.
 *
 * @example
 * const proxy = await startMcpProxy({ upstream, spec, audit: openSqliteAudit('audit.db') });
 */
export function openSqliteAudit(path: string): McpAudit {
  const file = new ProxyAuditFile(path);
  let waiting: ProxyAuditEvent[] = [];
  let scheduled = false;
  // Events leave the queue only once committed: a failed commit is retried with the next.
  const commit = (): void => {
    if (waiting.length === 0) return;
    file.recordAll(waiting);
    waiting = [];
  };
  const commitLater = (): void => {
    scheduled = false;
    try {
      commit();
    } catch {
      // Kept waiting: the next decision commits them first, and its failure is reported.
    }
  };
  return {
    start: (run) => {
      commit();
      return file.start(run);
    },
    record: (event, extra = {}) => {
      waiting.push(auditRowOf(event, extra.method));
      if (!afterTheCall.has(event.kind)) {
        commit();
        return;
      }
      if (!scheduled) {
        scheduled = true;
        setImmediate(commitLater);
      }
    },
    close: () => {
      try {
        commit();
      } finally {
        file.close();
      }
    },
  };
}
