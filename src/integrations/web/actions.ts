/// <reference lib="dom" />
/**
 * What the page guard does with an intercepted event: reads the call it makes, holds
 * it back while it is decided, and performs it again once allowed.
 */
import type { ToolCall } from '../../guard/types.js';
import { callId, type PageContext, type Trigger } from './context.js';
import { activatable, activationWindowMs, hasValue, initialValue, isCheckbox } from './elements.js';
import type { ActionContext, FromContext, TriggerKind } from './options.js';

export function contextOf(
  page: PageContext,
  event: Event,
  element: Element,
  trigger: TriggerKind,
): ActionContext {
  const context: { -readonly [K in keyof ActionContext]: ActionContext[K] } = {
    event,
    element,
    trigger,
  };
  if (hasValue(element)) context.value = element.value;
  if (
    element instanceof page.win.HTMLInputElement &&
    (element.type === 'checkbox' || element.type === 'radio')
  )
    context.checked = element.checked;
  if (trigger === 'submit' && element instanceof page.win.HTMLFormElement)
    context.formData = new FormData(element);
  return context;
}

export function callOf(trigger: Trigger, context: ActionContext): ToolCall {
  const { options } = trigger;
  const evaluate = <T>(value: FromContext<T> | undefined): T | undefined =>
    typeof value === 'function' ? (value as (context: ActionContext) => T)(context) : value;
  const args = evaluate(options.args);
  const updates = evaluate(options.updates);
  return {
    id: callId(),
    name: options.action,
    ...(args !== undefined ? { args } : {}),
    ...(updates !== undefined ? { updates } : {}),
    ...(options.objective !== undefined ? { objective: options.objective } : {}),
  };
}

export function hold(page: PageContext, event: Event, element: Element, kind: TriggerKind) {
  event.preventDefault();
  event.stopImmediatePropagation();
  if ((kind === 'input' || kind === 'change') && hasValue(element))
    element.value = page.acceptedValues.get(element) ?? initialValue(element);
  // A checkbox guarded on change has already toggled: toggle it back. (Radio buttons are
  // guarded on click, where preventDefault undoes the choice.)
  if ((kind === 'input' || kind === 'change') && isCheckbox(element))
    element.checked = !element.checked;
  if (kind === 'keyboard') page.heldActivations.set(element, Date.now() + activationWindowMs);
}

export function release(
  page: PageContext,
  kind: TriggerKind,
  element: Element,
  event: Event,
  value: string | undefined,
) {
  const through = (type: string, dispatch: () => void) => {
    page.passes.push({ type, element });
    try {
      dispatch();
    } finally {
      const index = page.passes.findIndex((pass) => pass.type === type && pass.element === element);
      if (index >= 0) page.passes.splice(index, 1);
    }
  };
  switch (kind) {
    case 'click':
      through('click', () => (element as HTMLElement).click());
      break;
    case 'submit': {
      const form = element as HTMLFormElement;
      const submitter = (event as SubmitEvent).submitter;
      through('submit', () =>
        form.requestSubmit(submitter && submitter.closest('form') === form ? submitter : null),
      );
      break;
    }
    case 'input':
    case 'change':
      if (hasValue(element) && value !== undefined) {
        element.value = value;
        page.acceptedValues.set(element, value);
      }
      if (isCheckbox(element)) element.checked = !element.checked;
      through(event.type, () =>
        element.dispatchEvent(new page.win.Event(event.type, { bubbles: true })),
      );
      break;
    case 'keyboard': {
      const key = event as KeyboardEvent;
      let prevented = false;
      through('keydown', () => {
        prevented = !element.dispatchEvent(
          new page.win.KeyboardEvent('keydown', {
            key: key.key,
            code: key.code,
            bubbles: true,
            cancelable: true,
            composed: true,
          }),
        );
      });
      page.heldActivations.delete(element);
      if (!prevented && activatable(element))
        through('click', () => (element as HTMLElement).click());
      break;
    }
  }
}
