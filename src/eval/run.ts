import type { FormalizeOptions, FormalizeProgress, FormalizeResult } from '../formalize/index.js';
import { checkSpec, type Spec } from '../language/index.js';
import { replayCase } from './replay.js';
import { noLlmUsage, scoreCase, summarize } from './score.js';
import { type TaubenchConfiguration, taubenchScores } from './taubench-score.js';
import type { CaseResult, EvalCase, EvalResults, EvalStep, LlmUsage } from './types.js';

/** The spec a case is evaluated with, and what getting it cost. */
export interface CaseSpec {
  readonly source: CaseResult['spec']['source'];
  readonly spec?: Spec;
  /**
   * The operator's policy the spec came with (a compiled composition, `intentguard
   * compile --policy`): it judges this case as `RunOptions.policy` judges every case, and
   * a case never takes both.
   */
  readonly policy?: Spec;
  readonly text?: string;
  readonly failure?: { readonly code: string; readonly message: string };
  readonly votes?: number;
  readonly llm: LlmUsage;
}

/** Where each case's spec comes from: the formalizer, a file, the dataset. */
export type SpecProvider = (evalCase: EvalCase) => Promise<CaseSpec>;

/** Checks a given spec text against the case's schema; errors make the case `no-spec`. */
export function givenSpec(
  evalCase: EvalCase,
  text: string,
  source: 'file' | 'dataset' | 'generated',
  name: string,
): CaseSpec {
  const checked = checkSpec(text, evalCase.schema);
  if (checked.ok) return { source, spec: checked.value, text, llm: noLlmUsage };
  const errors = checked.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  const first = errors[0];
  const where =
    first?.range !== undefined
      ? `${name}:${first.range.start.line}:${first.range.start.column}`
      : name;
  return {
    source,
    text,
    failure: {
      code: 'invalid-spec',
      message: `${where}: ${first?.message ?? 'the spec does not check'}${errors.length > 1 ? ` (and ${errors.length - 1} more errors)` : ''}`,
    },
    llm: noLlmUsage,
  };
}

/** The LLM usage of a formalization. */
export function formalizationUsage(result: FormalizeResult): LlmUsage {
  const report = result.report;
  return {
    calls: report.attempts.length,
    inputTokens: report.usage.inputTokens ?? 0,
    outputTokens: report.usage.outputTokens ?? 0,
    costUsd: report.costUsd,
    latencyMs: report.latencyMs,
  };
}

/**
 * Formalizes each case's instruction against its schema with the case's clock. The
 * enforced spec is the vote's winner (with one sample, the sample's spec).
 */
export function formalizingProvider(
  formalize: (options: FormalizeOptions) => Promise<FormalizeResult>,
  options: Omit<FormalizeOptions, 'instruction' | 'schema' | 'now' | 'timeZone' | 'onProgress'>,
  onProgress?: (evalCase: EvalCase, event: FormalizeProgress) => void,
): SpecProvider {
  return async (evalCase) => {
    const result = await formalize({
      ...options,
      ...(onProgress
        ? { onProgress: (event: FormalizeProgress) => onProgress(evalCase, event) }
        : {}),
      instruction: evalCase.instruction,
      schema: evalCase.schema,
      now: evalCase.now,
      timeZone: evalCase.timeZone,
    });
    const llm = formalizationUsage(result);
    if (!result.ok) {
      return {
        source: 'formalized',
        failure: { code: result.failure.code, message: result.failure.message },
        llm,
      };
    }
    return {
      source: 'formalized',
      spec: result.value.spec,
      text: result.value.text,
      votes: result.value.specs[0]?.votes ?? 1,
      llm,
    };
  };
}

/**
 * Replays and scores one case with its spec, and with the operator's policy when one is
 * given — in `options` or composed with the spec (`caseSpec.policy`; never both) —
 * (LANGUAGE.md §8: both judge every proposal). A case without a spec is `no-spec`,
 * policy or not: the product fails closed.
 */
