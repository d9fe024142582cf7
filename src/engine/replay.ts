import type { IntentSession } from './intent-session.js';
import type { ObservationResult, ResolutionResult } from './session-types.js';
import type { TraceEvent } from './trace.js';
import type { Verdict } from './verdict.js';

type EventOf<Key extends string> = Extract<TraceEvent, Record<Key, unknown>>;

/**
 * What a trace (FORMATS.md §3) is replayed into: one method per kind of line. A session
 * (`sessionTarget`) for `intentguard replay` and the evaluation harness; the guard itself
 * when it is restored from its journal.
 */
export interface TraceTarget<Step> {
  propose(event: EventOf<'propose'>): Step;
  observe(event: EventOf<'observe'>): Step;
  resolve(event: EventOf<'resolve'>): Step;
  fail(event: EventOf<'fail'>): Step;
}

/** Replays `events` in order into `target`; `onStep` sees each line's outcome as it comes. */
export function replayTrace<Step>(
  target: TraceTarget<Step>,
  events: readonly TraceEvent[],
  onStep?: (step: Step, event: TraceEvent, index: number) => void,
): Step[] {
  return events.map((event, index) => {
    const step = replayEvent(target, event);
    onStep?.(step, event, index);
    return step;
  });
}

/** One line of a trace into `target`. */
export function replayEvent<Step>(target: TraceTarget<Step>, event: TraceEvent): Step {
  if ('propose' in event) return target.propose(event);
  if ('observe' in event) return target.observe(event);
  if ('resolve' in event) return target.resolve(event);
  return target.fail(event);
}

/** What one line of a trace did to a session. */
export type SessionStep =
  | { readonly kind: 'propose'; readonly verdict: Verdict }
  | { readonly kind: 'observe'; readonly result: ObservationResult }
  | {
      readonly kind: 'resolve';
      readonly result: ResolutionResult;
      /** The call whose `confirm` was the latest proposal's, when the line came. */
      readonly latest: string | undefined;
    }
  | {
      readonly kind: 'fail';
      readonly id: string;
      /** Whether the call had committed something to undo. */
      readonly committed: boolean;
      readonly rolledBack: boolean;
    };

type StepOf<Kind extends SessionStep['kind']> = Extract<SessionStep, { readonly kind: Kind }>;

/** A session as a trace's target, each method with its own kind of step. */
export interface SessionTarget extends TraceTarget<SessionStep> {
  propose(event: EventOf<'propose'>): StepOf<'propose'>;
  observe(event: EventOf<'observe'>): StepOf<'observe'>;
  resolve(event: EventOf<'resolve'>): StepOf<'resolve'>;
  fail(event: EventOf<'fail'>): StepOf<'fail'>;
}

/**
 * A session as a trace's target. Call ids name confirmations and commits: a `propose`
 * with an id keeps its `confirm` under it, a `resolve` answers the call it names (else
 * the latest), the commit of an allowed or approved call is remembered by its id, and a
 * `fail` of that id rolls it back.
 */
export function sessionTarget(session: IntentSession): SessionTarget {
  const commits = new Map<string, number>();
  /** The id of the latest proposal, while its confirmation waits. */
  let latest: string | undefined;
  const remember = (id: string | undefined): void => {
    const commit = session.lastCommit();
    if (id !== undefined && commit !== undefined) commits.set(id, commit);
  };
  return {
    propose(event) {
      const verdict = session.propose(event.propose, event.id);
      remember(event.id);
      latest = verdict.decision === 'confirm' ? event.id : undefined;
      return { kind: 'propose', verdict };
    },
    observe(event) {
      return { kind: 'observe', result: session.observe(event.observe) };
    },
    resolve(event) {
      const waiting = latest;
      if (event.id === undefined || event.id === latest) latest = undefined;
      const result = session.resolve(event.resolve.approved, event.id);
      remember(event.id ?? waiting);
      return { kind: 'resolve', result, latest: waiting };
    },
    fail(event) {
      const { id } = event.fail;
      const commit = commits.get(id);
      commits.delete(id);
      // A call that committed nothing (refused, or denied) has nothing to undo.
      const rolledBack = commit !== undefined && session.rollback(commit);
      return { kind: 'fail', id, committed: commit !== undefined, rolledBack };
    },
  };
}
