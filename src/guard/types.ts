import type { ObservationResult, SessionOptions, SessionStatus } from '../engine/session-types.js';
import type { Verdict } from '../engine/verdict.js';
import type { GuardParts } from './tool-result-reader.js';

/**
 * The guard's vocabulary: what a host (an agent framework, a proxy, an app) asks, and
 * what it is told. Every integration programs against these types only.
 */

/** One tool call (or UI action) as the framework identifies it. */
export interface ToolCall {
  /** The framework's id of this call: one run of the tool (decisions are idempotent per id while it is pending). */
  readonly id: string;
  /** The tool (action predicate) name. */
  readonly name: string;
  /** The arguments, as the tool will receive them. */
  readonly args?: unknown;
  /** Anticipated state updates, for GUI actions whose effect the app declares. */
  readonly updates?: unknown;
  /** An objective the call declares it performs (narrows the action's rules). */
  readonly objective?: string | undefined;
}

/** What the host does with a call: run it, ask the person first, or refuse it. */
export type GuardAction = 'run' | 'ask' | 'refuse';

export interface GuardDecision {
  readonly id: string;
  readonly action: GuardAction;
  /** The engine's verdict behind the decision. */
  readonly verdict: Verdict;
  /** For the model: what to do next (the tool result it reads when the call is refused). */
  readonly message: string;
  /** For the person, when `action` is `ask`: what they are asked to approve. */
  readonly prompt: string;
}

/** What the guard records, for audit and telemetry (`GuardOptions.onEvent`). */
export type GuardEvent =
  | { readonly kind: 'decision'; readonly call: ToolCall; readonly decision: GuardDecision }
  | {
      readonly kind: 'approval';
      readonly id: string;
      readonly approved: boolean;
      readonly decision: GuardDecision;
    }
  | {
      readonly kind: 'result';
      readonly id: string;
      readonly ok: boolean;
      readonly rolledBack: boolean;
    }
  | { readonly kind: 'observation'; readonly ok: boolean }
  | { readonly kind: 'finish'; readonly decision: GuardDecision };

export interface GuardOptions extends Omit<SessionOptions, 'policy'> {
  /**
   * The operator's policy (LANGUAGE.md §8): a checked policy (`checkPolicy`), or its text,
   * checked against the guard's schema. Every call is judged by the spec and by it.
   */
  readonly policy?: SessionOptions['policy'] | string;
  /**
   * The parts that only some specs need (tool-result-reader.ts): `createGuard` and
   * `restoreGuard` give all of them by default; `loadCompiledGuard` loads what its spec
   * needs. A guard given none refuses a spec that needs one.
   */
  readonly parts?: GuardParts;
  /**
   * `enforce` (default) answers as the verdict says; `shadow` decides and records
   * everything but always answers `run` — for rolling a spec out on live traffic.
   */
  readonly mode?: 'enforce' | 'shadow';
  /** The model-facing text of a verdict (default: `renderForModel`). */
  readonly render?: (verdict: Verdict) => string;
  /**
   * `finish()` is refused while an allowed call has not reported its result (default
   * true): the call is provisional, and a failure would roll back what made the task done.
   * Set false for hosts that never report results (a GUI whose app observes its state).
   */
  readonly finishWaitsForResults?: boolean;
  /** Called after every decision, approval, result and observation. Must not throw. */
  readonly onEvent?: (event: GuardEvent) => void;
  /**
   * The user's task (the instruction the spec was formalized from), shown to the person
   * asked to approve a call (`GuardDecision.prompt`). `createGuard({ instruction, model })`
   * sets it.
   */
  readonly task?: string;
}

export interface GuardStatus extends SessionStatus {
  /** Calls waiting for a person's answer. */
  readonly pendingIds: readonly string[];
  /** Calls that were allowed and whose result has not come yet. */
  readonly runningIds: readonly string[];
}

/**
 * Where a call the guard has checked stands: `asked` (waiting for a person), `running`
 * (allowed, its result not in), `done` (its result is in), `refused`, `denied` (a person
 * said no, or nobody could be asked), `failed` (its tool failed; rolled back).
 */
export type GuardCallState = 'asked' | 'running' | 'done' | 'refused' | 'denied' | 'failed';

/** A tool's outcome: its output, or a failure (error result or thrown). */
export type ToolOutcome = { readonly output: unknown } | { readonly error: unknown };

/** The guard over one agent run. */
export interface Guard {
  /**
   * Decides a call before it runs. Asking twice for one id gives the same decision while
   * the call is pending; once its result or failure is reported the id is spent, and
   * asking again is refused (`invalid-proposal`): a retry needs a new id. It never throws
   * on what the model or the framework wrote: a malformed call (no usable id or name, not
   * an object) is refused (`invalid-proposal`) and changes nothing.
   */
  check(call: ToolCall): GuardDecision;
  /** A person's answer to an `ask`: approval re-checks the call against the state now. */
  approve(id: string, approved: boolean): GuardDecision;
  /**
   * The call's outcome. Success observes the output as the tool's result; failure rolls
   * back what the allowed call achieved and anticipated, so the agent may retry.
   */
  result(id: string, outcome: ToolOutcome): ObservationResult;
  /** Facts the app or environment reports. */
  observe(updates: unknown): ObservationResult;
  /**
   * The call as the guard first checked it (a copy): what a later hook, perhaps after a
   * restore, asks about again. Undefined for an id the guard has not checked.
   */
  call(id: string): ToolCall | undefined;
  /**
   * The latest decision taken for a call id, without deciding anything; undefined for an
   * unknown id. It is the record: a call that ran keeps its `run` here. Whether to run a
   * call (again) is `check`'s answer, which refuses a spent id.
   */
  decision(id: string): GuardDecision | undefined;
  /** Where a checked call stands now; undefined for an id the guard has not checked. */
  state(id: string): GuardCallState | undefined;
  /**
   * The agent says it is done: `run` (the host may end the run) only when the task is done.
   * `answer`, the agent's final answer (LANGUAGE.md §7), is checked too: an answer that
   * shows a call never made is refused (`fabricated-action`), and Done rules may read it
   * as `Answer(text)`.
   */
  finish(answer?: string): GuardDecision;
  /**
   * Loads what checking a final answer needs when the guard started without it: a page's
   * `loadCompiledGuard` loads the confusables table (look-alike names in the answer) on
   * demand. Resolves at once where it is loaded (everywhere the checker is). Until then,
   * `finish(answer)` refuses (`internal-error`, fail closed).
   */
  prepareAnswer?(): Promise<void>;
  status(): GuardStatus;
  roadmap(): string;
  /** Everything that happened, in the trace format: `restoreGuard` rebuilds the guard from it. */
  journal(): GuardJournal;
  /**
   * The journal's events from index `from` on (copies): what a host that persists the
   * journal incrementally appends after each change, without copying the whole journal.
   */
  journalSince(from: number): readonly JournalEvent[];
  /** How many events the journal holds. */
  journalLength(): number;
}

/** One journal line: a trace event (FORMATS.md §3) with the call id it belongs to. */
export type JournalEvent =
  | {
      readonly propose: Record<string, unknown>;
      readonly id?: string;
      readonly expect: { readonly decision: string };
    }
  | { readonly resolve: { readonly approved: boolean }; readonly id: string }
  | { readonly observe: { readonly updates: unknown }; readonly id?: string }
  | { readonly fail: { readonly id: string } };

export interface GuardJournal {
  readonly version: 1;
  /** The session clock and zone, so that a restore decides exactly as the original. */
  readonly now: string;
  readonly timeZone: string;
  readonly events: readonly JournalEvent[];
}
