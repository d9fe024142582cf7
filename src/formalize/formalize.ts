import { createClock, explainSpec } from '../engine/index.js';
import {
  canonicalSpecText,
  checkGrounding,
  checkSpec,
  type Diagnostic,
  type GroundingSources,
  meaningKey,
  type Schema,
  type Spec,
} from '../language/index.js';
import type { Experience, ExperienceSource } from './experience.js';
import type { FormalizeFailure, FormalizeFailureCode } from './failures.js';
import { formalizeLimits } from './limits.js';
import {
  addUsage,
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  type EmbeddingModel,
  ModelError,
  type ModelPurpose,
  noUsage,
  type TokenUsage,
} from './model.js';
import { addCost, estimateCost } from './pricing.js';
import {
  checkerRepairPrompt,
  checkerSystemPrompt,
  checkerUserPrompt,
  decoderSystemPrompt,
  decoderUserPrompt,
} from './prompts/check.js';
import { encoderSystemPrompt, encoderUserPrompt, type PromptExperience } from './prompts/encode.js';
import { examplesFor, type WorkedExample } from './prompts/examples.js';
import {
  type Discrepancy,
  groundingPrompt,
  habitProblems,
  repairPrompt,
  revisionPrompt,
} from './prompts/feedback.js';
import { goalRepairPrompt, goalSystemPrompt, goalUserPrompt } from './prompts/goal.js';
import { rankByMeaning } from './recall.js';
import { type PredicateSelection, type RelevanceOptions, selectPredicates } from './relevance.js';
import {
  checkerReplyJsonSchema,
  goalReplyJsonSchema,
  parseCheckerReply,
  parseGoalReply,
} from './reply.js';
import { isToolSchema, renderSignatures } from './signatures.js';
import { ambiguityPrompt, readSpecReply } from './spec-reply.js';

/** Warnings of specs that check but cannot mean what they say: sent back like errors. */
const meaningWarnings: ReadonlySet<string> = new Set(['record-list-compared-with-text']);

/** Recent remembered entries ranked by meaning besides the store's word matches. */
const recentExperiences = 200;

export type FormalizeMode = 'auto' | 'direct' | 'two-stage';

export interface FormalizeOptions {
  readonly instruction: string;
  readonly schema: Schema;
  /** The encoder (and, unless given separately, the checker). */
  readonly model: ChatModel;
  /** The model of the semantic check (default `model`); `false` turns the check off. */
  readonly checker?: ChatModel | false;
  /**
   * The grounding check (`checkGrounding`): a spec whose values the instruction does not
   * give goes back once, then fails the sample (`ungrounded-spec`). Default true.
   */
  readonly grounding?: boolean;
  /**
   * Further trusted texts whose values count as given to the grounding check: the
   * source of the operator's policy, once policies exist. Never tool descriptions.
   */
  readonly groundingTexts?: readonly string[];
  /** Reads the spec back with this model instead of the deterministic `explainSpec`. */
  readonly decoder?: ChatModel;
  /** `two-stage` extracts the goal first, then refines it (RefineAct); `auto` does so for tool schemas. */
  readonly mode?: FormalizeMode;
  /** Independent samples for majority voting (default 1, at most 16). */
  readonly samples?: number;
  /** Samples that must yield a valid spec (default: a strict majority). */
  readonly quorum?: number;
  /** Correction rounds per sample, repairs and revisions together (default 3, at most 10). */
  readonly rounds?: number;
  /** Wall-clock "now" for the prompt and the reading (default: the current time). */
  readonly now?: string | Date;
  /** IANA time zone (default: the system's, else UTC). */
  readonly timeZone?: string;
  /** Experience memory: similar instructions' specs prime the prompt. */
  readonly memory?: ExperienceSource;
  /** Remembered specs shown as examples (default 3). */
  readonly memoryExamples?: number;
  /**
   * Ranks remembered instructions by embedding similarity (recall by meaning); without
   * it, by stemmed word overlap.
   */
  readonly memoryEmbeddings?: EmbeddingModel;
  readonly relevance?: RelevanceOptions;
  /** Encoder temperature (default 0 with one sample, 0.7 with several). */
  readonly temperature?: number;
  /** Output tokens per call (default 2,000). */
  readonly maxOutputTokens?: number;
  /** Samples run at the same time (default 4). */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: FormalizeProgress) => void;
  /** Milliseconds for latency measurements (injectable for tests). */
  readonly clock?: () => number;
}

