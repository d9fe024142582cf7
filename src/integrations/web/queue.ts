/**
 * The page guard's queue: observations, roll-backs and checks reach the guard one after
 * another, in the order the page made them.
 */
import { type BackendDecision, failureDecision, type ObserveOutcome } from './backend.js';
import type { PageContext, Report } from './context.js';

export function enqueue<T>(page: PageContext, work: () => Promise<T> | T): Promise<T> {
  page.queued += 1;
  const run = page.queue.then(work);
  page.queue = run.then(
    () => {
      page.queued -= 1;
    },
    () => {
      page.queued -= 1;
    },
  );
  return run;
}

export async function deliverObservations(page: PageContext): Promise<ObserveOutcome | undefined> {
  const { undelivered, backend } = page;
  while (undelivered.length > 0) {
    const report = undelivered[0] as Report;
    const outcome = await (report.kind === 'observe'
      ? backend.observe(report.updates)
      : backend.fail(report.id, report.reason));
    // Delivered (even if the guard found it invalid) or not delivered at all: only the
    // latter is retried, since a lost fact could make a guard that needs it stay silent.
    if (outcome.failure === 'guard-unreachable' || outcome.failure === 'guard-timeout')
      return outcome;
    undelivered.shift();
    if (undelivered.length === 0) return outcome;
  }
  return undefined;
}

/** Queues a decision after every undelivered report: a lost report fails the decision `id`. */
export function decideInOrder(
  page: PageContext,
  id: string,
  decide: () => Promise<BackendDecision> | BackendDecision,
): Promise<BackendDecision> {
  return enqueue(page, async () => {
    const lost = await deliverObservations(page);
    if (lost?.failure)
      return failureDecision(
        id,
        lost.failure,
        'An observation could not be delivered to the guard.',
      );
    return decide();
  });
}
