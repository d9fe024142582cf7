import { describedAs } from '../engine/describe.js';
import type { IntentSession } from '../engine/intent-session.js';
import { loadEngineParts } from '../engine/load-parts.js';
import { Session } from '../engine/session.js';
import type { ObservationResult, SessionOptions } from '../engine/session-types.js';
import type { Verdict } from '../engine/verdict.js';
import { type ArgumentProblem, argumentError, describeArgument } from '../language/arguments.js';
import type { Spec } from '../language/checker/spec.js';
import type { Schema } from '../language/schema-model.js';
import { toolPredicate } from '../language/schema-model.js';
import { formatDateTime } from '../language/temporal.js';
import { errorMessage } from '../support/error-message.js';
import type { PersonContext } from './person-prompt.js';
import { renderForModel, renderForPerson, unshowableCall } from './render.js';
import { type GuardParts, toolResultReader } from './tool-result-reader.js';
import type {
  Guard,
  GuardAction,
  GuardCallState,
  GuardDecision,
  GuardEvent,
  GuardJournal,
  GuardOptions,
  GuardStatus,
  JournalEvent,
  ToolCall,
  ToolOutcome,
} from './types.js';

/** What a journal's replay reads of a guard beyond its public methods: its schema. */
export interface ReplayView {
  readonly schema: Schema | undefined;
}

interface CallRecord {
  readonly call: ToolCall;
  readonly proposal: Record<string, unknown>;
  /** The call as identity: a framework that reuses an id for another call is refused. */
  readonly fingerprint: string;
  decision: GuardDecision;
  state: GuardCallState;
  /** The session commit of the allowed call, to roll back if the tool fails. */
  commit: number | undefined;
  /** The answer to `result`, so that reporting twice gives the same answer. */
  outcome: ObservationResult | undefined;
}

export const finishId = '#finish';
const maxIdLength = 256;

/** JSON text of a value, or undefined when it has none (cycles, BigInt, a throwing toJSON). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** A copy the host cannot change afterwards; values that have no JSON stay as given (the session refuses them). */
function copyOf(value: unknown): unknown {
  const text = jsonOf(value);
  return text === undefined ? value : (JSON.parse(text) as unknown);
}

const guardOptionNames = new Set(['mode', 'render', 'onEvent', 'finishWaitsForResults', 'task']);

export function sessionOptionsOf(options: GuardOptions): SessionOptions {
  const session: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    if (!guardOptionNames.has(name)) session[name] = value;
  }
  return session as SessionOptions;
}

export function checkGuardOptions(options: unknown): GuardOptions {
  if (options === undefined || options === null) return {};
  if (typeof options !== 'object' || Array.isArray(options))
    throw argumentError('createGuard', {
      parameter: 'options',
      expected: 'an options object or undefined',
      actual: describeArgument(options),
    });
  const given = options as GuardOptions;
  if (given.mode !== undefined && given.mode !== 'enforce' && given.mode !== 'shadow')
    throw argumentError('createGuard', {
      parameter: 'options.mode',
      expected: "'enforce' or 'shadow'",
      actual: describeArgument(given.mode),
    });
  if (given.finishWaitsForResults !== undefined && typeof given.finishWaitsForResults !== 'boolean')
    throw argumentError('createGuard', {
      parameter: 'options.finishWaitsForResults',
      expected: 'true, false or undefined',
      actual: describeArgument(given.finishWaitsForResults),
    });
  if (given.task !== undefined && typeof given.task !== 'string')
    throw argumentError('createGuard', {
      parameter: 'options.task',
      expected: "the text of the user's task, or undefined",
      actual: describeArgument(given.task),
    });
  for (const name of ['render', 'onEvent'] as const) {
    if (given[name] !== undefined && typeof given[name] !== 'function')
      throw argumentError('createGuard', {
        parameter: `options.${name}`,
        expected: 'a function',
        actual: describeArgument(given[name]),
      });
  }
  return given;
}

/**
 * The host-facing core over a session (ARCHITECTURE.md layer 6): tool calls with ids,
 * several pending approvals, results and failures, and a journal to persist and restore.
 */
