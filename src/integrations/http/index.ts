/**
 * `intentguard/http`: the guard as an HTTP service — REST + JSON on Hono, sessions kept
 * as guard journals in SQLite (one process) or PostgreSQL (several instances), bearer
 * tokens, and a hash-chained audit log.
 */

export type { ServiceStore } from '../../store/service-store.js';
export { SqliteServiceStore } from '../../store/sqlite-service-store.js';
export { createServiceApp, type ServiceApp, type ServiceAppOptions } from './app.js';
export { openServiceStore } from './open-store.js';
export { openApiDocument } from './openapi.js';
export { type RunningService, type StartServiceOptions, startService } from './server.js';
