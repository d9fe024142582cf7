import type { AuditRecord } from '../../store/audit-chain.js';
import type { ProxyAuditEvent } from '../../store/proxy-audit.js';
import type { GuardEvent } from '../types.js';

/**
 * What the audit logs record of a guard event, in one place for every host that keeps
 * one. The service's log (`intentguard serve`) holds one record per event with the call
 * as proposed and the reasons' codes; the proxy's (`intentguard mcp-proxy --audit`)
 * holds one flat row per event, queried with SQL, with the arguments kept as a digest
 * only. Both shapes are what files already written hold, so they stay as they are.
 */

/** The service's audit record of `event` in session `session`. */
export function auditRecordOf(session: string, event: GuardEvent): AuditRecord {
  switch (event.kind) {
    case 'decision':
      return {
        session,
        kind: 'decision',
        body: {
          call: event.call,
          action: event.decision.action,
          decision: event.decision.verdict.decision,
          reasons: event.decision.verdict.reasons.map((reason) => reason.code),
          message: event.decision.message,
        },
      };
    case 'approval':
      return {
        session,
        kind: 'approval',
        body: { id: event.id, approved: event.approved, action: event.decision.action },
      };
    case 'result':
      return {
        session,
        kind: 'result',
        body: { id: event.id, ok: event.ok, rolledBack: event.rolledBack },
      };
    case 'observation':
      return { session, kind: 'observation', body: { ok: event.ok } };
    case 'finish':
      return {
        session,
        kind: 'finish',
        body: {
          action: event.decision.action,
          decision: event.decision.verdict.decision,
          message: event.decision.message,
        },
      };
  }
}

/**
 * The proxy's audit row of `event`; `method` is how an approval was asked (elicit,
 * console, deny or none).
 */
export function auditRowOf(event: GuardEvent, method?: string): ProxyAuditEvent {
  const decided =
    event.kind === 'decision' || event.kind === 'approval' || event.kind === 'finish'
      ? event.decision
      : undefined;
  let callId: string | null = null;
  if (event.kind === 'decision') callId = event.call.id;
  if (decided !== undefined) callId = decided.id;
  if (event.kind === 'result') callId = event.id;
  return {
    kind: event.kind,
    callId,
    tool: event.kind === 'decision' ? event.call.name : null,
    args: event.kind === 'decision' ? event.call.args : null,
    action: decided?.action ?? null,
    decision: decided?.verdict.decision ?? null,
    approved: event.kind === 'approval' ? event.approved : null,
    ok: event.kind === 'result' || event.kind === 'observation' ? event.ok : null,
    method: method ?? null,
    message: decided === undefined || decided.action === 'run' ? null : decided.message,
  };
}