export class IntentGuard implements Guard {
  readonly #session: IntentSession;
  readonly #schema: Schema | undefined;
  /** Reads a tool's output as its result; undefined where the schema declares no result. */
  readonly #readResult: ReturnType<typeof toolResultReader>;
  /** The parts its session was given (tool-result-reader.ts). */
  readonly #parts: GuardParts;
  readonly #mode: 'enforce' | 'shadow';
  readonly #render: (verdict: Verdict) => string;
  readonly #onEvent: ((event: GuardEvent) => void) | undefined;
  readonly #waitForResults: boolean;
  readonly #task: string | undefined;
  readonly #calls = new Map<string, CallRecord>();
  readonly #events: JournalEvent[] = [];
  readonly #now: string;
  readonly #timeZone: string;
  /** Set while a journal is replayed: no events reach the host again. */
  #restoring = false;

  /**
   * Over a spec (a session with undo records, so that a failed call rolls back), or over
   * a session the host made: the one that stands in for a missing spec (create-guard.ts: a failed
   * formalization refuses everything), or a `MajoritySession` of several specs. A page's
   * guard always has a spec, so it never loads the stand-in.
   */
  constructor(source: Spec | IntentSession, options: GuardOptions) {
    this.#mode = options.mode ?? 'enforce';
    this.#render = options.render ?? renderForModel;
    this.#onEvent = options.onEvent;
    this.#waitForResults = options.finishWaitsForResults !== false;
    this.#task = options.task;
    const given = options.parts ?? {};
    // Its own copy where a final answer's parts may be loaded later (`prepareAnswer`): the
    // session reads them from it, and no other guard sees them.
    this.#parts =
      given.answerCheck !== undefined && given.confusables !== undefined ? given : { ...given };
    this.#session =
      'propose' in source
        ? source
        : new Session(source, {
            ...sessionOptionsOf(options),
            parts: this.#parts,
            rollback: true,
          });
    this.#schema = this.#session.schema;
    this.#readResult =
      this.#schema === undefined ? undefined : toolResultReader(this.#schema, this.#parts);
    // The clock is fixed once, so that a restored guard decides exactly as this one.
    this.#now = formatDateTime(this.#session.clock.dateTime);
    this.#timeZone = this.#session.clock.timeZone;
  }