export type AttemptStage = 'goal' | 'encode' | 'decode' | 'check';
export type AttemptOutcome =
  | 'valid'
  | 'invalid'
  /** The spec checked, but the grounding check found values the instruction does not give. */
  | 'ungrounded'
  | 'agree'
  | 'disagree'
  | 'unparseable'
  | 'ambiguous'
  | 'ok'
  | 'error';

/** One model call of the pipeline and what came of it. */
export interface FormalizeAttempt {
  /** 0-based sample. */
  readonly sample: number;
  /** The encoder round this call belongs to (0 = the first draft). */
  readonly round: number;
  readonly stage: AttemptStage;
  readonly model: string;
  readonly reply: string;
  readonly outcome: AttemptOutcome;
  /** For `encode`: every diagnostic of the reply (ranges point into `reply`). */
  readonly diagnostics: readonly Diagnostic[];
  /** For `check`: what the checker found. */
  readonly discrepancies: readonly Discrepancy[];
  /** For `check`: the reading of the spec the checker compared. */
  readonly reading?: string;
  /** For a valid `encode`: the spec's canonical text. */
  readonly spec?: string;
  readonly usage: TokenUsage;
  readonly latencyMs: number;
  /** Estimated US dollars; `null` when the model's price is unknown. */
  readonly costUsd: number | null;
  readonly retries: number;
  readonly error?: string;
  /**
   * For an `unparseable` or `ambiguous` reply: why it could not be read (an encoder
   * reply holding several different candidate specs, a checker reply without a verdict).
   */
  readonly problem?: string;
}

export interface SampleOutcome {
  readonly sample: number;
  readonly ok: boolean;
  /** Canonical text of the sample's spec. */
  readonly text?: string;
  readonly spec?: Spec;
  readonly failure?: FormalizeFailure;
  /** Correction rounds used. */
  readonly rounds: number;
  /**
   * Two-stage mode: why stage 1's goal analysis could not be read (after one reminder);
   * stage 2 then refined the instruction itself. Absent when stage 1 worked or did not run.
   */
  readonly goalProblem?: string;
}

/** One group of the vote: samples whose specs mean the same (`meaningKey`), shown as the earliest. */
export interface VotedSpec {
  readonly text: string;
  readonly spec: Spec;
  readonly votes: number;
  readonly samples: readonly number[];
}

export interface Formalization {
  /** The spec with the most votes (ties: the earliest sample). */
  readonly spec: Spec;
  /** Its canonical text. */
  readonly text: string;
  /** Every distinct spec, most votes first. */
  readonly specs: readonly VotedSpec[];
  /** Per sample, its spec or `undefined`: what `MajoritySession` takes. */
  readonly members: readonly (Spec | undefined)[];
}

export interface PromptReport {
  readonly mode: 'direct' | 'two-stage';
  /** The predicates the prompt shows. */
  readonly predicates: readonly string[];
  readonly totalPredicates: number;
  readonly filtered: boolean;
  /** Ids of the remembered specs shown as examples. */
  readonly experiences: readonly number[];
  /**
   * The first encoder request as built for every sample (in the two-stage mode with a
   * placeholder where stage 1's goal analysis goes).
   */
  readonly system: string;
  readonly user: string;
}

export interface FormalizeReport {
  readonly instruction: string;
  readonly schemaId: string;
  readonly model: string;
  readonly now: string;
  readonly timeZone: string;
  readonly prompt: PromptReport;
  readonly samples: readonly SampleOutcome[];
  readonly attempts: readonly FormalizeAttempt[];
  readonly usage: TokenUsage;
  readonly costUsd: number | null;
  readonly latencyMs: number;
}

export type FormalizeResult =
  | {
      readonly ok: true;
      readonly value: Formalization;
      /** Warnings of the chosen spec. */
      readonly diagnostics: readonly Diagnostic[];
      readonly report: FormalizeReport;
    }
  | {
      readonly ok: false;
      readonly value?: undefined;
      readonly failure: FormalizeFailure;
      /** The diagnostics of the last attempt of the first failed sample. */
      readonly diagnostics: readonly Diagnostic[];
      readonly report: FormalizeReport;
    };

