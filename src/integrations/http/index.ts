/**
 * `intentguard/http`: the guard as an HTTP service — REST + JSON on Hono, sessions kept
 * as guard journals in SQLite, bearer tokens, and a hash-chained audit log.
 */

export { ServiceStore } from '../../store/service-sessions.js';
export { createServiceApp, type ServiceApp, type ServiceAppOptions } from './app.js';
export { openApiDocument } from './openapi.js';
export { type RunningService, type StartServiceOptions, startService } from './server.js';
