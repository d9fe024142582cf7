/**
 * `intentguard/http`: the guard as an HTTP service — REST + JSON on Hono, sessions kept
 * as guard journals in SQLite, bearer tokens, and a hash-chained audit log.
 */

export {
  type AuditVerification,
  verifyAuditChain,
  verifyAuditFile,
} from '../../store/audit-chain.js';
export { createServiceApp, type ServiceApp, type ServiceAppOptions } from './app.js';
export { openApiDocument } from './openapi.js';
export { type RunningService, type StartServiceOptions, startService } from './server.js';
export { ServiceStore } from './store.js';
