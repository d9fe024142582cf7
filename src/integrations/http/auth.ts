import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { sha256Hex } from '../../store/service-store.js';
import { problem } from './problem.js';

export function tokenHashes(tokens: readonly string[], allowNone = false): Buffer[] {
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
export function rateLimiter(rate: number): {
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
export type Role = 'agent' | 'approver';

export type Variables = { tokenHash: string; role: Role };

/** What `authentication` checks a request against. */
export interface AuthenticationOptions {
  readonly allowed: readonly Buffer[];
  readonly approvers: readonly Buffer[];
  /** Failed authentications per client address. */
  readonly failures: ReturnType<typeof rateLimiter>;
  /** Requests per token. */
  readonly limiter: ReturnType<typeof rateLimiter>;
}

/** The bearer check of every `/v1/` request: sets `tokenHash` and `role`, or answers 401/429. */
export function authentication({
  allowed,
  approvers,
  failures,
  limiter,
}: AuthenticationOptions): MiddlewareHandler<{ Variables: Variables }> {
  return async (c, next) => {
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
  };
}
