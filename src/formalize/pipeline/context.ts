import type { GroundingSources, Schema } from '../../language/index.js';
import { errorMessage } from '../../support/error-message.js';
import type { FormalizeFailureCode } from '../failures.js';
import {
  type ChatMessage,
  type ChatModel,
  type ChatRequest,
  type ChatResponse,
  ModelError,
  type ModelPurpose,
  noUsage,
} from '../model/model.js';
import { estimateCost } from '../model/pricing.js';
import type { PromptExperience } from '../prompts/encode.js';
import type { WorkedExample } from '../prompts/examples.js';
import type { PredicateSelection } from '../relevance.js';
import type { PolicyContext } from './policy-context.js';
import type { AttemptStage, FormalizeAttempt, FormalizeOptions } from './types.js';

/** What every step of one formalization shares: its settings, and the attempts so far. */
export interface Context {
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
  /** The operator's policy (`FormalizeOptions.policy`), checked; undefined: none. */
  readonly policy: PolicyContext | undefined;
  /** The worked examples of the schema's kind. */
  readonly examples: readonly WorkedExample[];
  readonly clock: () => number;
  readonly attempts: FormalizeAttempt[];
}

/** Ends a sample with a failure of its own (the spec, the checker); any other error is the model's. */
export class SampleFailure extends Error {
  constructor(
    readonly code: FormalizeFailureCode,
    message: string,
  ) {
    super(message);
  }
}

/** One model call of a step. */
export interface StepRequest {
  readonly purpose: ModelPurpose;
  readonly sample: number;
  readonly round: number;
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  readonly temperature: number;
  readonly responseSchema?: ChatRequest['responseSchema'];
}

/** A model call's reply or error (never thrown: it is recorded as an attempt). */
export interface CallResult {
  readonly response?: ChatResponse;
  readonly error?: ModelError;
  readonly latencyMs: number;
}

/** The fields of an attempt known before its reply is read. */
export interface AttemptBase {
  readonly sample: number;
  readonly round: number;
  readonly stage: AttemptStage;
  readonly model: string;
}

/** What reading a reply found, for its attempt. */
export type AttemptDetails = Partial<
  Pick<
    FormalizeAttempt,
    'outcome' | 'diagnostics' | 'discrepancies' | 'reading' | 'spec' | 'problem'
  >
>;

/** Calls the model, announcing the call by `onProgress` and timing it. */
export async function call(
  context: Context,
  model: ChatModel,
  request: StepRequest,
): Promise<CallResult> {
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
      : new ModelError('provider', errorMessage(error), {
          cause: error,
        });
    return { error: modelError, latencyMs: context.clock() - started };
  }
}

/** Records a call as an attempt of the report, and announces it by `onProgress`. */
export function record(
  context: Context,
  base: AttemptBase,
  result: CallResult,
  details: AttemptDetails = {},
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

/** A failed call ends the sample: `aborted` when the caller's signal stopped it. */
export function failOnError(result: CallResult): void {
  if (!result.error) return;
  if (result.error.code === 'aborted') throw new SampleFailure('aborted', result.error.message);
  throw new SampleFailure('model-error', result.error.message);
}

/**
 * One call of a stage. A failed call is recorded with `failureDetails` and ends the
 * sample (`SampleFailure`); otherwise the result comes back with the attempt's base
 * fields, for the caller to record with its outcome.
 */
export async function callStage(
  context: Context,
  model: ChatModel,
  request: StepRequest,
  stage: AttemptStage,
  failureDetails: AttemptDetails = {},
): Promise<{ result: CallResult; base: AttemptBase }> {
  const result = await call(context, model, request);
  const base = { sample: request.sample, round: request.round, stage, model: model.id };
  if (result.error) {
    record(context, base, result, failureDetails);
    failOnError(result);
  }
  return { result, base };
}
