import { type Diagnostic, diagnosticToJson } from '../../language/index.js';
import type { FormalizeRun } from './formalize-run.js';
import type { FormalizeAttempt } from './types.js';

/** Diagnostics as JSON, their file named: the model's `reply` or the printed `spec`. */
const diagnosticsJson = (diagnostics: readonly Diagnostic[], fileName: 'reply' | 'spec') =>
  diagnostics.map((diagnostic) => diagnosticToJson(diagnostic, fileName));

/** One model call as `intentguard formalize --json` shows it: sample and round 1-based. */
function attemptJson(attempt: FormalizeAttempt): Record<string, unknown> {
  return {
    sample: attempt.sample + 1,
    round: attempt.round + 1,
    stage: attempt.stage,
    model: attempt.model,
    outcome: attempt.outcome,
    reply: attempt.reply,
    ...(attempt.spec !== undefined ? { spec: attempt.spec } : {}),
    diagnostics: diagnosticsJson(attempt.diagnostics, 'reply'),
    discrepancies: attempt.discrepancies,
    ...(attempt.reading !== undefined ? { reading: attempt.reading } : {}),
    usage: attempt.usage,
    latencyMs: attempt.latencyMs,
    costUsd: attempt.costUsd,
    retries: attempt.retries,
    ...(attempt.error !== undefined ? { error: attempt.error } : {}),
    ...(attempt.problem !== undefined ? { problem: attempt.problem } : {}),
  };
}

/**
 * A run as `intentguard formalize --json` prints it (docs/formalize.md): the result,
 * every sample and attempt, usage and cost, the prompt's predicates and experiences,
 * the memory entry and the diagnostics (of the spec file, or of the last failed draft).
 * Samples and rounds count from 1.
 */
export function formalizeRunJson(
  run: FormalizeRun,
  where: {
    /** The schema as the user named it (a file name). */
    readonly schema: string;
    /** The experience memory's entry of the spec, when it was remembered. */
    readonly memory?: { readonly entry: number; readonly outcome: string };
  },
): Record<string, unknown> {
  const { result } = run;
  const { report } = result;
  return {
    ok: result.ok,
    ...(result.ok ? { spec: run.specFile } : { failure: result.failure }),
    instruction: run.instruction,
    schema: where.schema,
    schemaId: report.schemaId,
    model: report.model,
    mode: report.prompt.mode,
    now: report.now,
    timeZone: report.timeZone,
    specs: result.ok
      ? result.value.specs.map((voted) => ({
          spec: voted.text,
          votes: voted.votes,
          samples: voted.samples.map((sample) => sample + 1),
        }))
      : [],
    samples: report.samples.map((sample) => ({
      sample: sample.sample + 1,
      ok: sample.ok,
      rounds: sample.rounds,
      ...(sample.failure ? { failure: sample.failure } : {}),
      ...(sample.goalProblem !== undefined ? { goalProblem: sample.goalProblem } : {}),
    })),
    attempts: report.attempts.map(attemptJson),
    usage: report.usage,
    costUsd: report.costUsd,
    latencyMs: report.latencyMs,
    prompt: {
      predicates: report.prompt.predicates.length,
      totalPredicates: report.prompt.totalPredicates,
      filtered: report.prompt.filtered,
      experiences: report.prompt.experiences,
    },
    memory: where.memory ?? null,
    diagnostics: result.ok
      ? diagnosticsJson(run.warnings, 'spec')
      : diagnosticsJson(result.diagnostics, 'reply'),
  };
}
