import { closestNames, defaultLimits, failure, type Result, success } from '../language/index.js';
import { errorMessage } from '../support/error-message.js';
import { isRecord } from '../support/is-record.js';
import { findJsonAmbiguity } from './json-ambiguity.js';
import {
  type Decision,
  type ReasonCode,
  reasonCodes,
  type Severity,
  type Verdict,
} from './verdict.js';

/*
 * Traces (FORMATS.md §3): one JSON object per line, each one event of a session —
 * a proposal, an observation, an answer to a confirmation, or a failed tool call. Used
 * by `intentguard replay`, the guard's journal and the evaluation harness. Read
 * strictly: a typo must not make a check pass without checking, and a line that one
 * JSON parser reads one way and another parser another way is refused.
 */

/** What a verdict is expected to be: a decision, or the fields that must match. */
export type TraceExpectation =
  | Decision
  | {
      readonly decision?: Decision;
      readonly severity?: Severity;
      /** Compared with the first reason, the one that decided the verdict. */
      readonly code?: ReasonCode;
    };

/**
 * One line of a trace, as written. `id` is the host's id of the tool call the line
 * belongs to: on `propose` it names the proposal's commit, so that a later `fail` of that
 * id can undo it.
 */
export type TraceEvent =
  | {
      readonly propose: unknown;
      readonly id?: string;
      readonly expect?: TraceExpectation;
    }
  | {
      readonly observe: unknown;
      readonly id?: string;
      /** `{"ok": false}`: the observation is expected to be refused; absent, it must apply. */
      readonly expect?: { readonly ok: boolean };
    }
  | {
      readonly resolve: { readonly approved: boolean };
      readonly id?: string;
      /**
       * `{"committed": false}`: the approval is expected not to commit (the state changed
       * since it was asked); `{"committed": true}`: it must commit. Absent, a resolve the
       * session refuses is a failure of `--check`.
       */
      readonly expect?: { readonly committed: boolean };
    }
  /** The tool call `id` failed (an error result, or it threw): its commit is rolled back. */
  | { readonly fail: { readonly id: string } };

/** The kind of an event: the one event key its line holds. */
export type TraceEventKind = 'propose' | 'observe' | 'resolve' | 'fail';

export const traceProblemCodes = [
  /** The line is not JSON. */
  'invalid-json',
  /** A key given twice in one object, or a number no double holds. */
  'ambiguous-json',
  /** The line is JSON, but not an object. */
  'not-an-object',
  /** The line holds none of the event keys. */
  'missing-event',
  /** The line holds more than one event key. */
  'several-events',
  /** A key the line, its `expect` or its event does not know. */
  'unknown-key',
  /** `expect` is not a decision or an object of decision, severity and code. */
  'invalid-expectation',
  /** `resolve` is not `{"approved": true|false}`. */
  'invalid-resolve',
  /** `fail` is not `{"id": "…"}`. */
  'invalid-fail',
  /** An `id` that is not a non-empty string. */
  'invalid-id',
  /** A `fail` of an id no earlier `propose` line carries. */
  'unknown-call',
  /** More problems than `limits.maxDiagnostics`; the rest of the trace was not read. */
  'too-many-problems',
] as const;

export type TraceProblemCode = (typeof traceProblemCodes)[number];

/** Why a trace line cannot be read, and where. */
export interface TraceProblem {
  readonly code: TraceProblemCode;
  readonly message: string;
  /** 1-based line of the text (for `readTrace`, the position of the event). */
  readonly line: number;
  /** 1-based column of the offending key or number, when the problem has one. */
  readonly column?: number;
}

/** A trace read from text: its events, and the line each came from. */
export interface ParsedTrace {
  readonly events: readonly TraceEvent[];
  /** `lines[i]` is the 1-based line of `events[i]` (blank lines are skipped). */
  readonly lines: readonly number[];
}

const eventKeys: readonly TraceEventKind[] = ['propose', 'observe', 'resolve', 'fail'];
/** The keys each kind of line may have: a misspelt key must not be skipped silently. */
const lineKeys: Readonly<Record<TraceEventKind, readonly string[]>> = {
  propose: ['propose', 'expect', 'id'],
  observe: ['observe', 'expect', 'id'],
  resolve: ['resolve', 'expect', 'id'],
  fail: ['fail'],
};
const decisions: ReadonlySet<string> = new Set<Decision>(['allow', 'confirm', 'revise', 'reject']);

