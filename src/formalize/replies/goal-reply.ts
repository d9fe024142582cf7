import { z } from 'zod';
import { isRecord } from '../../support/is-record.js';
import { bound, extractJson } from './json-in-reply.js';

const boundedText = (limit: number) =>
  z
    .string()
    .trim()
    .transform((text) => bound(text, limit));

function zodProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'it does not have the expected fields';
  const where = issue.path.length > 0 ? issue.path.join('.') : 'the object';
  return `${where}: ${issue.message}`;
}

/** A JSON value as one line of text: strings as they are, anything else as compact JSON. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A list of texts as models write it: a list, one string, `null`, or objects (as JSON text). */
const goalTextList = z.preprocess(
  (value) =>
    value === null || value === undefined
      ? []
      : (Array.isArray(value) ? value : [value]).filter((item) => item !== null).map(asText),
  z.array(boundedText(500)).max(30),
);

/**
 * Parameters as a list of `{name, value}` or as an object map (`{"keyword": "Test"}`);
 * list and object values become text (`["a@x.com", "b@x.com"]`), since stage 2 reads
 * them as the user's values, not as structure.
 */
const goalParameters = z.preprocess(
  (value) => {
    if (value === null || value === undefined) return [];
    const entries = Array.isArray(value)
      ? value
      : typeof value === 'object'
        ? Object.entries(value as Record<string, unknown>).map(([name, entry]) => ({
            name,
            value: entry,
          }))
        : value;
    if (!Array.isArray(entries)) return entries;
    return entries.map((entry) =>
      isRecord(entry)
        ? {
            ...entry,
            value:
              typeof (entry as { value?: unknown }).value === 'object' &&
              (entry as { value?: unknown }).value !== null
                ? asText((entry as { value?: unknown }).value)
                : ((entry as { value?: unknown }).value ?? null),
          }
        : entry,
    );
  },
  z
    .array(
      z.object({
        name: boundedText(120),
        value: z.union([boundedText(1000), z.number(), z.boolean(), z.null()]),
      }),
    )
    .max(30),
);

const goalSchema = z.object({
  goal: boundedText(120).pipe(z.string().min(1)),
  summary: boundedText(1000).optional(),
  parameters: goalParameters,
  constraints: goalTextList,
  safety: goalTextList,
  outcomes: goalTextList,
});

/** The JSON schema stage 1 is asked to fill where the provider supports structured output. */
export const goalReplyJsonSchema: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    goal: { type: 'string' },
    summary: { type: 'string' },
    parameters: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          value: {
            anyOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
          },
        },
        required: ['name', 'value'],
        additionalProperties: false,
      },
    },
    constraints: { type: 'array', items: { type: 'string' } },
    safety: { type: 'array', items: { type: 'string' } },
    outcomes: { type: 'array', items: { type: 'string' } },
  },
  required: ['goal', 'summary', 'parameters', 'constraints', 'safety', 'outcomes'],
  additionalProperties: false,
};

export type GoalAnalysis = z.infer<typeof goalSchema>;

/**
 * Stage 1's goal analysis, validated and re-serialised canonically (known fields
 * only, bounded lengths) so that stage 2 sees clean, deterministic text.
 */
export function parseGoalReply(
  reply: string,
):
  | { readonly ok: true; readonly value: GoalAnalysis; readonly text: string }
  | { readonly ok: false; readonly problem: string } {
  const json = extractJson(reply);
  if ('problem' in json) return { ok: false, problem: json.problem };
  const parsed = goalSchema.safeParse(json.value);
  if (!parsed.success) return { ok: false, problem: zodProblem(parsed.error) };
  const value = parsed.data;
  const canonical = {
    goal: value.goal,
    ...(value.summary !== undefined ? { summary: value.summary } : {}),
    parameters: value.parameters,
    constraints: value.constraints,
    safety: value.safety,
    outcomes: value.outcomes,
  };
  return { ok: true, value, text: JSON.stringify(canonical, null, 2) };
}