export function evaluateCase(
  evalCase: EvalCase,
  caseSpec: CaseSpec,
  options: { readonly policy?: Spec } = {},
): CaseResult {
  // Fail closed: two policies would leave one of them silently unenforced.
  if (caseSpec.policy !== undefined && options.policy !== undefined)
    throw new TypeError(
      `case ${evalCase.id}: its spec composes its own policy; a second policy cannot judge with it`,
    );
  const policy = caseSpec.policy ?? options.policy;
  const verdicts = caseSpec.spec
    ? replayCase(evalCase, caseSpec.spec, policy !== undefined ? { policy } : {})
    : undefined;
  const score = scoreCase(evalCase, verdicts);
  const answer = evalCase.steps.findLast(
    (step): step is Extract<EvalStep, { kind: 'propose' }> =>
      step.kind === 'propose' && step.answer !== undefined,
  )?.answer;
  return {
    id: evalCase.id,
    index: evalCase.index,
    instruction: evalCase.instruction,
    schema: evalCase.schemaName,
    risk: evalCase.risk,
    level: evalCase.level,
    spec: {
      source: caseSpec.source,
      ok: caseSpec.spec !== undefined,
      ...(caseSpec.text !== undefined ? { text: caseSpec.text } : {}),
      ...(caseSpec.failure !== undefined ? { failure: caseSpec.failure } : {}),
      ...(caseSpec.votes !== undefined ? { votes: caseSpec.votes } : {}),
    },
    verdicts: verdicts ?? [],
    ...score,
    llm: caseSpec.llm,
    ...(answer !== undefined ? { answer } : {}),
  };
}

/** Formalization failures that say nothing about the spec: a resumed run tries those cases again. */
export const retriedFailures: readonly string[] = ['model-error', 'aborted'];

export interface RunOptions {
  /** Cases evaluated at the same time (default 1, at most `maxConcurrency`). */
  readonly concurrency?: number;
  /** Results of an earlier run of the same evaluation: those cases are not run again. */
  readonly done?: readonly CaseResult[];
  /** After each case (resumed or new), e.g. to save the results so far and show progress. */
  readonly onCase?: (result: CaseResult, position: number, total: number) => Promise<void> | void;
  /** The operator's policy (checked with `checkPolicy`), composed with every case's spec. */
  readonly policy?: Spec;
}

/** Cases evaluated at the same time, at most. */
export const maxConcurrency = 32;

/**
 * Evaluates the cases, `concurrency` at a time (default 1: one after another, so that
 * progress and recordings come in case order). `onCase` is called as each case ends, with
 * how many have ended; when it throws, no further case starts, the cases under way end,
 * and the first error is thrown. The results are in the order of `cases`.
 */
export async function runEvaluation(
  cases: readonly (() => EvalCase)[],
  specFor: SpecProvider,
  header: Omit<EvalResults, 'cases' | 'summary'>,
  options: RunOptions = {},
): Promise<EvalResults> {
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > maxConcurrency) {
    throw new RangeError(`concurrency must be a whole number from 1 to ${maxConcurrency}`);
  }
  const results: CaseResult[] = new Array(cases.length);
  const done = new Map((options.done ?? []).map((result) => [result.index, result]));
  let next = 0;
  let ended = 0;
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (!stopped && next < cases.length) {
      const position = next++;
      const evalCase = (cases[position] as () => EvalCase)();
      const earlier = done.get(evalCase.index);
      // A case that failed for want of the model (unreachable, interrupted) is run again.
      const reusable =
        earlier !== undefined &&
        earlier.id === evalCase.id &&
        !retriedFailures.includes(earlier.spec.failure?.code ?? '');
      const result =
        reusable && earlier
          ? earlier
          : evaluateCase(
              evalCase,
              await specFor(evalCase),
              options.policy !== undefined ? { policy: options.policy } : {},
            );
      results[position] = result;
      try {
        await options.onCase?.(result, ended++, cases.length);
      } catch (error) {
        stopped = true;
        throw error;
      }
    }
  };
  const workers = await Promise.allSettled(
    Array.from({ length: Math.min(concurrency, cases.length) }, worker),
  );
  const failed = workers.find((outcome) => outcome.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return resultsOf(header, results);
}

/**
 * The results file of `cases`: the header, the cases, their summary, and for τ-bench
 * its own scores for the configuration the header names (`options.configuration`).
 */
export function resultsOf(
  header: Omit<EvalResults, 'cases' | 'summary'>,
  cases: readonly CaseResult[],
): EvalResults {
  const configuration = header.options['configuration'];
  return {
    ...header,
    cases,
    summary: summarize(cases),
    ...(header.benchmark === 'taubench'
      ? {
          taubench: taubenchScores(
            cases,
            typeof configuration === 'string' && configuration !== ''
              ? (configuration as TaubenchConfiguration)
              : 'intent only',
          ),
        }
      : {}),
  };
}
