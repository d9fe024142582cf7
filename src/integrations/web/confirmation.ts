/// <reference lib="dom" />
/**
 * Actions decided later than their event: a `confirm` verdict answered by a person (in
 * the page or on the service's approvals page), and letting a decided action through.
 */
import type { ToolCall } from '../../guard/types.js';
import { errorMessage } from '../../support/error-message.js';
import { callOf, contextOf, release } from './actions.js';
import { announce } from './announce.js';
import { type BackendDecision, failureDecision } from './backend.js';
import type { PageContext, Trigger } from './context.js';
import type { TriggerKind } from './options.js';
import { decideInOrder, deliverObservations, enqueue } from './queue.js';

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

export async function askPerson(
  page: PageContext,
  result: BackendDecision,
  call: ToolCall,
  trigger: Trigger,
  kind: TriggerKind,
  element: Element,
  event: Event,
  value: string | undefined,
) {
  if (page.confirm === 'service') {
    await awaitServiceAnswer(page, call, trigger, kind, element, event, value);
    return;
  }
  if (page.confirm === undefined) {
    // Nobody to ask: the call is denied at the guard (it is never left waiting), and
    // the verdict says why, for the agent and for the host's developer.
    const denied = await enqueue(page, () => page.backend.approve(call.id, false));
    const message = `intentguard: this action needs a person's approval, and this page has no way to ask one (createWebGuard was given no \`confirm\`), so it was not carried out. ${result.decision.verdict.feedback}`;
    announce(
      page,
      denied.failure
        ? denied
        : { ...denied, decision: { ...denied.decision, action: 'refuse', message } },
      call,
      trigger,
      kind,
      element,
      false,
    );
    return;
  }
  let approved = false;
  // One question at a time: a second action that needs an answer waits for the first.
  const turn = page.asking;
  let done: () => void = () => {};
  page.asking = new Promise<void>((resolve) => {
    done = resolve;
  });
  await turn;
  try {
    approved =
      (await page.confirm({
        prompt: result.decision.prompt || result.decision.message,
        action: call.name,
        ...(trigger.options.label !== undefined ? { label: trigger.options.label } : {}),
      })) === true;
  } catch {
    approved = false;
  } finally {
    done();
  }
  const answer = await enqueue(page, async () => {
    const lost = await deliverObservations(page);
    if (lost?.failure && approved)
      return failureDecision(
        call.id,
        lost.failure,
        'An observation could not be delivered to the guard.',
      );
    return page.backend.approve(call.id, approved);
  });
  if (answer.decision.action === 'run')
    await letThrough(page, answer, call, trigger, kind, element, event, value, approved);
  else announce(page, answer, call, trigger, kind, element, approved);
}

/**
 * The person answers on the service's approvals page: ask the service for the call's
 * decision (same id, same call: it decides nothing twice) until it is no longer `ask`.
 * No answer in time, or a service that stays unreachable, drops the action.
 */
async function awaitServiceAnswer(
  page: PageContext,
  call: ToolCall,
  trigger: Trigger,
  kind: TriggerKind,
  element: Element,
  event: Event,
  value: string | undefined,
) {
  const deadline = Date.now() + page.approvalTimeoutMs;
  let answer: BackendDecision | undefined;
  while (answer === undefined && !page.disposed) {
    await new Promise((resolve) => page.win.setTimeout(resolve, page.approvalPollMs));
    const polled = await decideInOrder(page, call.id, () => page.backend.check(call));
    // A failed poll says nothing about the answer: ask again until the deadline.
    if (polled.failure === undefined && polled.decision.action !== 'ask') answer = polled;
    else if (Date.now() >= deadline) {
      answer = failureDecision(
        call.id,
        'guard-timeout',
        `No answer came from the approvals page within ${Math.round(page.approvalTimeoutMs / 1000)} s.`,
      );
      // Withdrawn, so that nobody approves later what no longer waits (best effort).
      await enqueue(page, () => page.backend.approve(call.id, false));
    }
  }
  if (answer === undefined) return;
  if (answer.decision.action === 'run')
    await letThrough(page, answer, call, trigger, kind, element, event, value, true);
  else announce(page, answer, call, trigger, kind, element, answer.failure ? undefined : false);
}

/**
 * Lets an action decided later than its event through — unless what it would do
 * changed meanwhile (the form's amount edited while the person was asked), or its
 * element left the page. Then it is not performed, and the guard, which counted it as
 * done, rolls it back as for a failed tool call.
 */
export async function letThrough(
  page: PageContext,
  answer: BackendDecision,
  call: ToolCall,
  trigger: Trigger,
  kind: TriggerKind,
  element: Element,
  event: Event,
  value: string | undefined,
  approval?: boolean,
) {
  let problem: string | undefined;
  if (page.disposed) problem = 'The page guard was removed before the action could run.';
  else if (!element.isConnected) problem = 'The element left the page before the action could run.';
  else if (kind === 'click' || kind === 'keyboard' || kind === 'submit') {
    // Fields keep the checked value (it is set again on release); what a click or a
    // submit does is read from the page, so it is read again now.
    try {
      const now = callOf(trigger, contextOf(page, event, element, kind));
      if (jsonOf(now.args) !== jsonOf(call.args) || jsonOf(now.updates) !== jsonOf(call.updates))
        problem = `The action changed while it was being decided (${jsonOf(now.args ?? now.updates) ?? 'unreadable'} instead of ${jsonOf(call.args ?? call.updates) ?? 'unreadable'}); it was not performed. Perform it again to have it checked.`;
    } catch (error) {
      problem = `The action could not be read again before it ran: ${errorMessage(error)}.`;
    }
  }
  if (problem === undefined) {
    announce(page, answer, call, trigger, kind, element, approval);
    release(page, kind, element, event, value);
    return;
  }
  const reason = problem;
  await enqueue(page, async () => {
    page.undelivered.push({ kind: 'fail', id: call.id, reason });
    await deliverObservations(page);
  });
  announce(page, failureDecision(call.id, 'stale-decision', reason), call, trigger, kind, element);
}
