/// <reference lib="dom" />
/**
 * The page guard's capture-phase listeners: which trigger an event reaches, and the
 * check of the call it makes before the app's handler runs.
 */
import type { ToolCall } from '../../guard/types.js';
import { errorMessage } from '../../support/error-message.js';
import { callOf, contextOf, hold } from './actions.js';
import { announce } from './announce.js';
import { type BackendDecision, failureDecision } from './backend.js';
import { askPerson, letThrough } from './confirmation.js';
import { callId, type PageContext, type Trigger } from './context.js';
import { activationWindowMs, defaultTriggers, eventKinds, hasValue } from './elements.js';
import type { TriggerKind } from './options.js';
import { dialogAttribute } from './publish.js';
import { decideInOrder } from './queue.js';

function matchTrigger(
  page: PageContext,
  event: Event,
  kind: TriggerKind,
): { trigger: Trigger; element: Element } | undefined {
  const path = event.composedPath();
  for (const node of path) {
    if (!(node instanceof page.win.Element)) continue;
    if (node.hasAttribute(dialogAttribute)) return undefined;
    // A key activates the focused element only: Enter in a field inside a guarded
    // container is typing, not that container's action.
    if (kind === 'keyboard' && node !== path[0]) return undefined;
    for (let index = page.triggers.length - 1; index >= 0; index--) {
      const trigger = page.triggers[index] as Trigger;
      const matches =
        typeof trigger.target === 'string' ? node.matches(trigger.target) : node === trigger.target;
      if (!matches) continue;
      const kinds = trigger.on ?? defaultTriggers(node);
      if (kinds.includes(kind)) return { trigger, element: node };
    }
  }
  return undefined;
}

function takePass(page: PageContext, event: Event, element: Element): boolean {
  const index = page.passes.findIndex(
    (pass) => pass.type === event.type && pass.element === element,
  );
  if (index < 0) return false;
  page.passes.splice(index, 1);
  return true;
}

/**
 * The click a browser makes of a key press (trusted, no pointer: detail 0) is the
 * activation already decided on keydown: true when that decision covers this click
 * (let through if allowed, held back while being decided or refused).
 */
function followsActivation(
  page: PageContext,
  event: Event,
  kind: TriggerKind,
  element: Element,
): boolean {
  // A script's `click()` is untrusted and a pointer's click has a detail of 1 or more:
  // both are checked as new actions.
  if (kind !== 'click' || !event.isTrusted || (event as MouseEvent).detail !== 0) return false;
  const now = Date.now();
  const allowed = page.allowedActivations.get(element);
  page.allowedActivations.delete(element);
  if (allowed !== undefined && allowed >= now) return true;
  const held = page.heldActivations.get(element);
  page.heldActivations.delete(element);
  if (held !== undefined && held >= now) {
    // The key press is still being decided (or was refused): its decision releases it.
    event.preventDefault();
    event.stopImmediatePropagation();
    return true;
  }
  return false;
}

/** The capture-phase listener of the events a trigger intercepts. */
export function intercept(page: PageContext, event: Event) {
  if (page.disposed) return;
  const kind = eventKinds[event.type];
  if (kind === undefined) return;
  if (kind === 'keyboard') {
    const key = (event as KeyboardEvent).key;
    if (
      (key !== 'Enter' && key !== ' ') ||
      (event as KeyboardEvent).repeat ||
      (event as KeyboardEvent).isComposing
    )
      return;
  }
  const match = matchTrigger(page, event, kind);
  if (match === undefined) return;
  const { trigger, element } = match;
  if (takePass(page, event, element)) return;
  if (followsActivation(page, event, kind, element)) return;
  const context = contextOf(page, event, element, kind);
  const value = context.value;
  let call: ToolCall;
  try {
    call = callOf(trigger, context);
  } catch (error) {
    hold(page, event, element, kind);
    const id = callId();
    announce(
      page,
      failureDecision(
        id,
        'trigger-error',
        `The trigger of ${trigger.options.action} failed: ${errorMessage(error)}.`,
      ),
      { id, name: trigger.options.action },
      trigger,
      kind,
      element,
    );
    return;
  }
  check(page, call, trigger, kind, element, event, value);
}

/** Decides the call at once when nothing is queued before it, otherwise holds the event until it is. */
function check(
  page: PageContext,
  call: ToolCall,
  trigger: Trigger,
  kind: TriggerKind,
  element: Element,
  event: Event,
  value: string | undefined,
) {
  const { backend } = page;
  if (backend.synchronous && page.queued === 0 && page.undelivered.length === 0) {
    const result = backend.check(call) as BackendDecision;
    announce(page, result, call, trigger, kind, element);
    if (result.decision.action === 'run') {
      if (kind === 'keyboard')
        page.allowedActivations.set(element, Date.now() + activationWindowMs);
      if (value !== undefined && (kind === 'input' || kind === 'change'))
        page.acceptedValues.set(element, value);
      return;
    }
    hold(page, event, element, kind);
    if (result.decision.action === 'ask')
      void askPerson(page, result, call, trigger, kind, element, event, value);
    return;
  }
  hold(page, event, element, kind);
  void decideInOrder(page, call.id, () => backend.check(call)).then((result) => {
    if (result.decision.action === 'run') {
      void letThrough(page, result, call, trigger, kind, element, event, value);
      return;
    }
    announce(page, result, call, trigger, kind, element);
    if (page.disposed) return;
    if (result.decision.action === 'ask')
      void askPerson(page, result, call, trigger, kind, element, event, value);
  });
}

/** Remembers a field's value as the page had it before the person edits it (focusin). */
export function remember(page: PageContext, event: Event) {
  const target = event.target;
  if (target instanceof page.win.Element && hasValue(target) && !page.acceptedValues.has(target))
    page.acceptedValues.set(target, target.value);
}
