import type { Decision, ReasonCode, Severity } from '../engine/index.js';
import type { Schema } from '../language/index.js';
import type { TaubenchScores } from './taubench-score.js';

/*
 * The evaluation harness's data: cases (an instruction, a schema, a recorded run with
 * risk labels), what the guard said at each step, and how each case scores.
 */

/** A step's ground truth: whether letting it through does the harm the case is about. */
export type StepLabel = 'safe' | 'risky';

/** Where a proposal of a recorded run comes from. */
export type StepSource =
  /** A call the agent made and the environment answered. */
  | 'executed'
  /** A call the agent only wrote into its final answer: it never ran. */
  | 'fabricated'
  /** A line of a dataset trace. */
  | 'trace'
  /** The agent saying it is done. */
  | 'finish';

export type EvalStep =
  | {
      readonly kind: 'propose';
      /** A proposal (FORMATS.md §2), given to the session as it is. */
      readonly proposal: unknown;
      readonly source: StepSource;
      /** A short name for reports: the tool, the objective, or `finish`. */
      readonly name: string;
      readonly label?: StepLabel;
      /** The host's call id: a later result or failure of the call names it. */
      readonly id?: string;
      /** 1-based line of the dataset file, for located messages. */
      readonly line?: number;
      /** For the finish: the agent's final answer, as it told the user. */
      readonly answer?: string;
      /**
       * The person had already said yes to this step in the recorded run (τ-bench: the
       * user's message just before the write): a confirmation the guard asks for is
       * then answered at once and is not an intervention.
       */
      readonly approvedByUser?: boolean;
    }
  | {
      readonly kind: 'observe';
      readonly observation: unknown;
      /** The call this is the result of: skipped when that call was refused (it did not run). */
      readonly id?: string;
      readonly line?: number;
    }
  | { readonly kind: 'fail'; readonly id: string; readonly line?: number };

/** One case: everything needed to formalize its instruction and replay its run. */
export interface EvalCase {
  /** Stable name, used for `--specs DIR/<id>.intent` and in reports. */
  readonly id: string;
  /** Position in its benchmark (ToolEmu's case index), or the dataset line. */
  readonly index: number;
  readonly instruction: string;
  readonly schema: Schema;
  /** What the schema is, for reports: toolkits, or a file name. */
  readonly schemaName: string;
  /** A spec given with the case (dataset `spec`), checked against the schema. */
  readonly spec?: string;
  /** The run-level ground truth. */
  readonly risk: StepLabel;
  /**
   * The finer label, where the benchmark has one (ToolEmu's ToolCallRisk: 0 likely
   * severe … 3 certain no risk); otherwise `risky`/`safe`.
   */
  readonly level: string;
  readonly steps: readonly EvalStep[];
  /** The session clock of the replay (and "today" for the formalizer). */
  readonly now: string;
  readonly timeZone: string;
}

/** What the guard said to one proposal of the replay. */
export interface StepVerdict {
  /** Index into the case's steps. */
  readonly step: number;
  readonly name: string;
  readonly source: StepSource;
  readonly label?: StepLabel;
  readonly decision: Decision;
  readonly severity?: Severity;
  /** The deciding reason's code and sentence. */
  readonly code?: ReasonCode;
  readonly reason: string;
  /** A `confirm` the recorded person had already approved (the step's `approvedByUser`). */
  readonly approvedByUser?: true;
}

export type RiskyOutcome =
  /** Refused or sent to confirmation at or before the first risky step. */
  | 'stopped-before'
  /** Not before, but the finish was refused: the harm happened, the run was not accepted as done. */
  | 'stopped-at-finish'
  /** An intervention only after the first risky step, and the finish was accepted. */
  | 'late'
  /** Everything allowed. */
  | 'missed';
export type SafeOutcome =
  /** Nothing refused, nothing asked. */
  | 'clean'
  /** Something was sent to the user for confirmation, nothing refused. */
  | 'confirmed'
  /** Something was refused (revise or reject), perhaps only the finish. */
  | 'refused';
/** No spec to enforce: formalization failed, or the given spec does not check. */
export type CaseOutcome = RiskyOutcome | SafeOutcome | 'no-spec';

export interface LlmUsage {
  readonly calls: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** US dollars; null when a model's price or a token count is unknown. */
  readonly costUsd: number | null;
  readonly latencyMs: number;
}

export interface CaseResult {
  readonly id: string;
  readonly index: number;
  readonly instruction: string;
  readonly schema: string;
  readonly risk: StepLabel;
  readonly level: string;
  readonly spec: {
    /** `generated`: the policy-only configuration's intent (`policyOnlyIntent`). */
    readonly source: 'formalized' | 'file' | 'dataset' | 'generated';
    readonly ok: boolean;
    /** The enforced spec's text. */
    readonly text?: string;
    readonly failure?: { readonly code: string; readonly message: string };
    /** With several samples: votes of the chosen spec, and the samples. */
    readonly votes?: number;
  };
  readonly verdicts: readonly StepVerdict[];
  /** The step scored as "the first risky call" (see docs/eval.md); null for safe runs. */
  readonly riskyStep: number | null;
  readonly outcome: CaseOutcome;
  /** Whether the outcome is what the labels ask for: risky stopped, safe not refused. */
  readonly correct: boolean;
  readonly firstIntervention: StepVerdict | null;
  readonly llm: LlmUsage;
  /** The agent's final answer, where the run has one. */
  readonly answer?: string;
}

export interface LevelSummary {
  readonly level: string;
  readonly risk: StepLabel;
  readonly cases: number;
  readonly outcomes: Readonly<Record<CaseOutcome, number>>;
}

export interface EvalSummary {
  readonly cases: number;
  readonly risky: number;
  readonly safe: number;
  readonly noSpec: number;
  readonly stoppedBefore: number;
  readonly stoppedAtFinish: number;
  readonly late: number;
  readonly missed: number;
  readonly clean: number;
  readonly confirmed: number;
  readonly refused: number;
  readonly correct: number;
  readonly levels: readonly LevelSummary[];
  readonly llm: LlmUsage;
  /** Formalization latency per case (ms): median, 90th percentile, maximum. */
  readonly latency: { readonly p50: number; readonly p90: number; readonly max: number };
}

export interface EvalResults {
  readonly version: 1;
  readonly benchmark: 'toolemu' | 'dataset' | 'taubench';
  /** The dataset file, or ToolEmu's data folder. */
  readonly source: string;
  /** The formalizer model, or `specs:DIR` / `dataset` when specs were given. */
  readonly model: string;
  readonly options: Readonly<Record<string, string | number | boolean>>;
  readonly cases: readonly CaseResult[];
  readonly summary: EvalSummary;
  /** τ-bench's own scores (`benchmark: 'taubench'`). */
  readonly taubench?: TaubenchScores;
}
