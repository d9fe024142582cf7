import { createClock } from '../../engine/index.js';
import type { FormalizeFailure } from '../failures.js';
import { formalizeLimits } from '../limits.js';
import { addUsage, noUsage } from '../model/model.js';
import { addCost } from '../model/pricing.js';
import { encoderSystemPrompt, encoderUserPrompt } from '../prompts/encode.js';
import { examplesFor } from '../prompts/examples.js';
import { selectPredicates } from '../relevance.js';
import { isToolSchema } from '../signatures.js';
import type { Context } from './context.js';
import { composedDiagnostics, policyContext } from './policy-context.js';
import { recall } from './recall.js';
import { runSample } from './sample.js';
import type {
  FormalizeOptions,
  FormalizeReport,
  FormalizeResult,
  PromptReport,
  SampleOutcome,
} from './types.js';
import { vote } from './vote.js';

function integerOption(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be a whole number from ${min} to ${max}; got ${value}.`);
  }
  return value;
}

/** The system's IANA time zone (`TZ`, the OS setting), or UTC when the runtime has none. */
export function systemTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

async function pool<T>(
  count: number,
  concurrency: number,
  run: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      results[index] = await run(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(count, Math.max(1, concurrency)) }, worker));
  return results;
}

/** How many samples run and how many must agree. */
interface Vote {
  readonly samples: number;
  readonly quorum: number;
}

/**
 * The context every sample shares: the options with their defaults, the remembered
 * specs (recalled first: they decide which predicates the prompt shows), the
 * predicates shown and the worked examples.
 */
async function contextOf(
  options: FormalizeOptions,
  samples: number,
  rounds: number,
): Promise<{
  context: Context;
  experienceIds: readonly number[];
  policyFailure: FormalizeFailure | undefined;
}> {
  const now = options.now ?? new Date();
  const timeZone = options.timeZone ?? systemTimeZone();
  const instruction = options.instruction.trim();
  const mode =
    options.mode === 'two-stage' || (options.mode !== 'direct' && isToolSchema(options.schema))
      ? 'two-stage'
      : 'direct';
  const { experiences, boosts } = await recall(options, instruction);
  const examples = examplesFor(isToolSchema(options.schema) ? 'tools' : 'app');
  const selection = selectPredicates(options.schema, instruction, { ...options.relevance, boosts });
  const checkedPolicy =
    options.policy === undefined ? undefined : policyContext(options.policy, options.schema);
  const policy = checkedPolicy && 'policy' in checkedPolicy ? checkedPolicy.policy : undefined;
  const groundingTexts = [...(options.groundingTexts ?? []), ...(policy ? [policy.source] : [])];
  const context: Context = {
    options,
    schema: options.schema,
    instruction,
    now,
    timeZone,
    mode,
    selection,
    shown: new Set(selection.names),
    experiences: experiences.map((experience) => experience.prompt),
    rounds,
    temperature: options.temperature ?? (samples > 1 ? 0.7 : 0),
    maxOutputTokens: options.maxOutputTokens ?? 2000,
    checker: options.checker === false ? false : (options.checker ?? options.model),
    grounding:
      options.grounding === false
        ? undefined
        : {
            instruction,
            // "tomorrow" and "Friday" in the instruction are the days the prompt's date makes them.
            today: createClock(now, timeZone).today,
            // The policy's values are the operator's, given like the instruction's.
            ...(groundingTexts.length > 0 ? { texts: groundingTexts } : {}),
          },
    policy,
    examples,
    clock: options.clock ?? Date.now,
    attempts: [],
  };
  return {
    context,
    experienceIds: experiences.map((experience) => experience.id),
    policyFailure: checkedPolicy && 'failure' in checkedPolicy ? checkedPolicy.failure : undefined,
  };
}

/** The first encoder request as every sample gets it, for the report. */
function promptReportOf(context: Context, experienceIds: readonly number[]): PromptReport {
  const { mode, selection } = context;
  return {
    mode,
    predicates: selection.names,
    totalPredicates: selection.total,
    filtered: selection.filtered,
    experiences: experienceIds,
    system: encoderSystemPrompt(mode === 'two-stage' ? 'refine' : 'direct', context.examples),
    user: encoderUserPrompt({
      instruction: context.instruction,
      schema: context.schema,
      selection,
      now: context.now,
      timeZone: context.timeZone,
      experiences: context.experiences,
      ...(context.policy ? { policy: context.policy.prompt } : {}),
      ...(mode === 'two-stage' ? { goal: '…the goal analysis of stage 1…' } : {}),
    }),
  };
}

/** The report of the run so far: every attempt, with usage and cost summed. */
function reportOf(
  context: Context,
  prompt: PromptReport,
  started: number,
  outcomes: readonly SampleOutcome[],
): FormalizeReport {
  let usage = noUsage;
  let costUsd: number | null = 0;
  for (const attempt of context.attempts) {
    usage = addUsage(usage, attempt.usage);
    costUsd = addCost(costUsd, attempt.costUsd);
  }
  const { now } = context;
  return {
    instruction: context.instruction,
    schemaId: context.schema.id,
    model: context.options.model.id,
    now: typeof now === 'string' ? now : now.toISOString(),
    timeZone: context.timeZone,
    prompt,
    samples: outcomes,
    attempts: context.attempts,
    usage,
    costUsd,
    latencyMs: context.clock() - started,
  };
}

/** Why the instruction cannot be formalized at all, or undefined. */
function inputFailure(instruction: string): FormalizeFailure | undefined {
  if (instruction !== '' && instruction.length <= formalizeLimits.maxInstructionLength)
    return undefined;
  return {
    code: 'invalid-input',
    message:
      instruction === ''
        ? 'the instruction is empty.'
        : `the instruction is longer than ${formalizeLimits.maxInstructionLength} characters.`,
  };
}

/**
 * The vote's winner when a quorum of samples gave a valid spec; else the failure (with
 * one sample, its own) and the diagnostics of the first failed sample's last draft.
 */
function resultOf(
  context: Context,
  { samples, quorum }: Vote,
  outcomes: readonly SampleOutcome[],
  report: () => FormalizeReport,
): FormalizeResult {
  const specs = vote(outcomes);
  const valid = outcomes.filter((outcome) => outcome.ok).length;
  const chosen = specs[0];
  if (!chosen || valid < quorum) {
    const failed = outcomes.find((outcome) => !outcome.ok);
    const lastInvalid = [...context.attempts]
      .reverse()
      .find(
        (attempt) =>
          attempt.sample === failed?.sample &&
          attempt.stage === 'encode' &&
          (attempt.outcome === 'invalid' || attempt.outcome === 'ungrounded'),
      );
    const failure: FormalizeFailure =
      samples === 1 && failed?.failure
        ? failed.failure
        : {
            code: valid === 0 && failed?.failure ? failed.failure.code : 'no-quorum',
            message:
              `${valid} of ${samples} samples produced a valid spec; ${quorum} needed. ` +
              (failed?.failure ? `Sample ${failed.sample + 1}: ${failed.failure.message}` : ''),
          };
    return { ok: false, failure, diagnostics: lastInvalid?.diagnostics ?? [], report: report() };
  }
  return {
    ok: true,
    value: {
      spec: chosen.spec,
      text: chosen.text,
      specs,
      members: outcomes.map((outcome) => (outcome.ok ? outcome.spec : undefined)),
    },
    // With a policy, the warnings of the pair too (`policy-conflict`), against the spec's text.
    diagnostics: context.policy
      ? composedDiagnostics(chosen.text, context.policy, context.schema)
      : chosen.spec.warnings,
    report: report(),
  };
}

/**
 * Turns an instruction into a checked spec (VeriSafe Agent's Intent Encoder and
 * RefineAct's formalize-and-refine, with their gaps closed): a prompt with the
 * relevant part of the schema, the language, worked examples, today's date and
 * remembered specs; parsing and type-checking of each reply with the diagnostics sent
 * back; a semantic check in which a checker model compares a reading of the spec
 * with the instruction; N independent samples and a vote. Fails closed: unless a
 * quorum of samples yields a spec that checks (and that the checker accepts), the
 * result is `ok: false` with the reasons, never an unchecked spec. Every model call
 * is reported with its tokens, latency and estimated cost.
 *
 * @example
 * const result = await formalize({ instruction: 'Transfer $500 to Alice if my balance exceeds $1000.',
 *   schema, model: createChatModel('openai:gpt-4o', { env: process.env }) });
 * if (result.ok) createSession(result.value.spec);
 * else console.error(result.failure.message);
 */
export async function formalize(options: FormalizeOptions): Promise<FormalizeResult> {
  const started = (options.clock ?? Date.now)();
  const samples = integerOption('samples', options.samples, 1, 1, formalizeLimits.maxSamples);
  const rounds = integerOption('rounds', options.rounds, 3, 0, formalizeLimits.maxRounds);
  const quorum = integerOption('quorum', options.quorum, Math.floor(samples / 2) + 1, 1, samples);
  const { context, experienceIds, policyFailure } = await contextOf(options, samples, rounds);
  const prompt = promptReportOf(context, experienceIds);
  const report = (outcomes: readonly SampleOutcome[]) =>
    reportOf(context, prompt, started, outcomes);

  const invalid = inputFailure(context.instruction) ?? policyFailure;
  if (invalid) return { ok: false, failure: invalid, diagnostics: [], report: report([]) };

  const outcomes = await pool(samples, options.concurrency ?? 4, (sample) =>
    runSample(context, sample),
  );
  return resultOf(context, { samples, quorum }, outcomes, () => report(outcomes));
}