/** A problem found in a line; thrown inside the reader, caught per line. */
class LineProblem {
  constructor(
    readonly code: TraceProblemCode,
    readonly message: string,
    readonly column?: number,
  ) {}
}

function suggestKey(key: string, known: readonly string[]): string {
  const [closest] = closestNames(key, known);
  return closest === undefined ? '' : ` (did you mean "${closest}"?)`;
}

/**
 * Refuses keys outside `known`: a typo such as `"expected"` would otherwise turn an
 * expectation into nothing, and `--check` would pass without checking.
 */
function rejectUnknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  what: string,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    throw new LineProblem(
      'unknown-key',
      `unknown key "${key}" in ${what}${suggestKey(key, known)}; known keys: ${known.join(', ')}`,
    );
  }
}

function readExpectation(value: unknown): TraceExpectation {
  if (typeof value === 'string') {
    if (!decisions.has(value))
      throw new LineProblem(
        'invalid-expectation',
        '"expect" must be allow, confirm, revise or reject',
      );
    return value as Decision;
  }
  if (!isRecord(value))
    throw new LineProblem('invalid-expectation', '"expect" must be a decision or an object');
  rejectUnknownKeys(value, ['decision', 'severity', 'code'], '"expect"');
  const { decision, severity, code } = value;
  if (decision !== undefined && (typeof decision !== 'string' || !decisions.has(decision))) {
    throw new LineProblem(
      'invalid-expectation',
      'expect.decision must be allow, confirm, revise or reject',
    );
  }
  if (severity !== undefined && severity !== 'soft' && severity !== 'hard') {
    throw new LineProblem('invalid-expectation', 'expect.severity must be soft or hard');
  }
  if (
    code !== undefined &&
    (typeof code !== 'string' || !(reasonCodes as readonly string[]).includes(code))
  ) {
    throw new LineProblem(
      'invalid-expectation',
      `expect.code '${String(code)}' is not a reason code (${reasonCodes.join(', ')})`,
    );
  }
  return {
    ...(decision !== undefined ? { decision: decision as Decision } : {}),
    ...(severity !== undefined ? { severity: severity as Severity } : {}),
    ...(code !== undefined ? { code: code as ReasonCode } : {}),
  };
}

/** `{"ok": false}` (the observation must be refused) or `{"ok": true}` on an observe line. */
function readObservationExpectation(value: unknown): { readonly ok: boolean } {
  const problem = () =>
    new LineProblem('invalid-expectation', '"expect" of an observation must be {"ok": true|false}');
  if (!isRecord(value)) throw problem();
  rejectUnknownKeys(value, ['ok'], '"expect" of an observation');
  if (typeof value.ok !== 'boolean') throw problem();
  return { ok: value.ok };
}

/** `{"committed": true|false}` on a resolve line. */
function readResolveExpectation(value: unknown): { readonly committed: boolean } {
  const problem = () =>
    new LineProblem(
      'invalid-expectation',
      '"expect" of a resolve must be {"committed": true|false}',
    );
  if (!isRecord(value)) throw problem();
  rejectUnknownKeys(value, ['committed'], '"expect" of a resolve');
  if (typeof value.committed !== 'boolean') throw problem();
  return { committed: value.committed };
}

function readId(value: unknown, what: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new LineProblem('invalid-id', `${what} must be a non-empty string (a call id)`);
  }
  return value;
}

/** The one event key of a line. */
function eventKind(value: Record<string, unknown>): TraceEventKind {
  const kinds = eventKeys.filter((key) => Object.hasOwn(value, key));
  const [kind] = kinds;
  if (kinds.length > 1) {
    // Replaying one of them would silently drop the other.
    throw new LineProblem(
      'several-events',
      `a line holds one event, but this one has ${kinds.map((key) => `"${key}"`).join(' and ')}`,
    );
  }
  if (kind === undefined) {
    const suggestion = Object.keys(value)
      .map((key) => ({ key, hint: suggestKey(key, eventKeys) }))
      .find((candidate) => candidate.hint !== '');
    throw new LineProblem(
      'missing-event',
      `expected one of "propose", "observe", "resolve" or "fail"${suggestion ? `; found "${suggestion.key}"${suggestion.hint}` : ''}`,
    );
  }
  return kind;
}

