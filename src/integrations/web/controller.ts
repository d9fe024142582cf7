/// <reference lib="dom" />
/**
 * `createWebGuard`: composes the page guard from its parts (the shared state in
 * context.ts, interception.ts, confirmation.ts, queue.ts) and gives its public methods.
 */
import { announce } from './announce.js';
import type { ObserveOutcome } from './backend.js';
import { createPageContext, type PageContext, type Trigger } from './context.js';
import { eventKinds } from './elements.js';
import { intercept, remember } from './interception.js';
import type { WebGuard, WebGuardOptions } from './options.js';
import type { PublishedVerdict } from './publish.js';
import { decideInOrder, deliverObservations, enqueue } from './queue.js';

async function finish(page: PageContext, answer?: string): Promise<PublishedVerdict> {
  const result = await decideInOrder(page, '#finish', () => page.backend.finish(answer));
  return announce(page, result, undefined, undefined, 'finish', undefined);
}

/**
 * Creates the page's guard and installs its capture-phase listeners on the window, so
 * that they run before any handler of the app (which listens on the document or below).
 */
export function createWebGuard(options: WebGuardOptions): WebGuard {
  const page = createPageContext(options, finish);
  const { win } = page;
  const onEvent = (event: Event) => intercept(page, event);
  const onFocus = (event: Event) => remember(page, event);
  const types = Object.keys(eventKinds);
  for (const type of types) win.addEventListener(type, onEvent, true);
  win.addEventListener('focusin', onFocus, true);

  return {
    guardAction(target, actionOptions) {
      if (typeof actionOptions?.action !== 'string' || actionOptions.action === '')
        throw new TypeError('guardAction: `action` must name a declared action.');
      if (typeof target !== 'string' && !(target instanceof page.win.Element))
        throw new TypeError('guardAction: the target must be an element or a CSS selector.');
      if (typeof target === 'string') page.doc.createDocumentFragment().querySelector(target); // throws on a bad selector now, not at the first event
      const on =
        actionOptions.on === undefined
          ? undefined
          : typeof actionOptions.on === 'string'
            ? [actionOptions.on]
            : [...actionOptions.on];
      const trigger: Trigger = { target, options: actionOptions, on };
      page.triggers.push(trigger);
      return () => {
        const index = page.triggers.indexOf(trigger);
        if (index >= 0) page.triggers.splice(index, 1);
      };
    },
    observe(updates) {
      if (page.backend.synchronous && page.queued === 0 && page.undelivered.length === 0)
        return Promise.resolve(page.backend.observe(updates) as ObserveOutcome);
      // Queued, not sent at once: a check of an earlier event must be decided before this fact.
      return enqueue(page, async () => {
        page.undelivered.push({ kind: 'observe', updates });
        return (await deliverObservations(page)) ?? { ok: true, problems: [] };
      });
    },
    finish: (answer) => finish(page, answer),
    get last() {
      return page.publisher.last();
    },
    get roadmap() {
      return page.publisher.roadmap();
    },
    dispose() {
      page.disposed = true;
      for (const type of types) win.removeEventListener(type, onEvent, true);
      win.removeEventListener('focusin', onFocus, true);
      page.publisher.detach();
    },
  };
}
