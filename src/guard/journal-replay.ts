import { IntentguardError } from '../support/errors.js';
import { finishId, type IntentGuard, type ReplayView } from './intent-guard.js';
import type { GuardJournal, JournalEvent } from './types.js';

/**
 * Restoring a guard from its journal (restoreGuard): every event replayed through the
 * guard's own methods, checked line by line. Apart from the guard's core, so that a page's
 * guard, which never restores one, does not carry it.
 */

/**
 * A journal that cannot be restored: it is not a journal (`invalid-journal`), or it does
 * not replay as recorded (`journal-mismatch`: another spec, schema or options) — then
 * restoring it would decide differently, so nothing is restored.
 */
export class GuardJournalError extends IntentguardError {
  static override readonly marker = 'intentguard.error.GuardJournalError';

  constructor(code: 'invalid-journal' | 'journal-mismatch', message: string) {
    super({ code, message });
    this.name = 'GuardJournalError';
  }
}

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/**
 * Replays `journal` on a guard — a new one, or one that holds the first `offset` events
 * of the same journal already; throws `GuardJournalError` where it does not replay as
 * recorded (event numbers count from the journal's start).
 */
export function replayJournal(
  guard: IntentGuard,
  journal: Pick<GuardJournal, 'events'>,
  offset = 0,
): void {
  guard.restoring((view) => {
    const { events } = journal;
    for (let index = 0; index < events.length; index++) {
      const event = events[index]!;
      const before = guard.journalLength();
      const earlier = earlierApproval(guard, events, index, offset);
      if (earlier !== undefined) {
        index += earlier - 1;
        continue;
      }
      replayEvent(guard, view, event);
      const produced = guard.journalSince(before);
      const expected = events.slice(index, index + produced.length);
      if (produced.length === 0 || jsonOf(produced) !== jsonOf(expected)) {
        throw new GuardJournalError(
          'journal-mismatch',
          `journal event ${offset + index + 1} does not replay as recorded (${jsonOf(event)?.slice(0, 200)}): the spec, schema or options differ from the run that wrote it`,
        );
      }
      index += produced.length - 1;
    }
  });
}

/**
 * An approval as journals written before the session kept confirmations by call id
 * recorded it: the call proposed again (`propose` of an id that waits for an answer),
 * followed, when that said `confirm`, by the `resolve` that approved it. It is replayed as
 * the approval it was, and must end the same way (the call runs, or it is refused).
 * Returns how many events it stood for, or undefined when `events[index]` is not one.
 */
function earlierApproval(
  guard: IntentGuard,
  events: readonly JournalEvent[],
  index: number,
  offset: number,
): number | undefined {
  const event = events[index]!;
  if (!('propose' in event) || event.id === undefined || event.id === finishId) return undefined;
  const id = event.id;
  if (guard.state(id) !== 'asked') return undefined;
  const next = events[index + 1];
  const confirmed = event.expect.decision === 'confirm';
  const withResolve =
    confirmed &&
    next !== undefined &&
    'resolve' in next &&
    next.id === id &&
    next.resolve.approved === true;
  guard.approve(id, true);
  const runs = guard.state(id) === 'running';
  if ((confirmed && !withResolve) || runs !== (confirmed || event.expect.decision === 'allow'))
    throw new GuardJournalError(
      'journal-mismatch',
      `journal event ${offset + index + 1} does not replay as recorded (${jsonOf(event)?.slice(0, 200)}): the spec, schema or options differ from the run that wrote it`,
    );
  return withResolve ? 2 : 1;
}

function replayEvent(guard: IntentGuard, view: ReplayView, event: JournalEvent): void {
  if ('propose' in event) {
    if (event.id === finishId) {
      const answer = (event.propose as { answer?: unknown }).answer;
      guard.finish(typeof answer === 'string' ? answer : undefined);
      return;
    }
    const action = event.propose.action as { name?: unknown; args?: unknown } | undefined;
    guard.check({
      id: event.id ?? '',
      name: typeof action?.name === 'string' ? action.name : '',
      args: action?.args,
      ...(event.propose.updates !== undefined ? { updates: event.propose.updates } : {}),
      ...(typeof event.propose.objective === 'string'
        ? { objective: event.propose.objective }
        : {}),
    });
    return;
  }
  if ('resolve' in event) {
    guard.approve(event.id, event.resolve.approved);
    return;
  }
  if ('fail' in event) {
    guard.result(event.fail.id, { error: 'restored from the journal' });
    return;
  }
  if (event.id !== undefined) {
    // The journal holds what was read from the tool's output: applied as it is.
    guard.restoreResult(event.id, event.observe);
    return;
  }
  guard.observe(event.observe.updates);
}
