import { randomUUID } from 'node:crypto';
import { keptSize } from '../../engine/plain-data.js';
import type { ChatModel } from '../../formalize/index.js';
import { formalize } from '../../formalize/pipeline/formalize.js';
import { auditRecordOf } from '../../guard/adapter-kit/audit-record.js';
import { refusalDecision } from '../../guard/adapter-kit/index.js';
import { continueGuard } from '../../guard/create-guard.js';
import {
  createGuard,
  type Guard,
  type GuardDecision,
  type GuardJournal,
  type GuardOptions,
  restoreGuard,
  type ToolCall,
  type ToolOutcome,
} from '../../guard/index.js';
import { same } from '../../language/check-compiled-spec.js';
import {
  analyzeComposition,
  checkPolicy,
  checkSpec,
  type Diagnostic,
  renderDiagnostics,
  type Schema,
} from '../../language/index.js';
import { loadStateSchema, loadToolSchema } from '../../schema/index.js';
import { sessionRecordFields } from '../../store/journal-anchor.js';
import {
  type AuditRecord,
  JournalTamperedError,
  type ServiceStore,
  type SessionCatchUp,
  type SessionStep,
  type StoredJournal,
  type StoredSession,
  TooManySessionsError,
} from '../../store/service-store.js';
import { errorMessage } from '../../support/error-message.js';
import { IntentguardError } from '../../support/errors.js';
import { type ServiceMemoryLimits, serviceMemoryLimits } from './memory-budget.js';

/** A failure the client caused or can act on: an HTTP status and a problem body. */
export class ServiceProblem extends IntentguardError {
  static override readonly marker = 'intentguard.error.ServiceProblem';
  static readonly errorName = 'IntentguardServiceProblem';
  override readonly name = ServiceProblem.errorName;

  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 429 | 500 | 503,
    code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super({ code, message });
  }
}

export interface CreateSessionInput {
  readonly spec?: string | undefined;
  readonly instruction?: string | undefined;
  readonly states?: unknown;
  readonly tools?: unknown;
  readonly now?: string | undefined;
  readonly timeZone?: string | undefined;
  readonly mode?: 'enforce' | 'shadow' | undefined;
  readonly finishWaitsForResults?: boolean | undefined;
  /** The session's own policy text (LANGUAGE.md §8); see `SessionsOptions.policy`. */
  readonly policy?: string | undefined;
}

interface LiveSession {
  readonly stored: StoredSession;
  readonly guard: Guard;
  /** Journal events already in the store. */
  persisted: number;
  /** Audit records the guard emitted since the last write. */
  readonly pending: AuditRecord[];
  finished: boolean;
  /** The last write of this session: resolves true once committed, false when it failed. */
  lastWrite?: Promise<boolean> | undefined;
  /** Characters it holds in memory: spec, schema, journal (memory-budget.ts). */
  held: number;
  /** When a request last used it (ms): idle sessions may be dropped from memory. */
  used: number;
  /** Mutations under way: a session is dropped from memory only when none is. */
  busy: number;
}

/**
 * The guard options a session's row keeps (`optionsJson`). The policy's text is one of
 * them: the row, and so the audit log's record of its creation, says which rules the
 * session was decided under, and a restart restores it with those, whatever policy the
 * service is started with then.
 */
interface StoredOptions {
  mode?: 'enforce' | 'shadow';
  finishWaitsForResults?: boolean;
  policy?: string;
  /** The instruction the spec was formalized from: the task a person approving reads. */
  task?: string;
}

function loadSchema(kind: 'states' | 'tools', text: string): Schema {
  const result =
    kind === 'states' ? loadStateSchema(text, { id: kind }) : loadToolSchema(text, { id: kind });
  if (!result.ok) {
    throw new ServiceProblem(
      422,
      'invalid-schema',
      `the ${kind} schema could not be loaded: ${renderDiagnostics(result.diagnostics, undefined, { fileName: kind, color: false })}`,
    );
  }
  return result.value;
}

/**
 * The decision a check gets when the service itself failed: refuse (fail closed). The
 * client hears that the service failed, never how (that goes to the log).
 */