/**
 * Reads one line's value as an event; `proposed` holds the ids of earlier propose lines.
 * The event is a fresh object of the known keys only.
 */
function readEvent(value: unknown, proposed: ProposedIds): TraceEvent {
  if (!isRecord(value)) throw new LineProblem('not-an-object', 'each line must be a JSON object');
  const kind = eventKind(value);
  rejectUnknownKeys(value, lineKeys[kind], `a "${kind}" line`);
  const id = value.id === undefined ? undefined : readId(value.id, '"id"');
  const withId = id === undefined ? {} : { id };
  switch (kind) {
    case 'propose': {
      const expect = value.expect === undefined ? undefined : readExpectation(value.expect);
      if (id !== undefined) proposed.add(id);
      return { propose: value.propose, ...withId, ...(expect !== undefined ? { expect } : {}) };
    }
    case 'observe':
      return {
        observe: value.observe,
        ...withId,
        ...(value.expect !== undefined ? { expect: readObservationExpectation(value.expect) } : {}),
      };
    case 'resolve': {
      const resolve = value.resolve;
      if (!isRecord(resolve) || typeof resolve.approved !== 'boolean') {
        throw new LineProblem('invalid-resolve', '"resolve" must be {"approved": true|false}');
      }
      rejectUnknownKeys(resolve, ['approved'], '"resolve"');
      return {
        resolve: { approved: resolve.approved },
        ...withId,
        ...(value.expect !== undefined ? { expect: readResolveExpectation(value.expect) } : {}),
      };
    }
    case 'fail': {
      const fail = value.fail;
      if (!isRecord(fail) || fail.id === undefined) {
        throw new LineProblem('invalid-fail', '"fail" must be {"id": "…"} naming a call');
      }
      rejectUnknownKeys(fail, ['id'], '"fail"');
      const failed = readId(fail.id, 'fail.id');
      // Only a proposal's commit can be undone: an id nothing proposed is a broken trace.
      if (!proposed.has(failed)) {
        throw new LineProblem(
          'unknown-call',
          `fail.id "${failed}" names no call: no earlier "propose" line has this id`,
        );
      }
      return { fail: { id: failed } };
    }
  }
}

/** The ids proposed so far: by earlier lines, or before the events read (`readTrace`'s `proposedBefore`). */
interface ProposedIds {
  has(id: string): boolean;
  add(id: string): void;
}

/** Collects events and problems, stopping once the problems reach the limit. */
class TraceReader {
  readonly events: TraceEvent[] = [];
  readonly lines: number[] = [];
  readonly problems: TraceProblem[] = [];
  readonly #proposed: ProposedIds;

  constructor(proposedBefore?: (id: string) => boolean) {
    const seen = new Set<string>();
    this.#proposed =
      proposedBefore === undefined
        ? seen
        : { has: (id) => seen.has(id) || proposedBefore(id), add: (id) => seen.add(id) };
  }
  readonly #maxProblems = defaultLimits.maxDiagnostics;

  get full(): boolean {
    return this.problems.length > this.#maxProblems;
  }

