import { createSession } from '../engine/session.js';
import { readTrace } from '../engine/trace.js';
import type { FormalizeOptions, FormalizeResult } from '../formalize/pipeline/types.js';
import { argumentError, describeArgument } from '../language/arguments.js';
import { requireCompiledFromSource } from '../language/compiled-source.js';
import { type CompiledSpecDocument, compiledSpecFormat } from '../language/compiled-spec-format.js';
import { checkPolicy, checkSpec, type Schema, type Spec, unwrap } from '../language/index.js';
import { readCompiledComposition } from '../language/read-compiled-composition.js';
import { compileRegex } from '../language/regex.js';
import { withAllGuardParts } from './all-guard-parts.js';
import { composedOptions } from './composed-options.js';
import { checkGuardOptions, IntentGuard, sessionOptionsOf } from './intent-guard.js';
import { GuardJournalError, replayJournal } from './journal-replay.js';
import type { Guard, GuardJournal, GuardOptions } from './types.js';

export { GuardJournalError };

/** What `createGuard` formalizes when it starts from the user's words (LANGUAGE.md, FORMALIZE). */
export interface GuardInstruction {
  readonly instruction: string;
  /** The model that writes the spec (`createChatModel` in `intentguard/formalize`). */
  readonly model: FormalizeOptions['model'];
  /** More formalizer options: samples, checker, memory, … */
  readonly formalize?: Omit<
    FormalizeOptions,
    'instruction' | 'schema' | 'model' | 'now' | 'timeZone'
  >;
}

function isInstruction(source: unknown): source is GuardInstruction {
  return (
    typeof source === 'object' &&
    source !== null &&
    typeof (source as GuardInstruction).instruction === 'string' &&
    'model' in source
  );
}

/**
 * Starts a guard over one agent run. `spec` is a checked spec, or spec text checked
 * against `schema` (an invalid text throws `IntentguardDiagnosticsError`), or a compiled
 * spec (`writeCompiledSpec`, FORMATS.md §8; a malformed one throws `CompiledSpecError`,
 * and `schema` is not needed); `undefined`
 * gives a guard that refuses everything (`no-spec`: fail closed). Given the user's
 * `{ instruction, model }` instead, it formalizes the instruction once (asynchronously)
 * and guards with the spec — or, when no valid spec comes out, fails closed the same way.
 *
 * @example
 * const guard = createGuard(specText, schema, { now: new Date() });
 * const decision = guard.check({ id: 'call-1', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } });
 * if (decision.action === 'run') guard.result('call-1', { output: await transfer() });
 */
export function createGuard(
  spec: Spec | CompiledSpecDocument | string | undefined,
  schema?: Schema,
  options?: GuardOptions,
): Guard;
export function createGuard(
  source: GuardInstruction,
  schema: Schema,
  options?: GuardOptions,
): Promise<Guard>;
export function createGuard(
  source: Spec | CompiledSpecDocument | string | undefined | GuardInstruction,
  schema?: Schema,
  options?: GuardOptions,
): Guard | Promise<Guard> {
  // Every part unless the options say which: this guard checks final answers and reads
  // tools' outputs at once (a page's guard, loadCompiledGuard, loads them on demand).
  const checked = withAllGuardParts(policyChecked(checkGuardOptions(options), schema));
  if (isInstruction(source)) return guardFromInstruction(source, schema, checked);
  return buildGuard(source, schema, checked);
}

async function guardFromInstruction(
  source: GuardInstruction,
  schema: Schema | undefined,
  options: GuardOptions,
): Promise<Guard> {
  if (schema === undefined)
    throw argumentError('createGuard', {
      parameter: 'schema',
      expected: 'the schema the instruction is formalized against',
      actual: 'undefined',
    });
  const { result, now } = await formalizeInstruction(source, schema, options);
  // The person asked to approve a call reads the task it serves (person-prompt.ts).
  return guardOver(result.ok ? result.value.spec : undefined, {
    task: source.instruction,
    ...options,
    now,
  });
}

/**
 * Formalizes an instruction once, with the clock the guard will use (fixed here when the
 * host gave none), so that `today` means the same day to the formalizer and the guard.
 * Shared by `createGuard` and the MCP proxy, which also needs the spec text.
 */
export async function formalizeInstruction(
  source: GuardInstruction,
  schema: Schema,
  clock: Pick<GuardOptions, 'now' | 'timeZone'>,
): Promise<{ readonly result: FormalizeResult; readonly now: string | Date }> {
  const given = clock.now ?? new Date();
  const now = typeof given === 'string' || given instanceof Date ? given : new Date(given);
  // Loaded only for this form: a guard given its spec (the browser, the service) never
  // carries the formalizer and its dependencies.
  const { formalize } = await import('../formalize/pipeline/formalize.js');
  const result = await formalize({
    ...source.formalize,
    instruction: source.instruction,
    schema,
    model: source.model,
    now,
    timeZone: clock.timeZone ?? 'UTC',
  });
  return { result, now };
}

function isCompiledSpec(value: unknown): value is CompiledSpecDocument {
  return (
    typeof value === 'object' &&
    value !== null &&
    'format' in value &&
    value.format === compiledSpecFormat
  );
}