export function internalRefusal(id: string): GuardDecision {
  return refusalDecision(id, { code: 'unchecked', reason: 'an internal error of the service' });
}

/** The call as it was checked (name and arguments), from the journal. */
function callOf(guard: Guard, id: string): { name: unknown; args: unknown } | undefined {
  const call = guard.call(id);
  return call && { name: call.name, args: call.args };
}

/** Characters a session's row holds in memory: its spec, its schema and its options (the policy). */
function storedCharacters(stored: StoredSession): number {
  return (stored.specText?.length ?? 0) + stored.schemaJson.length + stored.optionsJson.length;
}

/** A spec or policy that does not check: 422 with its diagnostics, located in its own text. */
function notChecking(
  what: 'spec' | 'policy',
  diagnostics: readonly Diagnostic[],
  source: string,
  origin = '',
): ServiceProblem {
  return new ServiceProblem(
    422,
    `invalid-${what}`,
    `the ${what}${origin} has errors:\n${renderDiagnostics(diagnostics, source, { fileName: what, color: false })}`,
  );
}

/** Finished sessions kept in memory (older ones are read from the store when asked for). */
const maxFinishedInMemory = 256;

/** Sessions of a shared store one approvals list reads (the newest waiting). */
const maxApprovalSessions = 200;

export interface SessionsOptions {
  readonly store: ServiceStore;
  readonly model?: ChatModel | undefined;
  readonly log: (line: string) => void;
  /** What the sessions in memory may hold (default: `serviceMemoryLimits()`). */
  readonly memory?: ServiceMemoryLimits | undefined;
  /** How long an open session goes unused before it may be dropped from memory (default 60 s). */
  readonly idleMs?: number | undefined;
  /**
   * The service's policy text (`serve --policy`, LANGUAGE.md §8): every session is decided
   * under it. A session that names another policy is refused (403) unless
   * `allowSessionPolicy`; without a service policy, a session may name its own.
   */
  readonly policy?: string | undefined;
  /** Lets a session's own `policy` take the place of the service's. */
  readonly allowSessionPolicy?: boolean | undefined;
  /**
   * The schema the service's policy was written over (`serve --tools/--states`). A session
   * decided under that policy must declare each of its predicates as it does: otherwise a
   * client could send the host's facts as predicates it may set itself (not `observed`), or
   * a tool as not critical, and meet the policy's conditions with its own claims.
   */
  readonly policySchema?: Schema | undefined;
}

/**
 * The service's sessions: live guards over the store. Every mutation writes the new
 * journal events and audit records before it returns; a restart restores each open
 * session from its journal, deciding exactly as before.
 */
export class Sessions {
  readonly #store: ServiceStore;
  readonly #model: ChatModel | undefined;
  readonly #log: (line: string) => void;
  readonly #live = new Map<string, LiveSession>();
  /** Sessions being read from the store, so that concurrent requests restore one copy. */
  readonly #loading = new Map<string, Promise<LiveSession | undefined>>();
  readonly #finished: string[] = [];
  readonly #memory: ServiceMemoryLimits;
  /** Characters the sessions in `#live` hold together. */
  #held = 0;
  readonly #idleMs: number;
  readonly #policy: string | undefined;
  readonly #allowSessionPolicy: boolean;
  readonly #policySchema: Schema | undefined;

  constructor(options: SessionsOptions) {
    this.#store = options.store;
    this.#model = options.model;
    this.#log = options.log;
    this.#memory = options.memory ?? serviceMemoryLimits();
    this.#idleMs = options.idleMs ?? 60_000;
    this.#policy = options.policy;
    this.#allowSessionPolicy = options.allowSessionPolicy ?? false;
    this.#policySchema = options.policySchema;
  }

