import { type GuardSource as KitGuardSource, resolveGuard } from '../../guard/adapter-kit/index.js';
import type { Guard, GuardJournal } from '../../guard/index.js';
import { IntentguardMiddlewareError } from './errors.js';

/**
 * Where the middleware's guard comes from: one `Guard` for one thread, or a function
 * that gives the guard of any thread — a new one when `journal` is undefined, else the
 * guard restored from it (`restoreGuard(spec, schema, journal)`).
 */
type GuardSource = KitGuardSource<GuardJournal | undefined>;

/** A thread's guard, and how much of its journal the thread's state holds. */
export interface ThreadGuard {
  readonly guard: Guard;
  /** The journal length last written to the thread's state. */
  written: number;
  /** The model turn whose approvals interrupted the run: its checks are ahead of the state. */
  interruptedTurn: string | undefined;
}

const maxThreads = 1000;

function eventsText(journal: GuardJournal, count = journal.events.length): string {
  return JSON.stringify(journal.events.slice(0, count));
}

/** Whether the guard's journal starts with the journal the state holds. */
function startsWith(guard: GuardJournal, state: GuardJournal | undefined): boolean {
  if (state === undefined) return true;
  return (
    guard.now === state.now &&
    guard.timeZone === state.timeZone &&
    guard.events.length >= state.events.length &&
    eventsText(guard, state.events.length) === eventsText(state)
  );
}

/**
 * The guard of each thread, consistent with the journal in the thread's checkpointed
 * state. A guard kept in memory is reused while the state holds exactly what the
 * middleware last wrote (it may be ahead only by the checks of a turn waiting for
 * approvals); otherwise — another process, a restart, a fork from an older checkpoint —
 * the guard is rebuilt from the state's journal.
 */
export class ThreadGuards {
  readonly #source: GuardSource;
  readonly #threads = new Map<string, ThreadGuard>();
  /** A single `Guard` serves the first thread it sees. */
  #plainThread: string | undefined;

  constructor(source: GuardSource) {
    this.#source = source;
  }

  /** The guard for `thread`, whose state holds `journal`, at model turn `turn` (if any). */
  bind(thread: string, journal: GuardJournal | undefined, turn?: string): ThreadGuard {
    const source = this.#source;
    if (typeof source !== 'function') return this.#bindPlain(source, thread, journal);
    const known = this.#threads.get(thread);
    if (known) {
      const current = known.guard.journal();
      const stateLength = journal?.events.length ?? 0;
      const ahead = current.events.length > stateLength;
      if (
        stateLength === known.written &&
        startsWith(current, journal) &&
        (!ahead || (turn !== undefined && known.interruptedTurn === turn))
      )
        return known;
    }
    const guard = resolveGuard(source, journal);
    const restored = guard.journal();
    if (restored.events.length !== (journal?.events.length ?? 0) || !startsWith(restored, journal))
      throw new IntentguardMiddlewareError(
        'journal-mismatch',
        journal === undefined
          ? 'The guard function was called for a new thread and returned a guard that has already decided calls: return a new guard when the journal is undefined.'
          : "The guard function did not restore the thread's journal: return restoreGuard(spec, schema, journal) when it is given one.",
      );
    const bound: ThreadGuard = {
      guard,
      written: restored.events.length,
      interruptedTurn: undefined,
    };
    this.#threads.delete(thread);
    this.#threads.set(thread, bound);
    // Dropping a thread only costs a restore from its journal the next time it is seen.
    if (this.#threads.size > maxThreads) {
      const oldest = this.#threads.keys().next().value;
      if (oldest !== undefined) this.#threads.delete(oldest);
    }
    return bound;
  }

  /** The journal to write to the thread's state: from now on, the state holds all of it. */
  written(bound: ThreadGuard): GuardJournal {
    const journal = bound.guard.journal();
    bound.written = journal.events.length;
    bound.interruptedTurn = undefined;
    return journal;
  }

  #bindPlain(guard: Guard, thread: string, journal: GuardJournal | undefined): ThreadGuard {
    if (this.#plainThread === undefined) this.#plainThread = thread;
    if (this.#plainThread !== thread)
      throw new IntentguardMiddlewareError(
        'journal-mismatch',
        `This guard serves the thread '${this.#plainThread.slice(0, 80)}', not '${thread.slice(0, 80)}': pass a function that creates or restores the guard of each thread.`,
      );
    if (!startsWith(guard.journal(), journal))
      throw new IntentguardMiddlewareError(
        'journal-mismatch',
        "The thread's journal is not this guard's history (a fork from an older checkpoint, or another guard's run): pass a function that restores the guard from the journal.",
      );
    let bound = this.#threads.get(thread);
    if (!bound) {
      bound = { guard, written: journal?.events.length ?? 0, interruptedTurn: undefined };
      this.#threads.set(thread, bound);
    }
    return bound;
  }
}
