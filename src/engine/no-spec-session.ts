import { defaultLimits, type Schema } from '../language/index.js';
import { type ClockInput, createClock, type SessionClock } from './clock.js';
import { appendBounded, ProposeEntry } from './history.js';
import type { IntentSession } from './intent-session.js';
import type {
  HistoryEntry,
  ObservationResult,
  ResolutionResult,
  SessionStatus,
} from './session-types.js';
import { sessionFinishedReason, type Verdict } from './verdict.js';

/** What runs when there is no valid spec: nothing critical, no finish, nothing performed. */
export class NoSpecSession implements IntentSession {
  readonly #history: HistoryEntry[] = [];
  readonly #historyLimit: number;
  #proposals = 0;
  /** Asking the user is safe without a spec too (LANGUAGE.md §7); it ends the session. */
  #asked = false;
  readonly schema: Schema | undefined;
  /** Decides nothing here; kept so that a guard's journal and a restore read the same moment. */
  readonly clock: SessionClock;

  constructor(
    schema?: Schema,
    options: {
      readonly historyLimit?: number;
      readonly now?: ClockInput;
      readonly timeZone?: string;
    } = {},
  ) {
    this.schema = schema;
    this.clock = createClock(options.now, options.timeZone ?? 'UTC');
    const limit = options.historyLimit ?? defaultLimits.maxHistory;
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`NoSpecSession: historyLimit must be a whole number >= 0, not ${limit}`);
    this.#historyLimit = limit;
  }

  get history(): readonly HistoryEntry[] {
    return this.#history;
  }

  propose(input: unknown): Verdict {
    this.#proposals++;
    if (this.#asked) return this.#recorded(finishedVerdict);
    if (isQuestion(input)) {
      this.#asked = true;
      return this.#recorded({
        decision: 'allow',
        reasons: [],
        performs: [],
        achieved: {},
        done: false,
        feedback: 'The question goes to the user; this session is over.',
      });
    }
    const message =
      'There is no valid spec for this task, so no action can be verified; ask the user to restate the task.';
    const verdict: Verdict = {
      decision: 'reject',
      reasons: [{ code: 'no-spec', message }],
      performs: [],
      achieved: {},
      done: false,
      feedback: message,
    };
    return this.#recorded(verdict);
  }

  #recorded(verdict: Verdict): Verdict {
    appendBounded(this.#history, new ProposeEntry(undefined, verdict), this.#historyLimit);
    return verdict;
  }

  observe(_input: unknown): ObservationResult {
    return { ok: true, problems: [], ignored: [], status: this.status() };
  }

  resolve(_approved: boolean): ResolutionResult {
    return {
      ok: false,
      committed: false,
      message: 'No proposal is waiting for approval.',
      status: this.status(),
    };
  }

  status(): SessionStatus {
    return {
      done: false,
      finished: this.#asked,
      ...(this.#asked ? { asked: true } : {}),
      achieved: {},
      pending: false,
      proposals: this.#proposals,
    };
  }

  roadmap(): string {
    return 'There is no valid spec for this task.';
  }

  /** Nothing is ever committed without a spec. */
  lastCommit(): undefined {
    return undefined;
  }

  rollback(_commit: number): false {
    return false;
  }
}

const finishedVerdict: Verdict = Object.freeze({
  decision: 'reject',
  reasons: Object.freeze([sessionFinishedReason]),
  performs: Object.freeze([]),
  achieved: Object.freeze({}),
  done: false,
  feedback: sessionFinishedReason.message,
}) as Verdict;

/** `{"ask": "…"}` (with a label at most): a well-formed question to the user. */
function isQuestion(input: unknown): boolean {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return false;
  const record = input as Record<string, unknown>;
  return (
    typeof record['ask'] === 'string' &&
    record['ask'].length <= defaultLimits.maxValueLength &&
    Object.keys(record).every((key) => key === 'ask' || key === 'label')
  );
}