  check(call: ToolCall): GuardDecision {
    const read = readCall(call);
    // A call the guard cannot even identify is refused as it is: nothing is recorded,
    // journaled or reported, and no mode lets it run (there is no id to follow it by).
    if (!read.ok) return this.#decision(read.id, malformedVerdict(read.problem), 'refuse');
    const { id, name, proposal } = read;
    const text = jsonOf(proposal);
    const fingerprint = text ?? `unreadable:${id}`;
    const known = this.#calls.get(id);
    if (known) {
      if (known.fingerprint === fingerprint) return this.#repeated(known);
      return this.#decision(
        id,
        invalidVerdict(
          `The call id '${id}' was already used for another call; every call needs its own id.`,
        ),
      );
    }
    const verdict = this.#session.propose(proposal, id);
    // Arguments with no JSON (a BigInt, a cycle) are refused; the journal keeps a stand-in
    // the session refuses the same way, so that the journal stays JSON and replays.
    const journaled =
      text === undefined ? { action: { name, args: 'arguments that are not JSON' } } : proposal;
    this.#journal({ propose: journaled, id, expect: { decision: verdict.decision } });
    const record: CallRecord = {
      call: {
        id,
        name,
        args: (proposal.action as { args: unknown }).args,
        ...(proposal.updates !== undefined ? { updates: proposal.updates } : {}),
        ...(proposal.objective !== undefined ? { objective: proposal.objective as string } : {}),
      },
      proposal,
      fingerprint,
      decision: this.#decision(id, verdict, undefined, {
        name,
        args: (proposal.action as { args: unknown }).args,
      }),
      state: stateOf(verdict),
      commit: this.#commitOf(verdict),
      outcome: undefined,
    };
    this.#calls.set(id, record);
    if (this.#mode === 'shadow' && verdict.decision === 'confirm') this.#resolve(record, true);
    // A question that cannot show every argument the spec asks about is not asked (C1).
    if (record.state === 'asked' && record.decision.prompt.startsWith(unshowableCall)) {
      record.state = 'denied';
      this.#session.resolve(false, id);
      this.#journal({ resolve: { approved: false }, id });
      record.decision = {
        ...record.decision,
        action: 'refuse',
        message: `intentguard: refused. This call needs the user's approval, and it has more arguments that need their attention than one question can show, so nobody was asked. Split the work into calls with fewer such arguments. ${verdict.feedback}`,
      };
    }
    this.#emit({ kind: 'decision', call, decision: record.decision });
    return record.decision;
  }

  approve(id: string, approved: boolean): GuardDecision {
    const record = this.#record(id, 'approve');
    if (record.state !== 'asked') return this.#repeated(record);
    if (approved !== true) {
      record.state = 'denied';
      this.#session.resolve(false, id);
      this.#journal({ resolve: { approved: false }, id });
      record.decision = {
        ...record.decision,
        action: 'refuse',
        message: `intentguard: the user declined this call. ${record.decision.verdict.feedback} Do not make it again; ask the user how to go on, or continue with the rest of the task.`,
      };
    } else {
      // The session keeps the call's confirmation by its id, however many calls came
      // since; it checks the call again if the state changed since it was asked.
      this.#resolve(record, true);
    }
    this.#emit({ kind: 'approval', id, approved: approved === true, decision: record.decision });
    return record.decision;
  }

  result(id: string, outcome: ToolOutcome): ObservationResult {
    const record = this.#record(id, 'result');
    if (record.outcome) return record.outcome;
    if (
      typeof outcome !== 'object' ||
      outcome === null ||
      !('output' in outcome || 'error' in outcome)
    )
      throw argumentError('Guard.result', {
        parameter: 'outcome',
        expected: '{ output } or { error }',
        actual: describeArgument(outcome),
      });
    if (record.state !== 'running') {
      // A refused or unanswered call did not run as far as the guard knows: nothing to observe.
      return {
        ok: false,
        problems: [
          {
            code: 'call-not-run',
            message: `the call '${id}' was not allowed to run (${record.state})`,
          },
        ],
        ignored: [],
        status: this.#session.status(),
      };
    }
    let answer: ObservationResult;
    if ('error' in outcome) {
      record.state = 'failed';
      const rolledBack =
        record.commit !== undefined ? this.#session.rollback(record.commit) : false;
      this.#journal({ fail: { id } });
      answer = { ok: true, problems: [], ignored: [], status: this.#session.status() };
      this.#emit({ kind: 'result', id, ok: false, rolledBack });
    } else {
      record.state = 'done';
      const observation =
        this.#schema === undefined
          ? undefined
          : this.#readResult?.(this.#schema, record.call.name, outcome.output, record.call.args);
      if (observation) {
        answer = this.#session.observe(observation);
        this.#journal({ observe: observation, id });
      } else answer = { ok: true, problems: [], ignored: [], status: this.#session.status() };
      this.#emit({ kind: 'result', id, ok: true, rolledBack: false });
    }
    record.outcome = answer;
    return answer;
  }

  /**
   * For a restore: the result of call `id` as its journal line holds it — the observation
   * read from the tool's output when it came — applied as it is, nothing read again.
   */
  restoreResult(id: string, observation: { readonly updates: unknown }): void {
    const record = this.#calls.get(id);
    // Anything else writes no journal line, and the replay reports the mismatch.
    if (record === undefined || record.outcome !== undefined || record.state !== 'running') return;
    record.state = 'done';
    record.outcome = this.#session.observe(observation);
    this.#journal({ observe: observation, id });
  }

  observe(updates: unknown): ObservationResult {
    const observation = { updates: copyOf(updates) };
    const answer = this.#session.observe(observation);
    this.#journal({ observe: observation });
    this.#emit({ kind: 'observation', ok: answer.ok });
    return answer;
  }

  async prepareAnswer(): Promise<void> {
    const parts = this.#parts;
    if (parts.answerCheck !== undefined && parts.confusables !== undefined) return;
    const loaded = await loadEngineParts(['answerCheck', 'confusables']);
    // Filled in place: the session holds this object (a copy made for it, see the constructor).
    Object.assign(parts, {
      answerCheck: parts.answerCheck ?? loaded.answerCheck,
      confusables: parts.confusables ?? loaded.confusables,
    });
  }

  finish(answer?: string): GuardDecision {
    // An allowed call is provisional until its result: a task that is done only thanks to
    // a call that may still fail is not done yet.
    const running = [...this.#calls.values()].filter((record) => record.state === 'running');
    if (this.#waitForResults && running.length > 0) {
      const names = running.map((record) => `${record.call.name} (${record.call.id})`).join(', ');
      const message = `The results of ${names} have not come yet; finish when they have.`;
      const decision = this.#decision(finishId, {
        ...invalidVerdict(message),
        reasons: [{ code: 'premature-finish', message }],
      });
      this.#emit({ kind: 'finish', decision });
      return decision;
    }
    // A non-text answer is passed on as given: the session refuses it as invalid.
    const proposal = answer === undefined ? { finish: true } : { finish: true, answer };
    const verdict = this.#session.propose(proposal);
    this.#journal({ propose: proposal, id: finishId, expect: { decision: verdict.decision } });
    const decision = this.#decision(finishId, verdict);
    this.#emit({ kind: 'finish', decision });
    return decision;
  }

  call(id: string): ToolCall | undefined {
    const call = typeof id === 'string' ? this.#calls.get(id)?.call : undefined;
    return call === undefined ? undefined : (copyOf(call) as ToolCall);
  }

  decision(id: string): GuardDecision | undefined {
    return typeof id === 'string' ? this.#calls.get(id)?.decision : undefined;
  }

  state(id: string): GuardCallState | undefined {
    return typeof id === 'string' ? this.#calls.get(id)?.state : undefined;
  }

  status(): GuardStatus {
    const pendingIds: string[] = [];
    const runningIds: string[] = [];
    for (const [id, record] of this.#calls) {
      if (record.state === 'asked') pendingIds.push(id);
      else if (record.state === 'running') runningIds.push(id);
    }
    return { ...this.#session.status(), pendingIds, runningIds };
  }

  roadmap(): string {
    return this.#session.roadmap();
  }

  journal(): GuardJournal {
    return {
      version: 1,
      now: this.#now,
      timeZone: this.#timeZone,
      events: this.journalSince(0),
    };
  }

  journalSince(from: number): readonly JournalEvent[] {
    const start = Number.isSafeInteger(from) && from > 0 ? from : 0;
    return this.#events.slice(start).map((event) => copyOf(event) as JournalEvent);
  }

  journalLength(): number {
    return this.#events.length;
  }

  /**
   * Runs a journal's replay (journal-replay.ts, for restoreGuard) with what it needs of
   * the guard's state, and no event reaching the host again.
   */
  restoring(replay: (view: ReplayView) => void): void {
    this.#restoring = true;
    try {
      replay({ schema: this.#schema });
    } finally {
      this.#restoring = false;
    }
  }

  /**
   * The answer to a call asked about again. While it is pending (asked, or allowed and
   * its result not in) that is the recorded decision: a host that lost an answer may ask
   * again. Once its result is in, or it failed and was rolled back, the id is spent: a
   * `run` now would run the tool again without a commit (a second payment the session
   * never counted, G1). The retry of a failed call is a new call with a new id, checked
   * and committed again. Not journaled: a restored guard answers the same.
   */
  #repeated(record: CallRecord): GuardDecision {
    if (record.state !== 'done' && record.state !== 'failed') return record.decision;
    const id = record.call.id;
    const message =
      record.state === 'done'
        ? `The call '${id}' has already run and its result is recorded; a call id stands for one run of a tool, so it does not run again. To make the same call again, give it a new id: it is then checked again.`
        : `The call '${id}' failed and was rolled back; a call id stands for one run of a tool, so it does not run again. To retry it, give it a new id: the retry is checked again.`;
    return this.#decision(id, {
      ...invalidVerdict(message),
      // Hosts tell this refusal apart by `expected` / `actual` (docs/guard.md).
      reasons: [
        {
          code: 'invalid-proposal',
          message,
          expected: 'a new call id',
          actual: record.state === 'done' ? 'already executed' : 'rolled back',
        },
      ],
    });
  }

  #resolve(record: CallRecord, approved: boolean): void {
    const resolution = this.#session.resolve(approved, record.call.id);
    this.#journal({ resolve: { approved }, id: record.call.id });
    if (resolution.committed) {
      record.state = 'running';
      record.commit = this.#session.lastCommit();
      record.decision = {
        ...record.decision,
        action: 'run',
        message: 'intentguard: approved by the user.',
      };
    } else {
      const verdict = resolution.verdict ?? record.decision.verdict;
      record.state = 'refused';
      record.decision = this.#decision(record.call.id, verdict, 'refuse');
    }
  }

  #record(id: string, method: string): CallRecord {
    const record = typeof id === 'string' ? this.#calls.get(id) : undefined;
    if (!record)
      throw argumentError(`Guard.${method}`, {
        parameter: 'id',
        expected: 'the id of a call the guard has checked',
        actual:
          typeof id === 'string' ? `the unknown id '${id.slice(0, 80)}'` : describeArgument(id),
      });
    return record;
  }

  #commitOf(verdict: Verdict): number | undefined {
    return verdict.decision === 'allow' ? this.#session.lastCommit() : undefined;
  }

  #decision(
    id: string,
    verdict: Verdict,
    forced?: GuardAction,
    call: Pick<ToolCall, 'name' | 'args'> | undefined = this.#calls.get(id)?.call,
  ): GuardDecision {
    const action: GuardAction =
      forced ??
      (this.#mode === 'shadow'
        ? 'run'
        : verdict.decision === 'allow'
          ? 'run'
          : verdict.decision === 'confirm'
            ? 'ask'
            : 'refuse');
    return {
      id,
      action,
      verdict,
      message: verdict.decision === 'allow' ? 'intentguard: allowed.' : this.#render(verdict),
      prompt:
        verdict.decision === 'confirm'
          ? renderForPerson(call?.name ?? id, call?.args, verdict, this.#personContext(call?.name))
          : '',
    };
  }

  /** The words a person reads a call in: its tool's description, the user's task. */
  #personContext(name: string | undefined): PersonContext {
    const tool =
      this.#schema !== undefined && name !== undefined
        ? toolPredicate(this.#schema, name)
        : undefined;
    return { action: tool && describedAs(tool), task: this.#task };
  }

  #journal(event: JournalEvent): void {
    this.#events.push(event);
  }

  #emit(event: GuardEvent): void {
    if (this.#restoring || !this.#onEvent) return;
    try {
      this.#onEvent(event);
    } catch {
      // An audit hook that fails must not change a decision.
    }
  }
}

