import { z } from 'zod';

/** The request bodies of the service's API, validated with zod (and documented from it). */

const id = z
  .string()
  .min(1)
  .max(256)
  .refine((value) => value !== '#finish', {
    message: "'#finish' is reserved; give the call another id",
  });
const json = z.unknown();

export const createSessionBody = z
  .object({
    spec: z.string().max(200_000).optional(),
    instruction: z.string().min(1).max(20_000).optional(),
    states: json.optional(),
    tools: json.optional(),
    now: z.string().max(64).optional(),
    timeZone: z.string().max(64).optional(),
    mode: z.enum(['enforce', 'shadow']).optional(),
    finishWaitsForResults: z.boolean().optional(),
    policy: z.string().max(200_000).optional(),
  })
  .strict()
  .refine((body) => (body.spec === undefined) !== (body.instruction === undefined), {
    message: 'give either `spec` (the spec text) or `instruction`, not both',
  })
  .refine((body) => body.states !== undefined || body.tools !== undefined, {
    message: 'give `tools` (tool schemas), `states` (a states schema), or both',
  });

export const checkBody = z
  .object({
    id,
    name: z.string().min(1).max(256),
    args: json.optional(),
    updates: json.optional(),
    objective: z.string().max(256).optional(),
  })
  .strict();

/** The most calls one batch may carry (an agent's parallel tool calls are a handful). */
export const maxBatchCalls = 256;

export const checkManyBody = z
  .object({ calls: z.array(checkBody).min(1).max(maxBatchCalls) })
  .strict()
  .refine((body) => new Set(body.calls.map((call) => call.id)).size === body.calls.length, {
    message: 'every call of a batch needs its own id',
  });

export const approveBody = z.object({ id, approved: z.boolean() }).strict();

export const resultBody = z
  .object({ id, output: json.optional(), error: json.optional() })
  .strict()
  .refine((body) => 'output' in body !== 'error' in body, {
    message: 'give either `output` (the tool succeeded) or `error` (it failed)',
  });

/** The agent's final answer, judged with the finish (fabricated calls, `Answer(text)` in Done rules). */
export const finishBody = z.object({ answer: z.string().max(100_000).optional() }).strict();

export const observeBody = z.object({ updates: json }).strict();
