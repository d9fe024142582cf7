import { explainSpec } from '../../engine/index.js';
import { canonicalSpecText, type Spec } from '../../language/index.js';
import { invisibleClass } from '../../support/printable-text.js';
import type { ChatMessage, ChatModel } from '../model/model.js';
import {
  checkerRepairPrompt,
  checkerSystemPrompt,
  checkerUserPrompt,
  decoderSystemPrompt,
  decoderUserPrompt,
} from '../prompts/check.js';
import type { Discrepancy } from '../prompts/feedback.js';
import { goalRepairPrompt, goalSystemPrompt, goalUserPrompt } from '../prompts/goal.js';
import { checkerReplyJsonSchema, parseCheckerReply } from '../replies/checker-reply.js';
import { goalReplyJsonSchema, parseGoalReply } from '../replies/goal-reply.js';
import { predicatesOf, renderSignatures } from '../signatures.js';
import { type Context, call, callStage, failOnError, record, SampleFailure } from './context.js';

const invisibleRun = new RegExp(`[${invisibleClass}]+`, 'gu');

/** A model's reply quoted in a message: one line, bounded, control characters shown as spaces. */
function excerpt(text: string, limit = 300): string {
  const line = text.replace(invisibleRun, ' ').replace(/\s+/g, ' ').trim();
  if (line === '') return 'empty';
  return JSON.stringify(line.length > limit ? `${line.slice(0, limit - 1)}…` : line);
}

/**
 * Stage 1 of the two-stage mode: the goal analysis as canonical JSON, or why there is
 * none after one reminder (then stage 2 still refines, from the instruction itself).
 */
export async function extractGoal(
  context: Context,
  sample: number,
): Promise<{ readonly text: string } | { readonly problem: string }> {
  let problem = 'no reply';
  const messages: ChatMessage[] = [
    {
      role: 'user',
      content: goalUserPrompt({
        instruction: context.instruction,
        schema: context.schema,
        selection: context.selection,
        now: context.now,
        timeZone: context.timeZone,
      }),
    },
  ];
  // One reminder after a malformed reply; then stage 2 works from the instruction alone.
  for (let round = 0; round < 2; round++) {
    const { result, base } = await callStage(
      context,
      context.options.model,
      {
        purpose: 'goal',
        sample,
        round,
        system: goalSystemPrompt,
        messages,
        temperature: context.temperature,
        responseSchema: { name: 'goal_analysis', schema: goalReplyJsonSchema },
      },
      'goal',
    );
    const text = result.response?.text ?? '';
    const parsed = parseGoalReply(text);
    if (parsed.ok) {
      record(context, base, result, { outcome: 'ok' });
      return { text: parsed.text };
    }
    problem = parsed.problem;
    record(context, base, result, { outcome: 'unparseable', problem });
    messages.push(
      { role: 'assistant', content: text },
      { role: 'user', content: goalRepairPrompt(parsed.problem) },
    );
  }
  return { problem };
}

/** The reading of a spec the checker compares: `explainSpec`, or the decoder model's. */
async function readBack(
  context: Context,
  spec: Spec,
  sample: number,
  round: number,
): Promise<string> {
  const decoder = context.options.decoder;
  if (!decoder) {
    try {
      return explainSpec(spec, { now: context.now, timeZone: context.timeZone }).text;
    } catch {
      // The reading only serves the checker: the spec's own text is a faithful, if terser, one.
      return canonicalSpecText(spec);
    }
  }
  const result = await call(context, decoder, {
    purpose: 'decode',
    sample,
    round,
    system: decoderSystemPrompt,
    messages: [
      {
        role: 'user',
        content: decoderUserPrompt({
          spec: canonicalSpecText(spec),
          signatures: renderSignatures(context.schema, predicatesOf(spec)),
        }),
      },
    ],
    temperature: 0,
  });
  record(context, { sample, round, stage: 'decode', model: decoder.id }, result);
  failOnError(result);
  return result.response?.text.trim() ?? '';
}

/** The decoding-based semantics check: agreement, or the discrepancies to feed back. */
export async function semanticCheck(
  context: Context,
  checker: ChatModel,
  spec: Spec,
  sample: number,
  round: number,
): Promise<{ agree: boolean; reading: string; discrepancies: readonly Discrepancy[] }> {
  const reading = await readBack(context, spec, sample, round);
  let lastReply = '';
  const messages: ChatMessage[] = [
    {
      role: 'user',
      content: checkerUserPrompt({
        instruction: context.instruction,
        reading,
        now: context.now,
        timeZone: context.timeZone,
      }),
    },
  ];
  for (let retry = 0; retry < 2; retry++) {
    const { result, base } = await callStage(
      context,
      checker,
      {
        purpose: 'check',
        sample,
        round,
        system: checkerSystemPrompt,
        messages,
        temperature: 0,
        responseSchema: { name: 'verdict', schema: checkerReplyJsonSchema },
      },
      'check',
      { reading },
    );
    const text = result.response?.text ?? '';
    lastReply = text;
    const parsed = parseCheckerReply(text);
    if (parsed.ok) {
      record(context, base, result, {
        outcome: parsed.value.agree ? 'agree' : 'disagree',
        discrepancies: parsed.value.discrepancies,
        reading,
      });
      return { agree: parsed.value.agree, reading, discrepancies: parsed.value.discrepancies };
    }
    record(context, base, result, { outcome: 'unparseable', reading, problem: parsed.problem });
    messages.push(
      { role: 'assistant', content: text },
      { role: 'user', content: checkerRepairPrompt(parsed.problem) },
    );
  }
  // The spec passed every static check; what failed is the checker's format.
  throw new SampleFailure(
    'checker-unusable',
    `the spec checked, but the checker did not answer with a verdict twice in a row; its last reply was ${excerpt(lastReply)}.`,
  );
}