export type FormalizeProgress =
  | {
      readonly kind: 'call';
      readonly sample: number;
      readonly round: number;
      readonly stage: AttemptStage;
    }
  | { readonly kind: 'attempt'; readonly attempt: FormalizeAttempt }
  | { readonly kind: 'sample'; readonly outcome: SampleOutcome };

interface Context {
  readonly options: FormalizeOptions;
  readonly schema: Schema;
  readonly instruction: string;
  readonly now: string | Date;
  readonly timeZone: string;
  readonly mode: 'direct' | 'two-stage';
  readonly selection: PredicateSelection;
  readonly shown: ReadonlySet<string>;
  readonly experiences: readonly PromptExperience[];
  readonly rounds: number;
  readonly temperature: number;
  readonly maxOutputTokens: number;
  readonly checker: ChatModel | false;
  /** What the grounding check compares the spec's values with; undefined: no check. */
  readonly grounding: GroundingSources | undefined;
  /** The worked examples of the schema's kind. */
  readonly examples: readonly WorkedExample[];
  readonly clock: () => number;
  readonly attempts: FormalizeAttempt[];
}

class SampleFailure extends Error {
  constructor(
    readonly code: FormalizeFailureCode,
    message: string,
  ) {
    super(message);
  }
}

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

/** A model's reply quoted in a message: one line, bounded, control characters shown as spaces. */
export function excerpt(text: string, limit = 300): string {
  const line = text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (line === '') return 'empty';
  return JSON.stringify(line.length > limit ? `${line.slice(0, limit - 1)}…` : line);
}

/** The system's IANA time zone (`TZ`, the OS setting), or UTC when the runtime has none. */
export function systemTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

/** Predicate names a spec uses, in its rules and guards. */
export function predicatesOf(spec: Spec): string[] {
  const names = new Set<string>();
  for (const rule of spec.rules) {
    for (const pattern of rule.states) names.add(pattern.predicate.name);
    if (rule.action) names.add(rule.action.predicate.name);
  }
  for (const guard of spec.guards) names.add(guard.pattern.predicate.name);
  return [...names];
}