  add(line: number, read: () => unknown): void {
    try {
      this.events.push(readEvent(read(), this.#proposed));
      this.lines.push(line);
    } catch (error) {
      if (!(error instanceof LineProblem)) throw error;
      if (this.problems.length === this.#maxProblems) {
        this.problems.push({
          code: 'too-many-problems',
          message: `more than ${this.#maxProblems} lines have problems; the rest of the trace was not read`,
          line,
        });
        return;
      }
      this.problems.push({
        code: error.code,
        message: error.message,
        line,
        ...(error.column !== undefined ? { column: error.column } : {}),
      });
    }
  }

  result(): Result<ParsedTrace, TraceProblem> {
    return this.problems.length > 0
      ? failure(this.problems)
      : success({ events: this.events, lines: this.lines });
  }
}

/**
 * Reads a `.jsonl` trace (FORMATS.md §3). Never throws: every line with a problem is
 * one `TraceProblem` with its line (and column, for ambiguous JSON), up to
 * `limits.maxDiagnostics`. Blank lines are skipped; a leading byte-order mark is not
 * part of the first event; `\r\n` line ends are accepted.
 *
 * @example
 * const trace = parseTrace(text);
 * if (!trace.ok) for (const problem of trace.diagnostics) console.error(`${problem.line}: ${problem.message}`);
 * else for (const event of trace.value.events) if ('propose' in event) session.propose(event.propose);
 */
export function parseTrace(text: string): Result<ParsedTrace, TraceProblem> {
  if (typeof text !== 'string') {
    return failure([
      {
        code: 'invalid-json',
        message: `parseTrace: the trace must be text, not ${typeof text}`,
        line: 1,
      },
    ]);
  }
  const reader = new TraceReader();
  // A byte-order mark (editors on Windows add one) is not part of the first event.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const rows = body.split('\n');
  for (let index = 0; index < rows.length && !reader.full; index++) {
    const raw = rows[index]!;
    if (raw.trim() === '') continue;
    reader.add(index + 1, () => {
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (error) {
        throw new LineProblem('invalid-json', `invalid JSON: ${errorMessage(error)}`);
      }
      // JSON.parse keeps the last of two equal keys and rounds long numbers: a tool's
      // parser may do otherwise, so such a line is refused rather than read as something else.
      const ambiguity = findJsonAmbiguity(raw);
      if (ambiguity) throw new LineProblem('ambiguous-json', ambiguity.message, ambiguity.column);
      return value;
    });
  }
  return reader.result();
}

/**
 * Reads trace events that are already JSON values (a journal kept as an array, a
 * request body), with the same checks as `parseTrace`; `line` in a problem is the
 * 1-based position of the event. The events returned are fresh objects. The events
 * may continue a trace read before: `proposedBefore` says which ids its lines proposed.
 */
export function readTrace(
  values: readonly unknown[],
  proposedBefore?: (id: string) => boolean,
): Result<ParsedTrace, TraceProblem> {
  if (!Array.isArray(values)) {
    return failure([
      { code: 'not-an-object', message: 'readTrace: the events must be an array', line: 1 },
    ]);
  }
  const reader = new TraceReader(proposedBefore);
  for (let index = 0; index < values.length && !reader.full; index++) {
    reader.add(index + 1, () => values[index]);
  }
  return reader.result();
}

/** One event as its line: the event key first, then `id` and `expect`. */
function eventLine(event: TraceEvent): string {
  if ('propose' in event) {
    return JSON.stringify({ propose: event.propose, id: event.id, expect: event.expect });
  }
  if ('observe' in event) {
    return JSON.stringify({ observe: event.observe, id: event.id, expect: event.expect });
  }
  if ('resolve' in event) {
    return JSON.stringify({
      resolve: { approved: event.resolve.approved },
      id: event.id,
      expect: event.expect,
    });
  }
  return JSON.stringify({ fail: { id: event.fail.id } });
}

/**
 * Writes events as a `.jsonl` trace, one line each, ending with a line break;
 * `parseTrace(formatTrace(events)).value.events` equals `events` for JSON values.
 *
 * @example
 * const text = formatTrace([{ propose: proposal, id: 'call_1' }, { fail: { id: 'call_1' } }]);
 */
export function formatTrace(events: readonly TraceEvent[]): string {
  let text = '';
  for (const event of events) text += `${eventLine(event)}\n`;
  return text;
}

function expectationFields(expectation: TraceExpectation): Exclude<TraceExpectation, Decision> {
  return typeof expectation === 'string' ? { decision: expectation } : expectation;
}

/** What differs between a verdict and an expectation; empty when it matches. */
export function expectationMismatch(verdict: Verdict, expectation: TraceExpectation): string[] {
  const { decision, severity, code } = expectationFields(expectation);
  const problems: string[] = [];
  if (decision !== undefined && verdict.decision !== decision) {
    problems.push(`decision ${verdict.decision}, expected ${decision}`);
  }
  if (severity !== undefined && verdict.severity !== severity) {
    problems.push(`severity ${verdict.severity ?? 'none'}, expected ${severity}`);
  }
  // The first reason is the one that decided the verdict.
  const actual = verdict.reasons[0]?.code;
  if (code !== undefined && actual !== code) {
    problems.push(`code ${actual ?? 'none'}, expected ${code}`);
  }
  return problems;
}

/** An expectation as `decision/severity/code`, for messages. */
export function describeExpectation(expectation: TraceExpectation): string {
  const { decision, severity, code } = expectationFields(expectation);
  return [decision, severity, code].filter((part) => part !== undefined).join('/');
}