function buildGuard(
  spec: Spec | CompiledSpecDocument | string | undefined,
  schema: Schema | undefined,
  options: GuardOptions,
): IntentGuard {
  // A compiled spec carries its schema: read and checked as data. A schema given with it
  // is the host's own, and the document's must be that one (K1).
  if (isCompiledSpec(spec)) {
    const pathCheck = options.parts?.paths?.compiledChecks;
    const read = readCompiledComposition(spec, {
      regex: compileRegex,
      ...(schema ? { schema } : {}),
      ...(pathCheck ? { pathCheck } : {}),
    });
    // The checker is loaded here: the document must also be what its sources compile to.
    requireCompiledFromSource(spec, read.intent, read.policy);
    return new IntentGuard(read.intent, composedOptions(read, options, 'createGuard'));
  }
  if (typeof spec === 'string') {
    if (schema === undefined)
      throw argumentError('createGuard', {
        parameter: 'schema',
        expected: 'the schema to check the spec text against',
        actual: 'undefined',
      });
    return new IntentGuard(unwrap(checkSpec(spec, schema)), options);
  }
  return guardOver(spec, options);
}

/** A guard over a spec, or — without one (formalization failed) — one that refuses everything. */
function guardOver(spec: Spec | undefined, options: GuardOptions): IntentGuard {
  if (spec !== undefined) return new IntentGuard(spec, options);
  // A misconfigured host still hears about its options.
  return new IntentGuard(createSession(undefined, sessionOptionsOf(options)), options);
}

/**
 * `options.policy` given as text (LANGUAGE.md §8) is checked against the guard's schema
 * like the spec: one that does not check throws `IntentguardDiagnosticsError`, so no guard
 * runs without the operator's rules it was given.
 */
function policyChecked(options: GuardOptions, schema: Schema | undefined): GuardOptions {
  const policy: unknown = options.policy;
  if (typeof policy !== 'string') return options;
  if (schema === undefined)
    throw argumentError('createGuard', {
      parameter: 'schema',
      expected: 'the schema to check the policy text against',
      actual: 'undefined',
    });
  return { ...options, policy: unwrap(checkPolicy(policy, schema)) };
}

function checkJournal(journal: unknown): GuardJournal {
  const candidate = journal as Partial<GuardJournal> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    candidate.version !== 1 ||
    typeof candidate.now !== 'string' ||
    typeof candidate.timeZone !== 'string' ||
    !Array.isArray(candidate.events)
  )
    throw argumentError('restoreGuard', {
      parameter: 'journal',
      expected: 'a guard journal { version: 1, now, timeZone, events } (from guard.journal())',
      actual: describeArgument(journal),
    });
  // The events are a trace (FORMATS.md §3): read strictly, as `replay` reads one.
  const read = readTrace(candidate.events);
  if (!read.ok) {
    const first = read.diagnostics[0];
    throw new GuardJournalError(
      'invalid-journal',
      `restoreGuard: journal event ${first?.line ?? '?'}: ${first?.message ?? 'unreadable'}`,
    );
  }
  return candidate as GuardJournal;
}

/**
 * Rebuilds a guard from its journal — after a restart, or in the next HTTP request of
 * a stateless server — by replaying every event with the journal's clock. Every
 * replayed decision must equal the recorded one; otherwise `GuardJournalError`.
 */
export function restoreGuard(
  spec: Spec | CompiledSpecDocument | string | undefined,
  schema: Schema | undefined,
  journal: GuardJournal,
  options?: GuardOptions,
): Guard {
  const checked = checkJournal(journal);
  const given = withAllGuardParts(policyChecked(checkGuardOptions(options), schema));
  const guard = buildGuard(spec, schema, {
    ...given,
    now: checked.now,
    timeZone: checked.timeZone,
  });
  replayJournal(guard, checked);
  return guard;
}

/**
 * Replays journal events another copy of the same session wrote after this guard's
 * own — a service instance whose copy is behind the store — instead of restoring the
 * whole journal again. `guard` must be one `createGuard` or `restoreGuard` made, holding
 * the journal's first `guard.journalLength()` events; the events are read strictly and
 * every replayed decision must equal the recorded one, otherwise `GuardJournalError`
 * (then the guard may be half-way: drop it and restore from the whole journal).
 *
 * @example
 * const guard = restoreGuard(spec, schema, journal);
 * continueGuard(guard, eventsWrittenElsewhere); // guard.journalLength() grew by their number
 */
export function continueGuard(guard: Guard, events: readonly unknown[]): void {
  if (!(guard instanceof IntentGuard))
    throw argumentError('continueGuard', {
      parameter: 'guard',
      expected: 'a guard from createGuard or restoreGuard',
      actual: describeArgument(guard),
    });
  // Read as the rest of the guard's journal: a `fail` may name a call proposed before.
  const read = readTrace(events, (id) => guard.decision(id) !== undefined);
  if (!read.ok) {
    const first = read.diagnostics[0];
    throw new GuardJournalError(
      'invalid-journal',
      `continueGuard: journal event ${guard.journalLength() + (first?.line ?? 0)}: ${first?.message ?? 'unreadable'}`,
    );
  }
  replayJournal(guard, { events: events as GuardJournal['events'] }, guard.journalLength());
}
