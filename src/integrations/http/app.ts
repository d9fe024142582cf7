import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { ChatModel } from '../../formalize/index.js';
import type { Schema } from '../../language/index.js';
import type { ServiceStore } from '../../store/service-store.js';
import { errorMessage } from '../../support/error-message.js';
import { authentication, rateLimiter, tokenHashes, type Variables } from './auth.js';
import { requestBodyLimit } from './body-limit.js';
import { type ServiceMemoryLimits, serviceMemoryLimits } from './memory-budget.js';
import { openApiDocument } from './openapi.js';
import { approvalsPage } from './page.js';
import { problem } from './problem.js';
import { sessionRoutes } from './routes.js';
import { ServiceProblem, Sessions } from './sessions.js';

export interface ServiceAppOptions {
  readonly store: ServiceStore;
  /** Bearer tokens allowed; each creates and sees only its own sessions. At least one. */
  readonly tokens: readonly string[];
  /**
   * Tokens of the people who approve (S3). When there are any, only they approve a call
   * (`approved: true`), in any token's session, and they see every pending approval;
   * they cannot create sessions or report calls. An agent token may still deny (withdraw)
   * its own calls. Without approver tokens, a token approves its own sessions' calls.
   */
  readonly approverTokens?: readonly string[];
  /** Open sessions one token may have (default 1,000); more → 429 `too-many-sessions`. */
  readonly maxOpenSessions?: number;
  /**
   * Failed authentications per second per client address (bursts of twice that;
   * default 10; 0 = no limit). Beyond it, every request from that address is 429 until
   * the bucket refills, before its token is looked at.
   */
  readonly authFailureLimit?: number;
  /** Formalizes `instruction` sessions; without it they are answered 422. */
  readonly model?: ChatModel;
  /** The largest request body in bytes (default 1 MiB); larger → 413. */
  readonly maxBodyBytes?: number;
  /** Requests per second per token (token bucket, burst twice that; default 2,000; 0 = no limit). */
  readonly rateLimit?: number;
  /** An origin allowed by CORS; without it no CORS headers are sent. */
  readonly corsOrigin?: string;
  /** Where log lines go (default: stderr). */
  readonly log?: (line: string) => void;
  /** What the sessions in memory may hold (default: `serviceMemoryLimits()`, memory-budget.ts). */
  readonly memory?: Partial<ServiceMemoryLimits>;
  /**
   * The operator's policy text (LANGUAGE.md §8): every session is decided under it, and
   * one it does not check against is not created (422 `invalid-policy`). A session's own
   * `policy` is refused (403) unless `allowSessionPolicy`.
   */
  readonly policy?: string;
  /** Lets a session's own `policy` take the place of `policy`. */
  readonly allowSessionPolicy?: boolean;
  /** The schema `policy` was written over: sessions under it declare its predicates as it does. */
  readonly policySchema?: Schema;
}

export { maxBodyNesting } from './routes.js';

export interface ServiceApp {
  readonly app: Hono;
  readonly sessions: Sessions;
}

/**
 * The guard as an HTTP service (Hono): REST + JSON, sessions persisted in the store
 * (SQLite or PostgreSQL: `openServiceStore`), bearer auth, every decision in the
 * hash-chained audit. Test it with `app.request()`; serve it with `startService` (or
 * `@hono/node-server`).
 */
export function createServiceApp(options: ServiceAppOptions): ServiceApp {
  const allowed = tokenHashes(options.tokens);
  const approvers = tokenHashes(options.approverTokens ?? [], true);
  const roles = approvers.length > 0;
  for (const hash of approvers) {
    if (allowed.some((agent) => agent.equals(hash)))
      throw new Error('createServiceApp: a token cannot be both an agent and an approver token');
  }
  const maxOpen = options.maxOpenSessions ?? 1000;
  const failures = rateLimiter(options.authFailureLimit ?? 10);
  const log =
    options.log ?? ((line: string) => process.stderr.write(`intentguard serve: ${line}\n`));
  const sessions = new Sessions({
    store: options.store,
    model: options.model,
    log,
    memory: serviceMemoryLimits(options.memory),
    policy: options.policy,
    allowSessionPolicy: options.allowSessionPolicy,
    policySchema: options.policySchema,
  });
  const limiter = rateLimiter(options.rateLimit ?? 2000);
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const app = new Hono<{ Variables: Variables }>();

  app.onError((error, c) => {
    if (error instanceof ServiceProblem) {
      if (error.code === 'over-capacity') c.header('Retry-After', '5');
      return problem(c, error.status, error.code, error.message);
    }
    log(`internal error on ${c.req.method} ${c.req.path}: ${errorMessage(error)}`);
    return problem(
      c,
      500,
      'internal-error',
      'the service failed to answer this request; nothing was decided',
    );
  });
  app.notFound((c) =>
    problem(c, 404, 'not-found', `there is no ${c.req.method} ${c.req.path.slice(0, 200)}`),
  );

  if (options.corsOrigin !== undefined) {
    app.use(
      '*',
      cors({ origin: options.corsOrigin, allowHeaders: ['Authorization', 'Content-Type'] }),
    );
  }
  app.use(
    '*',
    requestBodyLimit(maxBody, {
      tooLarge: (c) =>
        problem(c, 413, 'body-too-large', `the request body is larger than ${maxBody} bytes`),
      badLength: (c) =>
        problem(c, 400, 'invalid-request', 'the Content-Length header is not a number'),
      // A client still sending its body reads the 413 instead of a broken pipe (EPIPE):
      // the body is dropped unparsed, up to the drain's cap, then the answer is sent.
      excess: 'drain',
    }),
  );

  app.get('/v1/openapi.json', (c) => c.json(openApiDocument));
  app.get('/', (c) => {
    const nonce = randomBytes(16).toString('base64');
    c.header(
      'Content-Security-Policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'`,
    );
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    return c.html(approvalsPage(nonce));
  });

  app.use('/v1/*', authentication({ allowed, approvers, failures, limiter }));
  sessionRoutes(app, { sessions, store: options.store, maxOpen, roles });

  return { app: app as unknown as Hono, sessions };
}
