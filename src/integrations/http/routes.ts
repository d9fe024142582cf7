import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import { jsonNesting } from '../../language/json-nesting.js';
import type { ServiceStore } from '../../store/service-store.js';
import type { Variables } from './auth.js';
import {
  approveBody,
  checkBody,
  checkManyBody,
  createSessionBody,
  finishBody,
  observeBody,
  resultBody,
} from './schemas.js';
import { ServiceProblem, type Sessions } from './sessions.js';

/**
 * The deepest a request body may nest (S2): deeper than any tool schema or argument the
 * engine reads (values nest at most 32 levels), and shallow enough for every recursive
 * walk of the parsed body.
 */
export const maxBodyNesting = 64;

/** The request's JSON body checked against `schema`, or a 400 `ServiceProblem`. */
export async function readBody<T>(c: Context, schema: z.ZodType<T>, optional = false): Promise<T> {
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

/** Sessions one `GET /v1/sessions` lists: 100 unless `?limit=` asks for fewer or more. */
const defaultPage = 100;
const maxPage = 200;

/** `?limit=`: a whole number from 1 to `maxPage`; otherwise 400. */
function pageLimit(given: string | undefined): number {
  if (given === undefined) return defaultPage;
  const limit = /^[0-9]{1,4}$/.test(given) ? Number(given) : Number.NaN;
  if (!(limit >= 1 && limit <= maxPage))
    throw new ServiceProblem(
      400,
      'invalid-request',
      `limit must be a whole number from 1 to ${maxPage}`,
    );
  return limit;
}

/** What the session routes act on. */
export interface SessionRouteOptions {
  readonly sessions: Sessions;
  readonly store: ServiceStore;
  /** Open sessions one token may have. */
  readonly maxOpen: number;
  /** Whether approver tokens exist (then only they approve). */
  readonly roles: boolean;
}

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

/** The `/v1/sessions` and `/v1/approvals` routes, one per step of a guarded session. */
export function sessionRoutes(
  app: Hono<{ Variables: Variables }>,
  { sessions, store, maxOpen, roles }: SessionRouteOptions,
): void {
  app.post('/v1/sessions', async (c) => {
    agentOnly(c);
    if ((await store.openSessionCount(c.get('tokenHash'))) >= maxOpen)
      throw new ServiceProblem(
        429,
        'too-many-sessions',
        `this token has ${maxOpen} open sessions, as many as it may; finish some first`,
      );
    const input = await readBody(c, createSessionBody);
    // Checked again where the session is stored: creations in flight cannot pass the cap together.
    const created = await sessions.create(c.get('tokenHash'), input, maxOpen);
    return c.json(sessions.describe(created.live), 201);
  });

  app.get('/v1/sessions/:id', async (c) => {
    const live = await sessions.get(owner(c), c.req.param('id'), true);
    return c.json(sessions.describe(live));
  });

  app.post('/v1/sessions/:id/check', async (c) => {
    agentOnly(c);
    const live = await sessions.get(c.get('tokenHash'), c.req.param('id'));
    const call = await readBody(c, checkBody);
    return c.json(await sessions.check(live, call));
  });

  app.post('/v1/sessions/:id/checks', async (c) => {
    agentOnly(c);
    const live = await sessions.get(c.get('tokenHash'), c.req.param('id'));
    const { calls } = await readBody(c, checkManyBody);
    return c.json({ decisions: await sessions.checkMany(live, calls) });
  });

  app.post('/v1/sessions/:id/approve', async (c) => {
    const live = await sessions.get(owner(c), c.req.param('id'));
    const { id: callId, approved } = await readBody(c, approveBody);
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
    const live = await sessions.get(c.get('tokenHash'), c.req.param('id'));
    const given = await readBody(c, resultBody);
    const outcome = 'error' in given ? { error: given.error } : { output: given.output };
    return c.json(await sessions.result(live, given.id, outcome));
  });

  app.post('/v1/sessions/:id/observe', async (c) => {
    agentOnly(c);
    const live = await sessions.get(c.get('tokenHash'), c.req.param('id'));
    const { updates } = await readBody(c, observeBody);
    return c.json(await sessions.observe(live, updates));
  });

  app.post('/v1/sessions/:id/finish', async (c) => {
    agentOnly(c);
    const live = await sessions.get(c.get('tokenHash'), c.req.param('id'));
    const { answer } = await readBody(c, finishBody, true);
    return c.json(await sessions.finish(live, answer));
  });

  app.get('/v1/sessions', async (c) => {
    const limit = pageLimit(c.req.query('limit'));
    const after = c.req.query('after');
    return c.json(await sessions.list(owner(c), limit, after === '' ? undefined : after));
  });

  app.get('/v1/approvals', async (c) =>
    c.json({ approvals: await sessions.pendingApprovals(owner(c)) }),
  );
}