function stateOf(verdict: Verdict): GuardCallState {
  if (verdict.decision === 'allow') return 'running';
  if (verdict.decision === 'confirm') return 'asked';
  return 'refused';
}

/** A verdict for a call the guard refuses before the engine sees it. */
function invalidVerdict(message: string): Verdict {
  return {
    decision: 'revise',
    severity: 'hard',
    reasons: [{ code: 'invalid-proposal', message }],
    performs: [],
    achieved: {},
    done: false,
    feedback: message,
  };
}

/** A call the guard can decide: its id and name, and the proposal it makes (a copy). */
type ReadCall =
  | {
      readonly ok: true;
      readonly id: string;
      readonly name: string;
      readonly proposal: Record<string, unknown>;
    }
  | { readonly ok: false; readonly id: string; readonly problem: ArgumentProblem };

/**
 * Reads a call as the framework handed it over. What the model or the framework wrote
 * is data, never a reason to throw: anything the guard cannot identify (no usable id or
 * name, not an object, a getter that throws) comes back as the problem to refuse it for.
 */
function readCall(call: unknown): ReadCall {
  const candidate = call as Partial<ToolCall> | null;
  if (typeof candidate !== 'object' || candidate === null)
    return malformed('', 'call', 'a tool call { id, name, args }', call);
  try {
    const { id, name } = candidate;
    const shownId = typeof id === 'string' ? id : '';
    if (typeof id !== 'string' || id === '' || id.length > maxIdLength)
      return malformed(
        shownId,
        'call.id',
        `a non-empty string of at most ${maxIdLength} characters`,
        id,
      );
    if (id === finishId)
      return malformed(id, 'call.id', `an id other than '${finishId}' (reserved for finish)`, id);
    if (typeof name !== 'string' || name === '')
      return malformed(id, 'call.name', 'the tool name (a non-empty string)', name);
    const { updates, objective } = candidate;
    const proposal: Record<string, unknown> = {
      action: { name, args: copyOf(candidate.args ?? {}) },
      ...(updates !== undefined ? { updates: copyOf(updates) } : {}),
      ...(objective !== undefined ? { objective } : {}),
    };
    return { ok: true, id, name, proposal };
  } catch (error) {
    return {
      ok: false,
      id: '',
      problem: {
        parameter: 'call',
        expected: 'a tool call that can be read',
        actual: `one that throws (${errorMessage(error).slice(0, 200)})`,
      },
    };
  }
}

function malformed(id: string, parameter: string, expected: string, value: unknown): ReadCall {
  return { ok: false, id, problem: { parameter, expected, actual: describeArgument(value) } };
}

/** The refusal of a call the guard could not read (`invalid-proposal`, with what was expected). */
function malformedVerdict(problem: ArgumentProblem): Verdict {
  const message = `This call cannot be checked: its ${problem.parameter} must be ${problem.expected}, not ${problem.actual}. Make the call again with that fixed.`;
  return {
    ...invalidVerdict(message),
    reasons: [
      { code: 'invalid-proposal', message, expected: problem.expected, actual: problem.actual },
    ],
  };
}
