import { z } from 'zod';
import {
  approveBody,
  checkBody,
  checkManyBody,
  createSessionBody,
  finishBody,
  observeBody,
  resultBody,
} from './schemas.js';

function schemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return rest;
}

const problem = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'string' }, message: { type: 'string' } },
};

const decision = {
  type: 'object',
  description:
    'The guard decision: run the call, ask the person first, or refuse it (GuardDecision).',
  required: ['id', 'action', 'verdict', 'message', 'prompt'],
  properties: {
    id: { type: 'string' },
    action: { type: 'string', enum: ['run', 'ask', 'refuse'] },
    verdict: {
      type: 'object',
      description:
        "The engine's verdict: decision (allow, confirm, revise, reject), reasons with stable codes, feedback.",
    },
    message: { type: 'string', description: 'For the model: what to do next.' },
    prompt: { type: 'string', description: 'For the person, when action is ask.' },
  },
};

const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [
      String(status),
      {
        description: 'A problem',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' } } },
      },
    ]),
  );

function post(
  summary: string,
  bodySchema: string | undefined,
  response: string,
  ...statuses: number[]
) {
  return {
    post: {
      summary,
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      ...(bodySchema
        ? {
            requestBody: {
              // A finish may come without a body (no answer to judge).
              required: bodySchema !== 'Finish',
              content: {
                'application/json': { schema: { $ref: `#/components/schemas/${bodySchema}` } },
              },
            },
          }
        : {}),
      responses: {
        '200': {
          description: 'OK',
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${response}` } } },
        },
        ...errors(400, 401, 403, 404, 409, 413, 429, 503, ...statuses),
      },
    },
  };
}

/** The OpenAPI 3.1 document served at `/v1/openapi.json`; request bodies come from the zod schemas. */
export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'intentguard service',
    version: '1',
    description:
      'Checks every action an agent proposes against a formal spec before it runs. Bearer tokens; each agent token sees only its own sessions. When the server has approver tokens (--approver-token), only they approve calls (approved: true), in any session, and see every pending approval; they cannot create sessions, check, report results, observe or finish (403 forbidden), and an agent token may only deny (withdraw) its calls. Without approver tokens an agent token approves its own calls. 401s are limited per client address (then 429 for every request from it until the limit refills); open sessions are capped per token (429 too-many-sessions). Bodies nested more than 64 levels deep are 400 invalid-request. Memory is bounded: a session holding --max-session-text characters of calls and results takes no more work (409 session-full); when the sessions in memory hold --max-service-text, new work is 503 over-capacity (Retry-After).',
  },
  security: [{ bearer: [] }],
  paths: {
    '/v1/sessions': {
      post: {
        summary:
          'Start a guarded session from spec text (or an instruction, when the server has a model) and a schema',
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/CreateSession' } },
          },
        },
        responses: {
          '201': {
            description: 'Created',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Session' } } },
          },
          ...errors(400, 401, 403, 413, 422, 429, 503),
        },
      },
      get: {
        summary:
          "A page of the token's sessions (an approver token: every session), open and finished, newest first, whichever instance created them; a session that cannot be read now is listed with `error` (its code and message) instead of its state",
        parameters: [
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: { type: 'integer', minimum: 1, maximum: 200, default: 100 },
          },
          {
            name: 'after',
            in: 'query',
            required: false,
            description: 'The `next` of the previous page: lists the sessions after that one',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    sessions: { type: 'array', items: { $ref: '#/components/schemas/Session' } },
                    next: {
                      type: 'string',
                      description: 'Present when there are more sessions: pass it as `after`',
                    },
                  },
                },
              },
            },
          },
          ...errors(400, 401, 429),
        },
      },
    },
    '/v1/sessions/{id}': {
      get: {
        summary: 'A session: status, spec and the latest decision of every call',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'OK',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Session' } } },
          },
          ...errors(401, 404, 429, 503),
        },
      },
    },
    '/v1/sessions/{id}/check': post(
      'Decide a tool call before it runs (idempotent per call id while the call is pending; once its result or failure is reported the id is spent: refuse, invalid-proposal)',
      'Check',
      'Decision',
    ),
    '/v1/sessions/{id}/checks': post(
      'Decide several calls in order, as if sent one by one (parallel tool calls); one write for all',
      'CheckMany',
      'Decisions',
    ),
    '/v1/sessions/{id}/approve': post(
      "A person's answer to an ask. With approver tokens, approved: true needs one (403 forbidden for an agent token); a denial may come from the session's own token",
      'Approve',
      'Decision',
    ),
    '/v1/sessions/{id}/result': post(
      "A call's outcome: output, or error (rolls back)",
      'Result',
      'Observation',
    ),
    '/v1/sessions/{id}/observe': post(
      'Facts the app or environment reports',
      'Observe',
      'Observation',
    ),
    '/v1/sessions/{id}/finish': post(
      'The agent says it is done (optionally with its final answer); run only when the task is done and the answer shows no call that was never made',
      'Finish',
      'Decision',
    ),
    '/v1/approvals': {
      get: {
        summary:
          "Calls waiting for a person's answer, across the token's sessions (an approver token: across every session)",
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    approvals: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          session: { type: 'string' },
                          id: { type: 'string' },
                          prompt: { type: 'string' },
                          decision: { $ref: '#/components/schemas/Decision' },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          ...errors(401, 429),
        },
      },
    },
  },
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Problem: problem,
      Decision: decision,
      Observation: {
        type: 'object',
        required: ['ok', 'problems', 'ignored', 'status'],
        properties: {
          ok: { type: 'boolean' },
          problems: { type: 'array' },
          ignored: { type: 'array' },
          status: { type: 'object' },
        },
      },
      Session: {
        type: 'object',
        required: ['id', 'finished', 'status', 'decisions'],
        properties: {
          id: { type: 'string' },
          createdAt: { type: 'string' },
          finished: { type: 'boolean' },
          spec: { type: ['string', 'null'] },
          // The operator's policy text the session is decided under (serve --policy, or its own).
          policy: { type: ['string', 'null'] },
          // The instruction the spec was formalized from (null for a session given its spec).
          task: { type: ['string', 'null'] },
          status: { type: 'object' },
          decisions: { type: 'array', items: { $ref: '#/components/schemas/Decision' } },
          // Each decided call's tool and arguments, by id.
          calls: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'name', 'args'],
              properties: { id: { type: 'string' }, name: { type: 'string' }, args: {} },
            },
          },
        },
      },
      CreateSession: schemaOf(createSessionBody),
      Check: schemaOf(checkBody),
      CheckMany: schemaOf(checkManyBody),
      Decisions: {
        type: 'object',
        required: ['decisions'],
        properties: {
          decisions: { type: 'array', items: { $ref: '#/components/schemas/Decision' } },
        },
      },
      Approve: schemaOf(approveBody),
      Result: schemaOf(resultBody),
      Observe: schemaOf(observeBody),
      Finish: schemaOf(finishBody),
    },
  },
} as const;
