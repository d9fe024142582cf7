import { randomBytes, timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { cors } from 'hono/cors';
import type { z } from 'zod';
import type { ChatModel } from '../../formalize/index.js';
import { jsonNesting } from '../../language/json-nesting.js';
import { type ServiceStore, sha256Hex } from '../../store/service-sessions.js';
import { errorMessage } from '../../support/error-message.js';
import { requestBodyLimit } from './body-limit.js';
import { type ServiceMemoryLimits, serviceMemoryLimits } from './memory-budget.js';
import { openApiDocument } from './openapi.js';
import { approvalsPage } from './page.js';
import {
  approveBody,
  checkBody,
  checkManyBody,
  createSessionBody,
  finishBody,
  observeBody,
  resultBody,
} from './schemas.js';
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
}

export interface ServiceApp {
  readonly app: Hono;
  readonly sessions: Sessions;
}

/**
 * The deepest a request body may nest (S2): deeper than any tool schema or argument the
 * engine reads (values nest at most 32 levels), and shallow enough for every recursive
 * walk of the parsed body.
 */
export const maxBodyNesting = 64;

function problem(c: Context, status: ServiceProblem['status'], code: string, message: string) {
  return c.json({ code, message }, status);
}

function tokenHashes(tokens: readonly string[], allowNone = false): Buffer[] {
  if (tokens.length === 0 && !allowNone)
    throw new Error('createServiceApp: give at least one bearer token');
  return tokens.map((token) => {
    if (token.length === 0) throw new Error('createServiceApp: a bearer token is empty');
    return Buffer.from(sha256Hex(token), 'hex');
  });
}

/** The token's hash when it is one of `allowed` (each compared in constant time). */
function authenticate(header: string | undefined, allowed: readonly Buffer[]): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const given = Buffer.from(sha256Hex(match[1]), 'hex');
  let found = false;
  for (const hash of allowed) found = timingSafeEqual(given, hash) || found;
  return found ? given.toString('hex') : undefined;
}

/**
 * A token bucket per key: `rate` per second, bursts of twice that. `take` spends one
 * (false when there is none); `has` only looks. Full buckets are forgotten, so that
 * keys that come and go (client addresses) do not pile up.
 */
function rateLimiter(rate: number): {
  take: (key: string) => boolean;
  has: (key: string) => boolean;
} {
  const buckets = new Map<string, { tokens: number; at: number }>();
  const capacity = rate * 2;
  const refill = (key: string) => {
    const now = performance.now();
    const bucket = buckets.get(key) ?? { tokens: capacity, at: now };
    bucket.tokens = Math.min(capacity, bucket.tokens + ((now - bucket.at) / 1000) * rate);
    bucket.at = now;
    return bucket;
  };
  return {
    take: (key) => {
      if (rate <= 0) return true;
      // Keys that stopped coming (addresses that failed once) must not pile up: past a
      // bound, the buckets that have refilled are forgotten.
      if (buckets.size >= maxBuckets && !buckets.has(key)) {
        for (const known of [...buckets.keys()]) {
          if (refill(known).tokens >= capacity) buckets.delete(known);
        }
      }
      const bucket = refill(key);
      buckets.set(key, bucket);
      if (bucket.tokens < 1) return false;
      bucket.tokens -= 1;
      return true;
    },
    has: (key) => {
      if (rate <= 0) return true;
      const bucket = refill(key);
      if (bucket.tokens >= capacity) buckets.delete(key);
      return bucket.tokens >= 1;
    },
  };
}

/** How many keys a limiter keeps before it forgets the refilled ones. */
const maxBuckets = 10_000;

/** The address a request came from (the socket's; `local` for in-process requests). */
function clientAddress(c: Context): string {
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming;
  return incoming?.socket?.remoteAddress ?? 'local';
}

/** What a token may do (S3): an agent runs sessions, an approver answers their approvals. */
type Role = 'agent' | 'approver';

type Variables = { tokenHash: string; role: Role };

