import { z } from 'zod';
import type { Discrepancy } from './prompts/feedback.js';

/** Characters of a model reply looked at; longer replies are cut (and then rarely valid). */
export const maxReplyLength = 100_000;

const jsonFencePattern = /```[ \t]*(?:json|JSON)?[ \t]*\n([\s\S]*?)```/g;

/**
 * The JSON object in a model's reply: in a fence, bare, or between the first `{` and
 * the last `}` of prose. Returns why not when there is none.
 */
export function extractJson(
  reply: string,
): { readonly value: unknown } | { readonly problem: string } {
  const text = reply.slice(0, maxReplyLength);
  const candidates: string[] = [];
  for (const match of text.matchAll(jsonFencePattern)) candidates.push(match[1] ?? '');
  candidates.push(text.trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first !== -1 && last > first) candidates.push(text.slice(first, last + 1));
  let problem = 'it contains no JSON object';
  for (const candidate of candidates) {
    const trimmed = candidate.trim();
    if (!trimmed.startsWith('{')) continue;
    try {
      return { value: JSON.parse(trimmed) };
    } catch (error) {
      problem = `its JSON does not parse (${(error as Error).message})`;
    }
  }
  return { problem };
}

const boundedText = (limit: number) =>
  z
    .string()
    .trim()
    .transform((text) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text));

const discrepancySchema = z.union([
  boundedText(1000).transform((issue): Discrepancy => ({ issue })),
  z
    .object({ issue: boundedText(1000), fix: boundedText(1000).optional() })
    .transform(
      (value): Discrepancy =>
        value.fix ? { issue: value.issue, fix: value.fix } : { issue: value.issue },
    ),
]);

const checkerReplySchema = z.object({
  verdict: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.enum(['agree', 'disagree'])),
  discrepancies: z.array(discrepancySchema).max(50).default([]),
});

export interface CheckerVerdict {
  readonly agree: boolean;
  readonly discrepancies: readonly Discrepancy[];
}

function zodProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'it does not have the expected fields';
  const where = issue.path.length > 0 ? issue.path.join('.') : 'the object';
  return `${where}: ${issue.message}`;
}

/**
 * The checker's structured reply: `agree` or `disagree` with discrepancies. The
 * verdict field decides; discrepancies listed with `agree` are kept as notes.
 */
export function parseCheckerReply(
  reply: string,
):
  | { readonly ok: true; readonly value: CheckerVerdict }
  | { readonly ok: false; readonly problem: string } {
  const json = extractJson(reply);
  if ('problem' in json) return { ok: false, problem: json.problem };
  const parsed = checkerReplySchema.safeParse(json.value);
  if (!parsed.success) return { ok: false, problem: zodProblem(parsed.error) };
  return {
    ok: true,
    value: { agree: parsed.data.verdict === 'agree', discrepancies: parsed.data.discrepancies },
  };
}

const goalTextList = z.array(boundedText(500)).max(30).default([]);

const goalSchema = z.object({
  goal: boundedText(120).pipe(z.string().min(1)),
  summary: boundedText(1000).optional(),
  parameters: z
    .array(
      z.object({
        name: boundedText(120),
        value: z.union([boundedText(1000), z.number(), z.boolean(), z.null()]),
      }),
    )
    .max(30)
    .default([]),
  constraints: goalTextList,
  safety: goalTextList,
  outcomes: goalTextList,
});

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
