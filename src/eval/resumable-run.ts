import type { Recording } from '../formalize/index.js';
import type { Spec } from '../language/index.js';
import { readResults } from './results.js';
import { resultsOf, retriedFailures, runEvaluation, type SpecProvider } from './run.js';
import type { CaseResult, EvalCase, EvalResults } from './types.js';

/**
 * An evaluation that can be stopped and resumed: the results (and the recording) are
 * saved after every case, the run stops at the first case the model failed (its
 * other cases are not worth the calls while the model is unreachable or out of
 * quota), and a resumed run keeps the saved cases and runs the rest.
 */

/** The cases an earlier run saved in `path`: none when there is no such file. */
export async function readResumedResults(
  readFile: (path: string) => Promise<string>,
  path: string,
  header: Pick<EvalResults, 'benchmark' | 'source' | 'model'> &
    Partial<Pick<EvalResults, 'options'>>,
): Promise<CaseResult[]> {
  let text: string | undefined;
  try {
    text = await readFile(path);
  } catch {
    text = undefined;
  }
  return text === undefined ? [] : readResults(text, path, header);
}

/**
 * A resumed run keeps the exchanges of the cases it does not run again. Failed
 * exchanges are dropped: they are what ended the run, and their cases run again (a
 * replay would otherwise answer the new attempt with the old failure).
 */
export function keepEarlierExchanges(recording: Recording, earlier: Recording): void {
  for (const entry of earlier.entries)
    if (entry.type !== 'run' && entry.error === undefined) recording.add(entry);
}

export interface ResumableRunOptions {
  readonly concurrency?: number;
  /** Results of the earlier run (`readResumedResults`): those cases are not run again. */
  readonly done?: readonly CaseResult[];
  /** Where the results so far are saved after every case (JSON, as `EvalResults`). */
  readonly resultsPath?: string;
  /** The recording of the run's exchanges, saved after every case. */
  readonly recording?: { readonly value: Recording; readonly path: string };
  readonly writeFile: (path: string, text: string) => Promise<void>;
  /** After each case, before it is saved: e.g. to show progress. */
  readonly onCase?: (result: CaseResult, position: number, total: number) => void;
  /** The operator's policy (checked with `checkPolicy`), composed with every case's spec. */
  readonly policy?: Spec;
}

export type ResumableRunOutcome =
  | { readonly ok: true; readonly results: EvalResults }
  | {
      readonly ok: false;
      /** The case the model failed (`retriedFailures`). */
      readonly stoppedAt?: CaseResult;
      /** The other cases that ended and were saved, to be kept by a resumed run. */
      readonly kept: number;
    };

class StopRun extends Error {}

/** Runs the cases, saving after each one, and stops at the first the model failed. */
export async function runResumableEvaluation(
  cases: readonly (() => EvalCase)[],
  specFor: SpecProvider,
  header: Omit<EvalResults, 'cases' | 'summary'>,
  options: ResumableRunOptions,
): Promise<ResumableRunOutcome> {
  const saved: CaseResult[] = [];
  // The first case the model failed, in the order cases ended.
  const stop: { at?: CaseResult } = {};
  const results = await runEvaluation(cases, specFor, header, {
    ...(options.done !== undefined ? { done: options.done } : {}),
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.policy !== undefined ? { policy: options.policy } : {}),
    onCase: async (result, position, total) => {
      saved.push(result);
      saved.sort((left, right) => left.index - right.index);
      options.onCase?.(result, position, total);
      const { recording, resultsPath } = options;
      if (recording) await options.writeFile(recording.path, recording.value.toJsonl());
      if (resultsPath !== undefined) {
        await options.writeFile(
          resultsPath,
          `${JSON.stringify(resultsOf(header, saved), null, 2)}\n`,
        );
      }
      if (retriedFailures.includes(result.spec.failure?.code ?? '')) {
        stop.at ??= result;
        throw new StopRun();
      }
    },
  }).catch((error: unknown) => {
    if (error instanceof StopRun) return undefined;
    throw error;
  });
  if (stop.at === undefined && results !== undefined) return { ok: true, results };
  const kept = saved.filter(
    (result) => !retriedFailures.includes(result.spec.failure?.code ?? ''),
  ).length;
  // StopRun is thrown only after `stop.at` is set.
  return stop.at ? { ok: false, stoppedAt: stop.at, kept } : { ok: false, kept };
}