/**
 * The guard as an HTTP service (Hono): REST + JSON, sessions persisted in SQLite, bearer
 * auth, every decision in the hash-chained audit. Test it with `app.request()`; serve it
 * with `startService` (or `@hono/node-server`).
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

  app.use('/v1/*', async (c, next) => {
    // Guessing tokens costs the guesser: past the limit of failures, an address is not
    // heard (its tokens are not even compared) until its bucket refills.
    const address = clientAddress(c);
    if (!failures.has(address)) {
      c.header('Retry-After', '1');
      return problem(
        c,
        429,
        'rate-limited',
        'too many failed authentications from this address; slow down',
      );
    }
    const header = c.req.header('authorization');
    const agentHash = authenticate(header, allowed);
    const approverHash = agentHash === undefined ? authenticate(header, approvers) : undefined;
    const tokenHash = agentHash ?? approverHash;
    if (tokenHash === undefined) {
      failures.take(address);
      c.header('WWW-Authenticate', 'Bearer');
      return problem(
        c,
        401,
        'unauthorized',
        'a valid bearer token is required (Authorization: Bearer TOKEN)',
      );
    }
    if (!limiter.take(tokenHash)) {
      c.header('Retry-After', '1');
      return problem(c, 429, 'rate-limited', 'too many requests for this token; slow down');
    }
    c.set('tokenHash', tokenHash);
    c.set('role', agentHash !== undefined ? 'agent' : 'approver');
    await next();
    return undefined;
  });

  /** The owner whose sessions the request sees: its own, or every one for an approver. */
  const owner = (c: Context<{ Variables: Variables }>) =>
    c.get('role') === 'approver' ? undefined : c.get('tokenHash');
  /** Runs sessions (create, check, report, finish): agent tokens only. */
  const agentOnly = (c: Context<{ Variables: Variables }>) => {
    if (c.get('role') !== 'agent')
      throw new ServiceProblem(
        403,
        'forbidden',
        'an approver token answers approvals; it does not run sessions (use an agent token)',
      );
  };

  async function body<T>(c: Context, schema: z.ZodType<T>, optional = false): Promise<T> {
    const text = await c.req.text();
    let value: unknown;
    if (text.trim() === '' && optional) value = {};
    else {
      // Before parsing: nothing recursive ever sees a deeper value.
      if (jsonNesting(text) > maxBodyNesting)
        throw new ServiceProblem(
          400,
          'invalid-request',
          `the request body is nested more than ${maxBodyNesting} levels deep`,
        );
      try {
        value = JSON.parse(text);
      } catch {
        throw new ServiceProblem(400, 'malformed-json', 'the request body is not valid JSON');
      }
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map(
          (issue) => `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`,
        );
      throw new ServiceProblem(
        400,
        'invalid-request',
        `the request body is invalid: ${issues.join('; ')}`,
      );
    }
    return parsed.data;
  }

  app.post('/v1/sessions', async (c) => {
    agentOnly(c);
    if (options.store.openSessionCount(c.get('tokenHash')) >= maxOpen)
      throw new ServiceProblem(
        429,
        'too-many-sessions',
        `this token has ${maxOpen} open sessions, as many as it may; finish some first`,
      );
    const input = await body(c, createSessionBody);
    const created = await sessions.create(c.get('tokenHash'), input);
    return c.json(sessions.describe(created.live), 201);
  });

  app.get('/v1/sessions/:id', (c) => {
    const live = sessions.get(owner(c), c.req.param('id'));
    return c.json(sessions.describe(live));
  });

  app.post('/v1/sessions/:id/check', async (c) => {
    agentOnly(c);
    const live = sessions.get(c.get('tokenHash'), c.req.param('id'));
    const call = await body(c, checkBody);
    return c.json(await sessions.check(live, call));
  });

  app.post('/v1/sessions/:id/checks', async (c) => {
    agentOnly(c);
    const live = sessions.get(c.get('tokenHash'), c.req.param('id'));
    const { calls } = await body(c, checkManyBody);
    return c.json({ decisions: await sessions.checkMany(live, calls) });
  });

  app.post('/v1/sessions/:id/approve', async (c) => {
    const live = sessions.get(owner(c), c.req.param('id'));
    const { id: callId, approved } = await body(c, approveBody);
    // With approvers, whatever holds an agent's token (the agent's host, a page) may
    // withdraw its call but never approve it (S3).
    if (approved && roles && c.get('role') !== 'approver')
      throw new ServiceProblem(
        403,
        'forbidden',
        'this token cannot approve calls: approvals come from an approver token (the approvals page)',
      );
    return c.json(await sessions.approve(live, callId, approved));
  });

  app.post('/v1/sessions/:id/result', async (c) => {
    agentOnly(c);
    const live = sessions.get(c.get('tokenHash'), c.req.param('id'));
    const given = await body(c, resultBody);
    const outcome = 'error' in given ? { error: given.error } : { output: given.output };
    return c.json(await sessions.result(live, given.id, outcome));
  });

  app.post('/v1/sessions/:id/observe', async (c) => {
    agentOnly(c);
    const live = sessions.get(c.get('tokenHash'), c.req.param('id'));
    const { updates } = await body(c, observeBody);
    return c.json(await sessions.observe(live, updates));
  });

  app.post('/v1/sessions/:id/finish', async (c) => {
    agentOnly(c);
    const live = sessions.get(c.get('tokenHash'), c.req.param('id'));
    const { answer } = await body(c, finishBody, true);
    return c.json(await sessions.finish(live, answer));
  });

  app.get('/v1/sessions', (c) => c.json({ sessions: sessions.list(owner(c)) }));

  app.get('/v1/approvals', (c) => c.json({ approvals: sessions.pendingApprovals(owner(c)) }));

  return { app: app as unknown as Hono, sessions };
}