async function recall(
  options: FormalizeOptions,
  instruction: string,
): Promise<{
  experiences: { id: number; prompt: PromptExperience }[];
  boosts: Map<string, number>;
}> {
  const boosts = new Map<string, number>();
  const experiences: { id: number; prompt: PromptExperience }[] = [];
  if (!options.memory) return { experiences, boosts };
  const shown = options.memoryExamples ?? 3;
  let found: readonly Experience[];
  try {
    const query = { schemaId: options.schema.id, outcome: 'success' as const };
    const matched = await options.memory.search(instruction, {
      ...query,
      limit: Math.max(shown, 8),
    });
    const recent = options.memory.list
      ? await options.memory.list({ ...query, limit: recentExperiences })
      : [];
    // Entries found by a shared word stay; the rest must be similar in meaning.
    found = await rankByMeaning(instruction, [...matched, ...recent], {
      keep: new Set(matched.map((entry) => entry.id)),
      ...(options.memoryEmbeddings ? { embeddings: options.memoryEmbeddings } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch {
    // Memory only primes the prompt; without it the formalizer works cold.
    return { experiences, boosts };
  }
  for (const experience of found) {
    // A remembered spec is shown only if it still checks against today's schema.
    const checked = checkSpec(experience.spec, options.schema);
    if (!checked.ok) continue;
    for (const name of predicatesOf(checked.value)) boosts.set(name, (boosts.get(name) ?? 0) + 1);
    if (experiences.length < shown) {
      experiences.push({
        id: experience.id,
        prompt: { instruction: experience.instruction, spec: canonicalSpecText(checked.value) },
      });
    }
  }
  return { experiences, boosts };
}

async function call(
  context: Context,
  model: ChatModel,
  request: {
    purpose: ModelPurpose;
    sample: number;
    round: number;
    system: string;
    messages: readonly ChatMessage[];
    temperature: number;
    responseSchema?: ChatRequest['responseSchema'];
  },
): Promise<{ response?: ChatResponse; error?: ModelError; latencyMs: number }> {
  context.options.onProgress?.({
    kind: 'call',
    sample: request.sample,
    round: request.round,
    stage: request.purpose,
  });
  const started = context.clock();
  try {
    const response = await model.generate({
      system: request.system,
      messages: request.messages,
      temperature: request.temperature,
      maxOutputTokens: context.maxOutputTokens,
      purpose: request.purpose,
      sample: request.sample,
      ...(request.responseSchema ? { responseSchema: request.responseSchema } : {}),
      ...(context.options.signal ? { signal: context.options.signal } : {}),
    });
    return { response, latencyMs: context.clock() - started };
  } catch (error) {
    const modelError = ModelError.isInstance(error)
      ? error
      : new ModelError('provider', error instanceof Error ? error.message : String(error), {
          cause: error,
        });
    return { error: modelError, latencyMs: context.clock() - started };
  }
}

function record(
  context: Context,
  base: { sample: number; round: number; stage: AttemptStage; model: string },
  result: { response?: ChatResponse; error?: ModelError; latencyMs: number },
  details: Partial<
    Pick<
      FormalizeAttempt,
      'outcome' | 'diagnostics' | 'discrepancies' | 'reading' | 'spec' | 'problem'
    >
  > = {},
): FormalizeAttempt {
  const usage = result.response?.usage ?? noUsage;
  const model = result.response?.model ?? base.model;
  const attempt: FormalizeAttempt = {
    ...base,
    model,
    reply: result.response?.text ?? '',
    outcome: details.outcome ?? (result.error ? 'error' : 'ok'),
    diagnostics: details.diagnostics ?? [],
    discrepancies: details.discrepancies ?? [],
    ...(details.reading !== undefined ? { reading: details.reading } : {}),
    ...(details.spec !== undefined ? { spec: details.spec } : {}),
    usage,
    latencyMs: result.latencyMs,
    costUsd: result.response ? estimateCost(model, usage) : 0,
    retries: result.response?.retries ?? 0,
    ...(result.error ? { error: result.error.message } : {}),
    ...(details.problem !== undefined ? { problem: details.problem } : {}),
  };
  context.attempts.push(attempt);
  context.options.onProgress?.({ kind: 'attempt', attempt });
  return attempt;
}

function failOnError(result: { error?: ModelError }): void {
  if (!result.error) return;
  if (result.error.code === 'aborted') throw new SampleFailure('aborted', result.error.message);
  throw new SampleFailure('model-error', result.error.message);
}

/**
 * One call of a stage. A failed call is recorded with `failureDetails` and ends the
 * sample (`SampleFailure`); otherwise the result comes back with the attempt's base
 * fields, for the caller to record with its outcome.
 */
async function callStage(
  context: Context,
  model: ChatModel,
  request: Parameters<typeof call>[2],
  stage: AttemptStage,
  failureDetails: Parameters<typeof record>[3] = {},
): Promise<{
  result: Awaited<ReturnType<typeof call>>;
  base: { sample: number; round: number; stage: AttemptStage; model: string };
}> {
  const result = await call(context, model, request);
  const base = { sample: request.sample, round: request.round, stage, model: model.id };
  if (result.error) {
    record(context, base, result, failureDetails);
    failOnError(result);
  }
  return { result, base };
}

/**
 * Stage 1 of the two-stage mode: the goal analysis as canonical JSON, or why there is
 * none after one reminder (then stage 2 still refines, from the instruction itself).
 */
async function extractGoal(
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
async function semanticCheck(
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

/** One sample: draft, then repair and revise for at most `rounds` rounds. */
async function runSample(context: Context, sample: number): Promise<SampleOutcome> {
  let round = 0;
  // Ungrounded values go back once per sample, like a disagreement; a second time they fail it.
  let groundingRepaired = false;
  let goalProblem: string | undefined;
  const withGoal = (outcome: SampleOutcome): SampleOutcome =>
    goalProblem === undefined ? outcome : { ...outcome, goalProblem };
  try {
    const stageOne = context.mode === 'two-stage' ? await extractGoal(context, sample) : undefined;
    const goal = stageOne && 'text' in stageOne ? stageOne.text : undefined;
    if (stageOne && 'problem' in stageOne) goalProblem = stageOne.problem;
    // The refinement guidance stays when stage 1 failed: the mode that runs is the one reported.
    const system = encoderSystemPrompt(
      context.mode === 'two-stage' ? 'refine' : 'direct',
      context.examples,
    );
    const messages: ChatMessage[] = [
      {
        role: 'user',
        content: encoderUserPrompt({
          instruction: context.instruction,
          schema: context.schema,
          selection: context.selection,
          now: context.now,
          timeZone: context.timeZone,
          experiences: context.experiences,
          ...(goal !== undefined ? { goal } : {}),
          ...(goalProblem !== undefined ? { goalProblem } : {}),
        }),
      },
    ];
    for (round = 0; ; round++) {
      const { result, base } = await callStage(
        context,
        context.options.model,
        { purpose: 'encode', sample, round, system, messages, temperature: context.temperature },
        'encode',
      );
      const reply = result.response?.text ?? '';
      messages.push({ role: 'assistant', content: reply });
      const read = readSpecReply(reply);
      if (read.kind === 'ambiguous') {
        // Several different specs in one reply: asking again costs a round, a guess
        // could hand out the wrong one.
        const problem = `the reply holds ${read.candidates.length} different candidate specs (${read.candidates.map((candidate) => `${candidate.label} at line ${candidate.line}`).join(', ')})`;
        record(context, base, result, { outcome: 'ambiguous', problem });
        if (round >= context.rounds) {
          throw new SampleFailure(
            'invalid-spec',
            `${problem}, still after ${context.rounds} repair round${context.rounds === 1 ? '' : 's'}; none was taken.`,
          );
        }
        messages.push({ role: 'user', content: ambiguityPrompt(read.candidates) });
        continue;
      }
      // The rewritten text has the reply's length and lines: diagnostics point into the reply.
      const checked = checkSpec(read.text, context.schema);
      if (!checked.ok) {
        record(context, base, result, { outcome: 'invalid', diagnostics: checked.diagnostics });
        if (round >= context.rounds) {
          const errors = checked.diagnostics.filter(
            (diagnostic) => diagnostic.severity === 'error',
          ).length;
          throw new SampleFailure(
            'invalid-spec',
            `the spec still had ${errors} error${errors === 1 ? '' : 's'} after ${context.rounds} repair round${context.rounds === 1 ? '' : 's'}.`,
          );
        }
        messages.push({
          role: 'user',
          content: repairPrompt({
            reply,
            diagnostics: checked.diagnostics,
            schema: context.schema,
            shown: context.shown,
          }),
        });
        continue;
      }
      const spec = checked.value;
      const text = canonicalSpecText(spec);
      const ungrounded = context.grounding ? checkGrounding(spec, context.grounding) : [];
      record(context, base, result, {
        outcome: ungrounded.length > 0 ? 'ungrounded' : 'valid',
        diagnostics: [...checked.diagnostics, ...ungrounded],
        spec: text,
      });
      if (ungrounded.length > 0) {
        if (groundingRepaired || round >= context.rounds) {
          throw new SampleFailure(
            'ungrounded-spec',
            `the spec uses values the instruction does not give${groundingRepaired ? ', still after a repair' : ''}: ${ungrounded.map((diagnostic) => diagnostic.message).join(' ')}`,
          );
        }
        groundingRepaired = true;
        messages.push({
          role: 'user',
          content: groundingPrompt({ reply, diagnostics: ungrounded }),
        });
        continue;
      }
      // A spec that checks but cannot mean what it says goes back once per round while
      // rounds remain; after that it stands, with its warning.
      const meaningless = spec.warnings.filter((warning) => meaningWarnings.has(warning.code));
      const habits = habitProblems(
        spec.rules
          .filter((rule) => !rule.isDone)
          .map((rule) => ({ name: rule.head, repeats: rule.repeat !== undefined })),
      );
      if (meaningless.length + habits.length > 0 && round < context.rounds) {
        messages.push({
          role: 'user',
          content: repairPrompt({
            reply,
            diagnostics: meaningless,
            notes: habits,
            schema: context.schema,
            shown: context.shown,
          }),
        });
        continue;
      }
      if (context.checker === false)
        return finish(context, withGoal({ sample, ok: true, text, spec, rounds: round }));
      const verdict = await semanticCheck(context, context.checker, spec, sample, round);
      if (verdict.agree)
        return finish(context, withGoal({ sample, ok: true, text, spec, rounds: round }));
      if (round >= context.rounds) {
        throw new SampleFailure(
          'semantic-disagreement',
          `the checker still found discrepancies after ${context.rounds} round${context.rounds === 1 ? '' : 's'}: ` +
            verdict.discrepancies.map((discrepancy) => discrepancy.issue).join('; '),
        );
      }
      messages.push({
        role: 'user',
        content: revisionPrompt({ reading: verdict.reading, discrepancies: verdict.discrepancies }),
      });
    }
  } catch (error) {
    const failure: FormalizeFailure =
      error instanceof SampleFailure
        ? { code: error.code, message: error.message }
        : { code: 'model-error', message: error instanceof Error ? error.message : String(error) };
    return finish(context, withGoal({ sample, ok: false, failure, rounds: round }));
  }
}

function finish(context: Context, outcome: SampleOutcome): SampleOutcome {
  context.options.onProgress?.({ kind: 'sample', outcome });
  return outcome;
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

/**
 * Groups the valid samples by what their specs mean (`meaningKey`), not by spelling:
 * `Alarm`, `"Alarm"` and `alarm`, `09:00` and `09:00:00`, rules in another order or
 * with labels are one vote. A group shows its earliest sample's spec.
 */
function vote(samples: readonly SampleOutcome[]): VotedSpec[] {
  const groups = new Map<string, { text: string; spec: Spec; samples: number[] }>();
  for (const sample of samples) {
    if (!sample.ok || sample.text === undefined || sample.spec === undefined) continue;
    const key = meaningKey(sample.spec);
    const group = groups.get(key);
    if (group) group.samples.push(sample.sample);
    else groups.set(key, { text: sample.text, spec: sample.spec, samples: [sample.sample] });
  }
  return [...groups.values()]
    .map((group) => ({
      text: group.text,
      spec: group.spec,
      votes: group.samples.length,
      samples: group.samples,
    }))
    .sort(
      (left, right) => right.votes - left.votes || (left.samples[0] ?? 0) - (right.samples[0] ?? 0),
    );
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
            ...(options.groundingTexts ? { texts: options.groundingTexts } : {}),
          },
    examples,
    clock: options.clock ?? Date.now,
    attempts: [],
  };
  const promptReport: PromptReport = {
    mode,
    predicates: selection.names,
    totalPredicates: selection.total,
    filtered: selection.filtered,
    experiences: experiences.map((experience) => experience.id),
    system: encoderSystemPrompt(mode === 'two-stage' ? 'refine' : 'direct', examples),
    user: encoderUserPrompt({
      instruction,
      schema: options.schema,
      selection,
      now,
      timeZone,
      experiences: context.experiences,
      ...(mode === 'two-stage' ? { goal: '…the goal analysis of stage 1…' } : {}),
    }),
  };

  const report = (outcomes: readonly SampleOutcome[]): FormalizeReport => {
    let usage = noUsage;
    let costUsd: number | null = 0;
    for (const attempt of context.attempts) {
      usage = addUsage(usage, attempt.usage);
      costUsd = addCost(costUsd, attempt.costUsd);
    }
    return {
      instruction,
      schemaId: options.schema.id,
      model: options.model.id,
      now: typeof now === 'string' ? now : now.toISOString(),
      timeZone,
      prompt: promptReport,
      samples: outcomes,
      attempts: context.attempts,
      usage,
      costUsd,
      latencyMs: context.clock() - started,
    };
  };

  if (instruction === '' || instruction.length > formalizeLimits.maxInstructionLength) {
    const failure: FormalizeFailure = {
      code: 'invalid-input',
      message:
        instruction === ''
          ? 'the instruction is empty.'
          : `the instruction is longer than ${formalizeLimits.maxInstructionLength} characters.`,
    };
    return { ok: false, failure, diagnostics: [], report: report([]) };
  }

  const outcomes = await pool(samples, options.concurrency ?? 4, (sample) =>
    runSample(context, sample),
  );
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
    return {
      ok: false,
      failure,
      diagnostics: lastInvalid?.diagnostics ?? [],
      report: report(outcomes),
    };
  }
  return {
    ok: true,
    value: {
      spec: chosen.spec,
      text: chosen.text,
      specs,
      members: outcomes.map((outcome) => (outcome.ok ? outcome.spec : undefined)),
    },
    diagnostics: chosen.spec.warnings,
    report: report(outcomes),
  };
}