  /** A session under the service's policy declares the predicates it was written over as they are. */
  #requirePolicySchema(schema: Schema): void {
    for (const [name, declared] of this.#policySchema?.predicates ?? []) {
      const own = schema.predicates.get(name);
      if (own === undefined || !same(own, declared))
        throw new ServiceProblem(
          422,
          'invalid-policy',
          `the session's schema ${own === undefined ? 'lacks' : 'declares otherwise'} '${name}', which the policy of the service (--policy) was written over; declare it as the service's --tools/--states do`,
        );
    }
  }

  /**
   * The policy a new session is decided under: the service's, or the session's own where
   * there is none or the service allows it. A session cannot drop the service's policy:
   * naming another one is 403 unless the service was started to allow it (the same text
   * is no change and is accepted).
   */
  #policyFor(
    input: CreateSessionInput,
  ): { text: string; origin: string; service?: boolean } | undefined {
    const own = input.policy;
    if (this.#policy === undefined)
      return own === undefined ? undefined : { text: own, origin: '' };
    if (own === this.#policy)
      return { text: own, origin: ' of the service (--policy)', service: true };
    if (own === undefined)
      return { text: this.#policy, origin: ' of the service (--policy)', service: true };
    if (!this.#allowSessionPolicy)
      throw new ServiceProblem(
        403,
        'forbidden',
        'this service decides every session under its own policy (--policy); a session may name another only when it is started with --allow-session-policy',
      );
    return { text: own, origin: '' };
  }

  /** Keeps a live session in memory, counted. */
  #hold(live: LiveSession): void {
    this.#drop(this.#live.get(live.stored.id));
    this.#live.set(live.stored.id, live);
    this.#held += live.held;
  }

  /** Drops a live session from memory (the file keeps it: the next request restores it). */
  #drop(live: LiveSession | undefined): void {
    if (live === undefined || this.#live.get(live.stored.id) !== live) return;
    this.#live.delete(live.stored.id);
    this.#held -= live.held;
  }

  /** A session that takes no more work: finished, or holding `maxSessionText`. */
  #spent(live: LiveSession): boolean {
    return live.finished || live.held >= this.#memory.maxSessionText;
  }

  /**
   * Makes room for `need` more characters within `maxServiceText` (S1), dropping
   * sessions from memory (the file keeps them): first those that take no more work,
   * then open ones unused for `idleMs`, least recently used first — but not one waiting
   * for a person's approval (the approvals page lists it). Sessions in use stay: when
   * that is not enough, the request is refused (503), and the service stays up.
   */
  #makeRoom(need: number, keep?: LiveSession): void {
    const max = this.#memory.maxServiceText;
    if (this.#held + need <= max) return;
    const idleSince = Date.now() - this.#idleMs;
    const idle = [...this.#live.values()]
      .filter(
        (live) =>
          live !== keep &&
          live.busy === 0 &&
          (this.#spent(live) ||
            (live.used <= idleSince && live.guard.status().pendingIds.length === 0)),
      )
      .sort((a, b) => Number(this.#spent(b)) - Number(this.#spent(a)) || a.used - b.used);
    for (const live of idle) {
      if (this.#held + need <= max) return;
      this.#drop(live);
    }
    if (this.#held + need > max) {
      throw new ServiceProblem(
        503,
        'over-capacity',
        `the service holds as much session data as it may (${max} characters, --max-service-text); try again later`,
      );
    }
  }

  /**
   * Restores the open sessions the store gives a starting service (each checked against
   * the audit log: all of an SQLite file's; none of a shared store's, whose sessions are
   * read, and checked, when a request asks for them); a session that no longer restores
   * is logged and skipped.
   */
  async restoreAll(): Promise<{ restored: number; failed: number }> {
    let restored = 0;
    let failed = 0;
    const open = await this.#store.restorable();
    let deferred = 0;
    for (const stored of open) {
      // Within the memory budget: the others are restored when asked for (S1).
      if (this.#held + this.#memory.maxSessionText > this.#memory.maxServiceText) {
        deferred++;
        continue;
      }
      try {
        this.#restore(stored, await this.#store.journal(stored));
        restored++;
      } catch (error) {
        failed++;
        this.#log(`session ${stored.id} could not be restored: ${errorMessage(error)}`);
      }
    }
    if (deferred > 0)
      this.#log(
        `${deferred} open session${deferred === 1 ? '' : 's'} left in the store (--max-service-text); restored when asked for`,
      );
    return { restored, failed };
  }

  #guardOptions(stored: StoredSession, pending: AuditRecord[]): GuardOptions {
    const options = JSON.parse(stored.optionsJson) as StoredOptions;
    return {
      ...options,
      onEvent: (event) => {
        pending.push(auditRecordOf(stored.id, event));
      },
    };
  }

  /** A live guard for a session as stored, replayed from its journal, held in memory. */
  #restore(stored: StoredSession, storedJournal: StoredJournal): LiveSession {
    const schema = loadSchema(stored.schemaKind, stored.schemaJson);
    // Read from the store unchecked: restoreGuard checks every event before replaying it.
    const journal = storedJournal as GuardJournal;
    const pending: AuditRecord[] = [];
    const guard = restoreGuard(
      stored.specText ?? undefined,
      schema,
      journal,
      this.#guardOptions(stored, pending),
    );
    const live: LiveSession = {
      stored,
      guard,
      persisted: journal.events.length,
      pending,
      finished: stored.finished,
      held: storedCharacters(stored) + keptSize(journal.events),
      // Unused until a request uses it (`get`): one restored at start may make room.
      used: 0,
      busy: 0,
    };
    this.#hold(live);
    return live;
  }

  /** A new session, unless the token has `maxOpen` open ones (429, counted in the store). */
  async create(
    tokenHash: string,
    input: CreateSessionInput,
    maxOpen?: number,
  ): Promise<{ id: string; live: LiveSession }> {
    const kind = input.tools !== undefined ? 'tools' : 'states';
    // Tools and the host's states together are kept as the one-file schema (FORMATS.md §1).
    const schemaJson = JSON.stringify(
      input.tools !== undefined && input.states !== undefined
        ? { tools: input.tools, states: input.states }
        : (input.tools ?? input.states),
    );
    const schema = loadSchema(kind, schemaJson);
    const now = input.now ?? new Date().toISOString();
    const timeZone = input.timeZone ?? 'UTC';
    let specText: string | null;
    let formalized: Record<string, unknown> | undefined;
    const policy = this.#policyFor(input);
    if (policy?.service) this.#requirePolicySchema(schema);
    // Fail closed: a policy that does not check against this session's schema creates no session.
    if (policy !== undefined) {
      const checked = checkPolicy(policy.text, schema);
      if (!checked.ok) throw notChecking('policy', checked.diagnostics, policy.text, policy.origin);
    }
    if (input.spec !== undefined) {
      const checked = checkSpec(input.spec, schema);
      if (!checked.ok) throw notChecking('spec', checked.diagnostics, input.spec);
      if (policy !== undefined) {
        // Checked together: each side's objectives its own (shared-objective, foreign-objective).
        const pair = analyzeComposition(input.spec, policy.text, schema);
        const errors = (diagnostics: readonly Diagnostic[]) =>
          diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
        if (errors(pair.intent).length > 0)
          throw notChecking('spec', errors(pair.intent), input.spec);
        if (errors(pair.policy).length > 0)
          throw notChecking('policy', errors(pair.policy), policy.text, policy.origin);
      }
      specText = input.spec;
    } else {
      if (this.#model === undefined) {
        throw new ServiceProblem(
          422,
          'no-model',
          'this service was started without a model; send the spec text (`spec`) instead of an instruction',
        );
      }
      const result = await formalize({
        instruction: input.instruction ?? '',
        schema,
        model: this.#model,
        now,
        timeZone,
      });
      // Without a valid spec the session refuses everything (fail closed).
      specText = result.ok ? result.value.text : null;
      formalized = { ok: result.ok, spec: specText };
    }
    const options: StoredOptions = {
      ...(input.mode !== undefined ? { mode: input.mode } : {}),
      ...(input.finishWaitsForResults !== undefined
        ? { finishWaitsForResults: input.finishWaitsForResults }
        : {}),
      ...(policy !== undefined ? { policy: policy.text } : {}),
      ...(input.instruction !== undefined ? { task: input.instruction } : {}),
    };
    const stored: StoredSession = {
      id: randomUUID(),
      tokenHash,
      specText,
      schemaKind: kind,
      schemaJson,
      optionsJson: JSON.stringify(options),
      now,
      timeZone,
      createdAt: new Date().toISOString(),
      finished: false,
    };
    const pending: AuditRecord[] = [];
    let guard: Guard;
    try {
      guard = createGuard(specText ?? undefined, schema, {
        ...this.#guardOptions(stored, pending),
        now,
        timeZone,
      });
    } catch (error) {
      throw new ServiceProblem(422, 'invalid-session', errorMessage(error));
    }
    const journal = guard.journal();
    const withClock: StoredSession = { ...stored, now: journal.now, timeZone: journal.timeZone };
    await this.#created(withClock, maxOpen, [
      {
        session: stored.id,
        kind: 'session',
        body: {
          // Everything of the row a restore depends on, so that it is checked against this (G2).
          ...sessionRecordFields(withClock),
          ...(input.instruction !== undefined
            ? { instruction: input.instruction, formalized }
            : {}),
        },
      },
    ]);
    const live: LiveSession = {
      stored: withClock,
      guard,
      persisted: 0,
      pending,
      finished: false,
      held: storedCharacters(withClock),
      used: Date.now(),
      busy: 0,
    };
    this.#makeRoom(live.held);
    this.#hold(live);
    return { id: stored.id, live };
  }

  /** Stores a new session within the token's cap: over it, 429 and nothing stored. */
  async #created(
    stored: StoredSession,
    maxOpen: number | undefined,
    audit: readonly AuditRecord[],
  ): Promise<void> {
    try {
      await this.#store.createSession(stored, audit, maxOpen);
    } catch (error) {
      if (error instanceof TooManySessionsError)
        throw new ServiceProblem(429, error.code, error.message);
      throw error;
    }
  }

  /**
   * The session if `tokenHash` created it; otherwise 404 (another token's session does
   * not exist for it). `undefined` is an approver token's view: any token's session (S3).
   * `fresh`: for a read of a shared store, the copy in memory is first compared with the
   * store and read again when another instance wrote the session since (mutations catch
   * up under the session's lock instead: `update`).
   */
  async get(tokenHash: string | undefined, id: string, fresh = false): Promise<LiveSession> {
    let live = this.#live.get(id);
    if (live !== undefined && fresh && this.#store.shared) {
      const state = await this.#store.state(id);
      if (state?.events !== live.persisted || state.finished !== live.finished) {
        this.#drop(live);
        live = undefined;
      }
    }
    live ??= await this.#load(tokenHash, id);
    if (live === undefined || (tokenHash !== undefined && live.stored.tokenHash !== tokenHash)) {
      throw new ServiceProblem(404, 'unknown-session', `there is no session '${id.slice(0, 80)}'`);
    }
    live.used = Date.now();
    return live;
  }

  /** Reads a session from the store into memory, once for concurrent requests. */
  #load(tokenHash: string | undefined, id: string): Promise<LiveSession | undefined> {
    const loading = this.#loading.get(id);
    if (loading !== undefined) return loading;
    const load = (async () => {
      const stored = await this.#store.session(id);
      if (stored === undefined || (tokenHash !== undefined && stored.tokenHash !== tokenHash))
        return undefined;
      this.#makeRoom(this.#memory.maxSessionText);
      try {
        return this.#restore(stored, await this.#store.journal(stored));
      } catch (error) {
        this.#log(`session ${id} could not be restored: ${errorMessage(error)}`);
        throw new ServiceProblem(
          503,
          'session-unavailable',
          `the session '${id}' could not be restored`,
        );
      }
    })().finally(() => this.#loading.delete(id));
    this.#loading.set(id, load);
    return load;
  }

  /**
   * A mutation within the memory budget (S1): a session that holds `maxSessionText`
   * takes no more work — it fails closed, for good, since what it holds only grows and a
   * restore counts the same — and when the sessions in memory hold `maxServiceText`, idle
   * ones are dropped from memory or the request is refused (503).
   */
  async #mutate<T>(
    live: LiveSession,
    operation: (guard: Guard) => T,
    finishes?: (answer: T) => boolean,
  ): Promise<T> {
    this.#makeRoom(0, live);
    live.busy++;
    try {
      return await this.#apply(live, operation, finishes);
    } finally {
      live.busy--;
    }
  }

  /**
   * Runs a mutation through the store's `update`, which serializes it with every other
   * mutation of the session (in any instance) and resolves once what it wrote is
   * committed; the answer is sent only then. When the store holds journal events this
   * copy does not (another instance wrote them), the mutation runs on the session as
   * stored. A failed mutation or commit forgets the live guard (the store has the last
   * good state) and fails the request.
   */
  async #apply<T>(
    live: LiveSession,
    operation: (guard: Guard) => T,
    finishes?: (answer: T) => boolean,
  ): Promise<T> {
    const before = live.lastWrite;
    const id = live.stored.id;
    let current = live;
    let wrote = false;
    const update = this.#store.update(
      id,
      () => {
        // The newest copy this process holds: another request may have caught it up since.
        current = this.#live.get(id) ?? current;
        return current.persisted;
      },
      (behind) => {
        if (behind !== undefined) current = this.#caughtUp(current, behind);
        const step = this.#step(current, operation, finishes);
        wrote = step.write !== undefined;
        return step;
      },
    );
    const settled = update.then(
      () => true,
      () => false,
    );
    live.lastWrite = settled;
    let answer: T;
    try {
      answer = await update;
    } catch (error) {
      if (error instanceof ServiceProblem) throw error;
      this.#forget(current);
      if (error instanceof JournalTamperedError) {
        // Caught up on a session whose stored journal the audit log does not vouch for.
        this.#log(`session ${live.stored.id} could not be restored: ${error.message}`);
        throw new ServiceProblem(
          503,
          'session-unavailable',
          `the session '${live.stored.id}' could not be restored`,
        );
      }
      throw error;
    }
    current.lastWrite = settled;
    // The guard journals only what it also reports as an event: nothing written (a
    // repeated check, say) — but the answer may rest on a write still waiting for its
    // commit, so it waits for that one.
    if (!wrote && before !== undefined && !(await before)) {
      this.#forget(current);
      throw new Error(`an earlier write of session ${live.stored.id} failed`);
    }
    if (current.finished && wrote && finishes !== undefined) {
      // Finished sessions stay readable (restored from the store on demand); memory keeps the recent ones.
      this.#finished.push(current.stored.id);
      if (this.#finished.length > maxFinishedInMemory) {
        const oldest = this.#finished.shift();
        if (oldest !== undefined) this.#drop(this.#live.get(oldest));
      }
    }
    return answer;
  }

  /**
   * One mutation on the guard, under the session's lock: the answer, and the journal
   * events and audit records it adds. A session that holds `maxSessionText` takes no
   * more work — it fails closed, for good, since what it holds only grows and a restore
   * counts the same (S1).
   */
  #step<T>(
    live: LiveSession,
    operation: (guard: Guard) => T,
    finishes?: (answer: T) => boolean,
  ): SessionStep<T> {
    if (live.finished) {
      throw new ServiceProblem(
        409,
        'session-finished',
        `the session '${live.stored.id}' has finished`,
      );
    }
    if (live.held >= this.#memory.maxSessionText) {
      throw new ServiceProblem(
        409,
        'session-full',
        `the session '${live.stored.id}' holds ${live.held} characters of calls and results, as much as a session may (${this.#memory.maxSessionText}, --max-session-text); it takes no more calls or results`,
      );
    }
    if (live.persisted < 0) throw new Error(`the copy of session ${live.stored.id} was dropped`);
    live.pending.length = 0;
    let answer: T;
    try {
      answer = operation(live.guard);
    } catch (error) {
      // The guard may be half-way through a change: the caller forgets it, and a length
      // no row has makes whoever still holds it catch up from the store instead.
      live.pending.length = 0;
      live.persisted = -1;
      throw error;
    }
    const finishedNow = finishes?.(answer) ?? false;
    if (live.pending.length === 0 && !finishedNow) return { answer };
    const from = live.persisted;
    const fresh = live.guard.journalSince(from);
    const grown = keptSize(fresh);
    live.held += grown;
    if (this.#live.get(live.stored.id) === live) this.#held += grown;
    const audit = live.pending.splice(0);
    live.persisted = from + fresh.length;
    if (finishedNow) live.finished = true;
    return {
      answer,
      write: {
        from,
        events: fresh,
        audit,
        finished: finishedNow,
        awaiting: live.guard.status().pendingIds.length,
      },
    };
  }

  /**
   * A copy that is behind the store (another instance wrote the session since), caught
   * up: the events it lacks replayed on it, or — given the whole session — replaced by
   * the session as stored. One that does not replay fails closed: 503, and the copy is
   * never used again.
   */
  #caughtUp(behindCopy: LiveSession, stored: SessionCatchUp): LiveSession {
    const id = behindCopy.stored.id;
    try {
      let live: LiveSession;
      if ('events' in stored) {
        if (stored.from !== behindCopy.persisted)
          throw new Error(
            `the store's events start at ${stored.from}, the copy holds ${behindCopy.persisted}`,
          );
        live = behindCopy;
        live.persisted = -1; // until the replay is through: half-way, it is no copy of the session
        continueGuard(live.guard, stored.events);
        live.persisted = stored.from + stored.events.length;
        live.finished = stored.finished;
        const grown = keptSize(stored.events);
        live.held += grown;
        if (this.#live.get(id) === live) this.#held += grown;
      } else live = this.#restore(stored.session, stored.journal);
      live.used = Date.now();
      // The copy may now hold more than before: within the budget (S1).
      this.#makeRoom(0, live);
      return live;
    } catch (error) {
      if (error instanceof ServiceProblem) throw error;
      behindCopy.persisted = -1;
      this.#drop(behindCopy);
      this.#log(`session ${id} could not be restored: ${errorMessage(error)}`);
      throw new ServiceProblem(
        503,
        'session-unavailable',
        `the session '${id}' could not be restored`,
      );
    }
  }

  /** Drops a live guard whose memory may differ from the store; the next request restores it. */
  #forget(live: LiveSession): void {
    this.#drop(live);
  }

  /** Checks one call; any failure refuses it (fail closed) and is logged. */
  async check(live: LiveSession, call: ToolCall): Promise<GuardDecision> {
    const [decision] = await this.checkMany(live, [call]);
    return decision ?? internalRefusal(call.id);
  }

  /**
   * Checks calls in order, as if sent one by one, with one write for all of them (an
   * agent's parallel tool calls). When anything fails, every call of the batch is
   * refused: none of their decisions was committed.
   */
  async checkMany(live: LiveSession, calls: readonly ToolCall[]): Promise<GuardDecision[]> {
    try {
      return await this.#mutate(live, (guard) =>
        calls.map((call) => {
          const before = live.pending.length;
          const decision = guard.check(call);
          // An id reused for another call is refused without a journal event: audit it still.
          if (live.pending.length === before && decision !== guard.decision(call.id)) {
            live.pending.push(auditRecordOf(live.stored.id, { kind: 'decision', call, decision }));
          }
          return decision;
        }),
      );
    } catch (error) {
      if (error instanceof ServiceProblem) throw error;
      this.#log(
        `check of ${calls.length === 1 ? `call ${JSON.stringify(calls[0]?.id).slice(0, 100)}` : `${calls.length} calls`} in session ${live.stored.id} failed; refused: ${errorMessage(error)}`,
      );
      return calls.map((call) => internalRefusal(call.id));
    }
  }

  /** Inside a mutation (so that a call another instance checked is known). */
  #known(guard: Guard, id: string): void {
    if (guard.decision(id) === undefined) {
      throw new ServiceProblem(
        404,
        'unknown-call',
        `the session has checked no call '${id.slice(0, 80)}'`,
      );
    }
  }

  approve(live: LiveSession, id: string, approved: boolean): Promise<GuardDecision> {
    return this.#mutate(live, (guard) => {
      this.#known(guard, id);
      return guard.approve(id, approved);
    });
  }

  result(live: LiveSession, id: string, outcome: ToolOutcome) {
    return this.#mutate(live, (guard) => {
      this.#known(guard, id);
      return guard.result(id, outcome);
    });
  }

  observe(live: LiveSession, updates: unknown) {
    return this.#mutate(live, (guard) => guard.observe(updates));
  }

  finish(live: LiveSession, answer?: string): Promise<GuardDecision> {
    return this.#mutate(
      live,
      (guard) => guard.finish(answer),
      (decision) => decision.action === 'run',
    );
  }

  /**
   * The session: status, spec, the user's task, every call's latest decision and the
   * calls themselves (tool and arguments: what a person reads a refusal by).
   */
  describe(live: LiveSession): Record<string, unknown> {
    const ids = new Set<string>();
    for (const event of live.guard.journal().events) {
      const id = 'propose' in event ? event.id : undefined;
      if (id !== undefined && id !== '#finish') ids.add(id);
    }
    const options = JSON.parse(live.stored.optionsJson) as StoredOptions;
    return {
      id: live.stored.id,
      createdAt: live.stored.createdAt,
      finished: live.finished,
      spec: live.stored.specText,
      policy: options.policy ?? null,
      task: options.task ?? null,
      status: live.guard.status(),
      decisions: [...ids]
        .map((id) => live.guard.decision(id))
        .filter((decision) => decision !== undefined),
      calls: [...ids].flatMap((id) => {
        const call = callOf(live.guard, id);
        return call ? [{ id, ...call }] : [];
      }),
    };
  }

  /**
   * A page of the token's sessions (every token's for `undefined`) as the store holds
   * them, whichever instance created them, newest first, described (read fresh); `next`
   * names the last one when there are more (`after` lists those). A session that cannot
   * be read now (one the audit log does not vouch for, or no room in memory) is listed
   * with its error instead of its state.
   */
  async list(
    tokenHash: string | undefined,
    limit: number,
    after?: string,
  ): Promise<{ sessions: Record<string, unknown>[]; next?: string }> {
    const listed = await this.#store.listSessions(tokenHash, limit + 1, after);
    const page = listed.slice(0, limit);
    const sessions: Record<string, unknown>[] = [];
    for (const session of page) {
      try {
        sessions.push(this.describe(await this.get(tokenHash, session.id, true)));
      } catch (error) {
        if (!(error instanceof ServiceProblem)) throw error;
        sessions.push({ ...session, error: { code: error.code, message: error.message } });
      }
    }
    const last = page.at(-1);
    return listed.length > limit && last !== undefined ? { sessions, next: last.id } : { sessions };
  }

  /**
   * Calls waiting for a person's answer, across the token's sessions: those in memory,
   * and, from a shared store, those any instance left waiting (read fresh, within the
   * memory budget: a session that does not fit is left out of this list, not an error).
   */
  async pendingApprovals(tokenHash: string | undefined): Promise<Record<string, unknown>[]> {
    let sessions: Iterable<LiveSession> = this.#live.values();
    if (this.#store.shared) {
      // What the store says waits, read fresh: memory may be behind another instance's answer.
      const waiting: LiveSession[] = [];
      for (const id of await this.#store.awaitingSessions(tokenHash, maxApprovalSessions)) {
        try {
          waiting.push(await this.get(tokenHash, id, true));
        } catch (error) {
          if (!(error instanceof ServiceProblem)) throw error;
          this.#log(`session ${id} waits for approval but is not listed: ${error.message}`);
        }
      }
      sessions = waiting;
    }
    const pending: Record<string, unknown>[] = [];
    for (const live of sessions) {
      if ((tokenHash !== undefined && live.stored.tokenHash !== tokenHash) || live.finished)
        continue;
      for (const id of live.guard.status().pendingIds) {
        const decision = live.guard.decision(id);
        if (decision) {
          pending.push({
            session: live.stored.id,
            id,
            call: callOf(live.guard, id),
            prompt: decision.prompt,
            decision,
          });
        }
      }
    }
    return pending;
  }
}
