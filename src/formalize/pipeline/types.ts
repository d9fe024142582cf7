import type { Diagnostic, Schema, Spec } from '../../language/index.js';
import type { ExperienceSource } from '../experience.js';
import type { FormalizeFailure } from '../failures.js';
import type { ChatModel, EmbeddingModel, TokenUsage } from '../model/model.js';
import type { Discrepancy } from '../prompts/feedback.js';
import type { RelevanceOptions } from '../relevance.js';

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
  /**
   * The operator's policy (LANGUAGE.md §8), as its source text: the encoder's prompt shows
   * it as what is already enforced, so that the spec does not restate it (within
   * `formalizeLimits.maxPolicyPromptLength`: a longer policy is shown without its
   * comments); every draft is checked together with it (`analyzeComposition`: an error
   * of the pair goes back for repair), the result's `diagnostics` hold the pair's warnings
   * (`policy-conflict`), and its values count as given to the grounding check. A policy
   * that does not check (`checkPolicy`) fails the run (`invalid-input`): nothing is
   * formalized under a policy that cannot run.
   */
  readonly policy?: string;
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
