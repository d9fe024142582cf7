/**
 * Hard limits against hostile input, in one place. Specs come from LLMs and the
 * network, proposals from agents, observations from tools: every dimension that
 * could make parsing, checking or a session slow, recursive or unbounded in memory is
 * bounded here, and exceeding one is a diagnostic or an `invalid-proposal` verdict,
 * never a crash.
 */
export interface Limits {
  // ---- spec text (diagnostics) ----
  /** Characters of spec text accepted at all. */
  readonly maxInputLength: number;
  /** Rules plus guards in one spec. */
  readonly maxItems: number;
  /** Atoms in one rule body. */
  readonly maxBodyAtoms: number;
  /** Constraints in one predicate pattern or guard. */
  readonly maxConstraints: number;
  /** Rules one disjunctive rule stands for (`(A | B) & (C | D)` stands for 4). */
  readonly maxAlternatives: number;
  /** Nesting of list values (`[[...]]`), the only recursive construct. */
  readonly maxNestingDepth: number;
  /** Characters in one string or regex literal. */
  readonly maxStringLength: number;
  /** Characters in one identifier. */
  readonly maxIdentifierLength: number;
  /** Elements in one list value. */
  readonly maxListLength: number;
  /** Diagnostics collected before the rest are summarised in one. */
  readonly maxDiagnostics: number;

  // ---- proposals and observations (`invalid-proposal`) ----
  /** Characters of one text value in a proposal; a longer one is refused, not stored. */
  readonly maxValueLength: number;
  /** Characters of one text value in an observation (tool results can be long). */
  readonly maxObservedValueLength: number;
  /** Elements of one list value in a proposal or observation. */
  readonly maxListValueLength: number;
  /** Nesting of arrays and objects in one proposal or observation. */
  readonly maxValueDepth: number;
  /** Predicate updates in one proposal or observation. */
  readonly maxUpdates: number;
  /** Arguments or variables given for one predicate. */
  readonly maxArguments: number;

  // ---- what a session keeps and says ----
  /** Characters of an agent's value echoed back in feedback or a reason; longer ones are cut. */
  readonly maxEchoLength: number;
  /** Characters of one verdict's feedback (and roadmap); longer text is cut with a note. */
  readonly maxFeedbackLength: number;
  /** Distinct refused proposals remembered (soft repeats, escalation): a bounded LRU. */
  readonly maxRefusalMemo: number;
  /** Characters of refused proposals' fingerprints the LRU holds at most. */
  readonly maxRefusalMemoCharacters: number;
  /** History entries kept per session; older ones are dropped. */
  readonly maxHistory: number;
  /**
   * Steps one evaluation of a rule or guard with bindings may take (instances and list
   * elements tried, values compared); beyond it the join fails closed (LANGUAGE.md §7).
   */
  readonly maxJoinWork: number;
  /**
   * Instances one keyed predicate may hold (a tool's results, one per distinct
   * arguments; a states file's `key_arg_name` predicates). A proposal beyond it is
   * `invalid-proposal`; an observation beyond it cannot be recorded, so the session
   * fails closed (its state is no longer known, LANGUAGE.md §7).
   */
  readonly maxInstances: number;
  /**
   * Characters of observations one session takes in over its life (tool results and
   * app observations: each string and key its length, any other value 8). Everything
   * counts — replaced results, fields the schema does not declare, observations that do
   * not read — since a guard's journal keeps every observation to restore the session.
   * The observation that would go beyond it is not kept, and the session fails closed
   * like past `maxInstances` (S1: memory per session stays in proportion to this).
   */
  readonly maxObservedText: number;
}

export const defaultLimits: Limits = Object.freeze({
  maxInputLength: 4_000_000,
  maxItems: 20_000,
  maxBodyAtoms: 64,
  maxConstraints: 64,
  maxAlternatives: 64,
  maxNestingDepth: 8,
  maxStringLength: 4_096,
  maxIdentifierLength: 128,
  maxListLength: 1_000,
  maxDiagnostics: 100,

  maxValueLength: 100_000,
  maxObservedValueLength: 1_000_000,
  maxListValueLength: 10_000,
  maxValueDepth: 32,
  maxUpdates: 1_000,
  maxArguments: 1_000,

  maxEchoLength: 200,
  maxFeedbackLength: 8_000,
  maxRefusalMemo: 1_024,
  maxRefusalMemoCharacters: 4_000_000,
  maxHistory: 10_000,
  maxJoinWork: 100_000,
  maxInstances: 1_000,
  maxObservedText: 32_000_000,
});

/** Merges overrides into the defaults; the result is frozen. */
export function resolveLimits(overrides?: Partial<Limits>): Limits {
  if (overrides === undefined) return defaultLimits;
  return Object.freeze({ ...defaultLimits, ...overrides });
}
