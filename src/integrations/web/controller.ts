/// <reference lib="dom" />
import type { Decision, Severity } from '../../engine/verdict.js';
import type { Guard, GuardDecision, ToolCall } from '../../guard/types.js';
import { errorMessage } from '../../support/error-message.js';
import {
  type Backend,
  type BackendDecision,
  failureDecision,
  localBackend,
  type ObserveOutcome,
  type RemoteOptions,
  remoteBackend,
  type WebFailureCode,
} from './backend.js';
import type { ConfirmRequest } from './dialog.js';
import { dialogAttribute, type PublishedVerdict, publish, type VerdictStatus } from './publish.js';
import type { DefinedStates, StatesDeclaration } from './states.js';

/** The events a trigger intercepts. `keyboard` is Enter or Space on the element (keyboard activation). */
export type TriggerKind = 'click' | 'keyboard' | 'input' | 'change' | 'submit';

/** What a trigger's `args` and `updates` functions see, before the app's handler runs. */
export interface ActionContext {
  readonly event: Event;
  /** The guarded element the event reached (the one the selector matched). */
  readonly element: Element;
  readonly trigger: TriggerKind;
  /** The new value of an input, select or textarea (for input/change). */
  readonly value?: string;
  /** The new checked state of a checkbox or radio button. */
  readonly checked?: boolean;
  /** The form's fields when a form is submitted. */
  readonly formData?: FormData;
}

type FromContext<T> = T | ((context: ActionContext) => T);

/** A pre-action trigger: which action an element performs and the state change it anticipates. */
export interface GuardActionOptions {
  /** The action predicate it performs (declared with `kind: 'action'`). */
  readonly action: string;
  /** An objective it declares it performs (narrows the action's rules). */
  readonly objective?: string;
  /** The action's arguments. */
  readonly args?: FromContext<Record<string, unknown> | undefined>;
  /** The anticipated updates of declared states, computed before the app's handler runs. */
  readonly updates?: FromContext<Readonly<Record<string, unknown>> | undefined>;
  /** The events to intercept; by default a form's submit, a field's change, otherwise click and keyboard activation. */
  readonly on?: TriggerKind | readonly TriggerKind[];
  /** A name for people and logs ("Pay deposit"). */
  readonly label?: string;
}

export interface WebGuardOptions {
  /** A guard running in the page: `createGuard(spec, states.schema, { finishWaitsForResults: false })`. */
  readonly guard?: Guard;
  /** Or the HTTP service. */
  readonly remote?: RemoteOptions;
  /** For `remote` without a session: the spec text and the states the session is created with. */
  readonly spec?: string;
  readonly states?: DefinedStates | StatesDeclaration;
  /** For `remote` without a session: the session clock and zone. */
  readonly now?: string;
  readonly timeZone?: string;
  /**
   * Who answers a `confirm` verdict. By default nobody: the action is denied without
   * asking, because anything drawn in the page can be pressed by the agent that drives
   * the page (Playwright, CDP, a browser extension, a computer-use model: their input is
   * trusted input). Choose one: `'service'` (remote guards) — the person answers on the
   * service's approvals page (`GET /` of `intentguard serve`) and the page waits; a
   * function that asks somewhere the agent cannot reach (another device, a native
   * prompt); or `confirmWithDialog`, the accessible in-page dialog — only where no
   * automation drives the page (a person's own browser, an agent that sends synthetic
   * DOM events only).
   */
  readonly confirm?: ((request: ConfirmRequest) => Promise<boolean>) | 'service';
  /** With `confirm: 'service'`: how often the page asks for the answer (default 1000 ms). */
  readonly approvalPollMs?: number;
  /** With `confirm: 'service'`: how long it waits before the action is dropped (default 10 minutes). */
  readonly approvalTimeoutMs?: number;
  /** The window to guard (default: the global one). */
  readonly window?: Window & typeof globalThis;
}

/** The guard of one page: triggers, observations, finish. Keep it in the app's code, not on `window`. */
export interface WebGuard {
  /** Guards an element, or every element matching a selector now and later. Returns a function that removes the trigger. */
  guardAction(target: Element | string, options: GuardActionOptions): () => void;
  /** Facts the app's own data code reports (availability, results). Observations reach the guard in order, before any later check. */
  observe(updates: unknown): Promise<ObserveOutcome>;
  /**
   * The agent (or the app) says the task is done: allowed only when it is. With the
   * agent's final answer, an answer that shows actions never taken is refused too.
   */
  finish(answer?: string): Promise<PublishedVerdict>;
  /** The latest verdict, or undefined before the first. */
  readonly last: PublishedVerdict | undefined;
  readonly roadmap: string;
  /** Removes every listener; `window.intentguard` stops answering for this guard. */
  dispose(): void;
}

type Report =
  | { readonly kind: 'observe'; readonly updates: unknown }
  | { readonly kind: 'fail'; readonly id: string; readonly reason: string };

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

interface Trigger {
  readonly target: Element | string;
  readonly options: GuardActionOptions;
  readonly on: readonly TriggerKind[] | undefined;
}

const eventKinds: Readonly<Record<string, TriggerKind>> = {
  click: 'click',
  keydown: 'keyboard',
  input: 'input',
  change: 'change',
  submit: 'submit',
};

const valueInputs = new Set([
  'text',
  'search',
  'email',
  'number',
  'tel',
  'url',
  'password',
  'date',
  'time',
  'datetime-local',
  'month',
  'week',
  'range',
  'color',
]);

/** The default triggers of an element: what a person does with it. */
function defaultTriggers(element: Element): readonly TriggerKind[] {
  const tag = element.tagName.toLowerCase();
  if (tag === 'form') return ['submit'];
  if (tag === 'select' || tag === 'textarea') return ['change'];
  if (
    tag === 'input' &&
    valueInputs.has(((element as HTMLInputElement).type || 'text').toLowerCase())
  )
    return ['change'];
  return ['click', 'keyboard'];
}

function hasValue(
  element: Element,
): element is HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement {
  const tag = element.tagName.toLowerCase();
  if (tag === 'select' || tag === 'textarea') return true;
  return (
    tag === 'input' && valueInputs.has(((element as HTMLInputElement).type || 'text').toLowerCase())
  );
}

function initialValue(element: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): string {
  if (element.tagName.toLowerCase() === 'select') {
    const options = Array.from((element as HTMLSelectElement).options);
    return (options.find((option) => option.defaultSelected) ?? options[0])?.value ?? '';
  }
  return (element as HTMLInputElement).defaultValue;
}

function isCheckbox(element: Element): element is HTMLInputElement {
  return (
    element.tagName.toLowerCase() === 'input' && (element as HTMLInputElement).type === 'checkbox'
  );
}

/** Elements a browser activates (a click follows Enter or Space). */
function activatable(element: Element): boolean {
  const tag = element.tagName.toLowerCase();
  if (tag === 'button' || tag === 'summary') return true;
  if (tag === 'a') return element.hasAttribute('href');
  if (tag === 'input')
    return ['button', 'submit', 'reset', 'checkbox', 'radio', 'image'].includes(
      (element as HTMLInputElement).type,
    );
  return false;
}

let callCounter = 0;

function callId(): string {
  callCounter += 1;
  const random = Math.floor(Math.random() * 0x1_0000_0000).toString(36);
  return `web-${callCounter}-${random}`;
}

/** How long a keyboard activation's follow-up click belongs to it. */
const activationWindowMs = 1000;

/**
 * Creates the page's guard and installs its capture-phase listeners on the window, so
 * that they run before any handler of the app (which listens on the document or below).
 */
export function createWebGuard(options: WebGuardOptions): WebGuard {
  if ((options.guard === undefined) === (options.remote === undefined))
    throw new TypeError(
      'createWebGuard: give either `guard` (a guard in the page) or `remote` (the HTTP service).',
    );
  const win = options.window ?? (globalThis as unknown as Window & typeof globalThis);
  const doc = win.document;
  const statesJson =
    options.states === undefined
      ? undefined
      : 'json' in options.states && 'schema' in options.states
        ? options.states.json
        : options.states;
  if (
    options.remote &&
    options.remote.session === undefined &&
    (options.spec === undefined || statesJson === undefined)
  )
    throw new TypeError(
      'createWebGuard: `remote` without a `session` needs `spec` and `states` to create one.',
    );
  const backend: Backend = options.guard
    ? localBackend(options.guard)
    : remoteBackend(options.remote as RemoteOptions, {
        spec: options.spec,
        states: statesJson,
        ...(options.now !== undefined ? { now: options.now } : {}),
        ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
      });
  if (options.confirm === 'service' && options.remote === undefined)
    throw new TypeError(
      "createWebGuard: `confirm: 'service'` needs `remote`: the person answers on the service's approvals page.",
    );
  // No default question in the page: the agent driving the page could answer it (W1).
  const confirm = options.confirm;
  const approvalPollMs = options.approvalPollMs ?? 1000;
  const approvalTimeoutMs = options.approvalTimeoutMs ?? 600_000;

  const triggers: Trigger[] = [];
  /** Values of guarded fields as the app last accepted them, to restore after a block. */
  const acceptedValues = new WeakMap<Element, string>();
  /** Events this layer dispatches itself when it lets a decided action through. */
  const passes: { type: string; element: Element }[] = [];
  /** Keyboard activations that were allowed: their follow-up click is the same action. */
  const allowedActivations = new WeakMap<Element, number>();
  /** Keyboard activations that were held back: their follow-up click must not slip through. */
  const heldActivations = new WeakMap<Element, number>();
  /** Observations and checks reach a remote guard one after another, in order. */
  let queue: Promise<unknown> = Promise.resolve();
  let queued = 0;
  /**
   * Reports (observations, and roll-backs of calls that were allowed but not performed)
   * the guard has not received yet; no check or finish is decided before them.
   */
  const undelivered: Report[] = [];
  let disposed = false;
  /** The person's current question, if any: the next waits for it. */
  let asking: Promise<void> = Promise.resolve();

  const publisher = publish(win, {
    roadmap: () => backend.roadmap(),
    finish: (answer?: string) => finish(answer),
    pending: () => queued,
  });

  function enqueue<T>(work: () => Promise<T> | T): Promise<T> {
    queued += 1;
    const run = queue.then(work);
    queue = run.then(
      () => {
        queued -= 1;
      },
      () => {
        queued -= 1;
      },
    );
    return run;
  }

  async function deliverObservations(): Promise<ObserveOutcome | undefined> {
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

  function matchTrigger(
    event: Event,
    kind: TriggerKind,
  ): { trigger: Trigger; element: Element } | undefined {
    const path = event.composedPath();
    for (const node of path) {
      if (!(node instanceof win.Element)) continue;
      if (node.hasAttribute(dialogAttribute)) return undefined;
      // A key activates the focused element only: Enter in a field inside a guarded
      // container is typing, not that container's action.
      if (kind === 'keyboard' && node !== path[0]) return undefined;
      for (let index = triggers.length - 1; index >= 0; index--) {
        const trigger = triggers[index] as Trigger;
        const matches =
          typeof trigger.target === 'string'
            ? node.matches(trigger.target)
            : node === trigger.target;
        if (!matches) continue;
        const kinds = trigger.on ?? defaultTriggers(node);
        if (kinds.includes(kind)) return { trigger, element: node };
      }
    }
    return undefined;
  }

  function takePass(event: Event, element: Element): boolean {
    const index = passes.findIndex((pass) => pass.type === event.type && pass.element === element);
    if (index < 0) return false;
    passes.splice(index, 1);
    return true;
  }

  function contextOf(event: Event, element: Element, trigger: TriggerKind): ActionContext {
    const context: { -readonly [K in keyof ActionContext]: ActionContext[K] } = {
      event,
      element,
      trigger,
    };
    if (hasValue(element)) context.value = element.value;
    if (
      element instanceof win.HTMLInputElement &&
      (element.type === 'checkbox' || element.type === 'radio')
    )
      context.checked = element.checked;
    if (trigger === 'submit' && element instanceof win.HTMLFormElement)
      context.formData = new FormData(element);
    return context;
  }

  function callOf(trigger: Trigger, context: ActionContext): ToolCall {
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

  function hold(event: Event, element: Element, kind: TriggerKind) {
    event.preventDefault();
    event.stopImmediatePropagation();
    if ((kind === 'input' || kind === 'change') && hasValue(element))
      element.value = acceptedValues.get(element) ?? initialValue(element);
    // A checkbox guarded on change has already toggled: toggle it back. (Radio buttons are
    // guarded on click, where preventDefault undoes the choice.)
    if ((kind === 'input' || kind === 'change') && isCheckbox(element))
      element.checked = !element.checked;
    if (kind === 'keyboard') heldActivations.set(element, Date.now() + activationWindowMs);
  }

  function release(kind: TriggerKind, element: Element, event: Event, value: string | undefined) {
    const through = (type: string, dispatch: () => void) => {
      passes.push({ type, element });
      try {
        dispatch();
      } finally {
        const index = passes.findIndex((pass) => pass.type === type && pass.element === element);
        if (index >= 0) passes.splice(index, 1);
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
          acceptedValues.set(element, value);
        }
        if (isCheckbox(element)) element.checked = !element.checked;
        through(event.type, () =>
          element.dispatchEvent(new win.Event(event.type, { bubbles: true })),
        );
        break;
      case 'keyboard': {
        const key = event as KeyboardEvent;
        let prevented = false;
        through('keydown', () => {
          prevented = !element.dispatchEvent(
            new win.KeyboardEvent('keydown', {
              key: key.key,
              code: key.code,
              bubbles: true,
              cancelable: true,
              composed: true,
            }),
          );
        });
        heldActivations.delete(element);
        if (!prevented && activatable(element))
          through('click', () => (element as HTMLElement).click());
        break;
      }
    }
  }

  function statusOf(decision: GuardDecision, approval?: boolean): VerdictStatus {
    if (approval !== undefined) return decision.action === 'run' ? 'approved' : 'denied';
    return decision.action === 'run' ? 'allowed' : decision.action === 'ask' ? 'asking' : 'blocked';
  }

  function announce(
    result: BackendDecision,
    call: ToolCall | undefined,
    trigger: Trigger | undefined,
    kind: TriggerKind | 'finish',
    element: Element | undefined,
    approval?: boolean,
  ): PublishedVerdict {
    const { decision, failure } = result;
    const verdict = decision.verdict;
    const published: PublishedVerdict = {
      id: decision.id,
      kind: kind === 'finish' ? 'finish' : 'action',
      trigger: kind,
      action: call?.name ?? 'finish',
      ...(trigger?.options.label !== undefined ? { label: trigger.options.label } : {}),
      status: statusOf(decision, approval),
      decision: verdict.decision as Decision,
      ...(verdict.severity !== undefined ? { severity: verdict.severity as Severity } : {}),
      codes: verdict.reasons.map((reason) => reason.code),
      message: decision.message,
      feedback: verdict.feedback,
      roadmap: verdict.roadmap ?? '',
      prompt: decision.prompt,
      done: verdict.done,
      ...(failure !== undefined ? { failure } : {}),
      ...(call?.updates !== undefined ? { updates: call.updates } : {}),
      ...(call?.args !== undefined ? { args: call.args } : {}),
    };
    publisher.publish(published, element);
    return published;
  }

  async function askPerson(
    result: BackendDecision,
    call: ToolCall,
    trigger: Trigger,
    kind: TriggerKind,
    element: Element,
    event: Event,
    value: string | undefined,
  ) {
    if (confirm === 'service') {
      await awaitServiceAnswer(call, trigger, kind, element, event, value);
      return;
    }
    if (confirm === undefined) {
      // Nobody to ask: the call is denied at the guard (it is never left waiting), and
      // the verdict says why, for the agent and for the host's developer.
      const denied = await enqueue(() => backend.approve(call.id, false));
      const message = `intentguard: this action needs a person's approval, and this page has no way to ask one (createWebGuard was given no \`confirm\`), so it was not carried out. ${result.decision.verdict.feedback}`;
      announce(
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
    const turn = asking;
    let done: () => void = () => {};
    asking = new Promise<void>((resolve) => {
      done = resolve;
    });
    await turn;
    try {
      approved =
        (await confirm({
          prompt: result.decision.prompt || result.decision.message,
          action: call.name,
          ...(trigger.options.label !== undefined ? { label: trigger.options.label } : {}),
        })) === true;
    } catch {
      approved = false;
    } finally {
      done();
    }
    const answer = await enqueue(async () => {
      const lost = await deliverObservations();
      if (lost?.failure && approved)
        return failureDecision(
          call.id,
          lost.failure,
          'An observation could not be delivered to the guard.',
        );
      return backend.approve(call.id, approved);
    });
    if (answer.decision.action === 'run')
      await letThrough(answer, call, trigger, kind, element, event, value, approved);
    else announce(answer, call, trigger, kind, element, approved);
  }

  /**
   * The person answers on the service's approvals page: ask the service for the call's
   * decision (same id, same call: it decides nothing twice) until it is no longer `ask`.
   * No answer in time, or a service that stays unreachable, drops the action.
   */
  async function awaitServiceAnswer(
    call: ToolCall,
    trigger: Trigger,
    kind: TriggerKind,
    element: Element,
    event: Event,
    value: string | undefined,
  ) {
    const deadline = Date.now() + approvalTimeoutMs;
    let answer: BackendDecision | undefined;
    while (answer === undefined && !disposed) {
      await new Promise((resolve) => win.setTimeout(resolve, approvalPollMs));
      const polled = await enqueue(async () => {
        const lost = await deliverObservations();
        if (lost?.failure)
          return failureDecision(
            call.id,
            lost.failure,
            'An observation could not be delivered to the guard.',
          );
        return backend.check(call);
      });
      // A failed poll says nothing about the answer: ask again until the deadline.
      if (polled.failure === undefined && polled.decision.action !== 'ask') answer = polled;
      else if (Date.now() >= deadline) {
        answer = failureDecision(
          call.id,
          'guard-timeout',
          `No answer came from the approvals page within ${Math.round(approvalTimeoutMs / 1000)} s.`,
        );
        // Withdrawn, so that nobody approves later what no longer waits (best effort).
        await enqueue(() => backend.approve(call.id, false));
      }
    }
    if (answer === undefined) return;
    if (answer.decision.action === 'run')
      await letThrough(answer, call, trigger, kind, element, event, value, true);
    else announce(answer, call, trigger, kind, element, answer.failure ? undefined : false);
  }

  /**
   * Lets an action decided later than its event through — unless what it would do
   * changed meanwhile (the form's amount edited while the person was asked), or its
   * element left the page. Then it is not performed, and the guard, which counted it as
   * done, rolls it back as for a failed tool call.
   */
  async function letThrough(
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
    if (disposed) problem = 'The page guard was removed before the action could run.';
    else if (!element.isConnected)
      problem = 'The element left the page before the action could run.';
    else if (kind === 'click' || kind === 'keyboard' || kind === 'submit') {
      // Fields keep the checked value (it is set again on release); what a click or a
      // submit does is read from the page, so it is read again now.
      try {
        const now = callOf(trigger, contextOf(event, element, kind));
        if (jsonOf(now.args) !== jsonOf(call.args) || jsonOf(now.updates) !== jsonOf(call.updates))
          problem = `The action changed while it was being decided (${jsonOf(now.args ?? now.updates) ?? 'unreadable'} instead of ${jsonOf(call.args ?? call.updates) ?? 'unreadable'}); it was not performed. Perform it again to have it checked.`;
      } catch (error) {
        problem = `The action could not be read again before it ran: ${errorMessage(error)}.`;
      }
    }
    if (problem === undefined) {
      announce(answer, call, trigger, kind, element, approval);
      release(kind, element, event, value);
      return;
    }
    const reason = problem;
    await enqueue(async () => {
      undelivered.push({ kind: 'fail', id: call.id, reason });
      await deliverObservations();
    });
    announce(failureDecision(call.id, 'stale-decision', reason), call, trigger, kind, element);
  }

  function intercept(event: Event) {
    if (disposed) return;
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
    const match = matchTrigger(event, kind);
    if (match === undefined) return;
    const { trigger, element } = match;
    if (takePass(event, element)) return;
    // The click a browser makes of a key press (trusted, no pointer: detail 0) is the
    // activation already decided on keydown. A script's `click()` is untrusted and a
    // pointer's click has a detail of 1 or more: both are checked as new actions.
    if (kind === 'click' && event.isTrusted && (event as MouseEvent).detail === 0) {
      const now = Date.now();
      const allowed = allowedActivations.get(element);
      allowedActivations.delete(element);
      if (allowed !== undefined && allowed >= now) return;
      const held = heldActivations.get(element);
      heldActivations.delete(element);
      if (held !== undefined && held >= now) {
        // The key press is still being decided (or was refused): its decision releases it.
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
    }
    const context = contextOf(event, element, kind);
    const value = context.value;
    let call: ToolCall;
    try {
      call = callOf(trigger, context);
    } catch (error) {
      hold(event, element, kind);
      const id = callId();
      announce(
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
    if (backend.synchronous && queued === 0 && undelivered.length === 0) {
      const result = backend.check(call) as BackendDecision;
      announce(result, call, trigger, kind, element);
      if (result.decision.action === 'run') {
        if (kind === 'keyboard') allowedActivations.set(element, Date.now() + activationWindowMs);
        if (value !== undefined && (kind === 'input' || kind === 'change'))
          acceptedValues.set(element, value);
        return;
      }
      hold(event, element, kind);
      if (result.decision.action === 'ask')
        void askPerson(result, call, trigger, kind, element, event, value);
      return;
    }
    hold(event, element, kind);
    void enqueue(async () => {
      const lost = await deliverObservations();
      if (lost?.failure)
        return failureDecision(
          call.id,
          lost.failure,
          'An observation could not be delivered to the guard.',
        );
      return backend.check(call);
    }).then((result) => {
      if (result.decision.action === 'run') {
        void letThrough(result, call, trigger, kind, element, event, value);
        return;
      }
      announce(result, call, trigger, kind, element);
      if (disposed) return;
      if (result.decision.action === 'ask')
        void askPerson(result, call, trigger, kind, element, event, value);
    });
  }

  function remember(event: Event) {
    const target = event.target;
    if (target instanceof win.Element && hasValue(target) && !acceptedValues.has(target))
      acceptedValues.set(target, target.value);
  }

  const types = Object.keys(eventKinds);
  for (const type of types) win.addEventListener(type, intercept, true);
  win.addEventListener('focusin', remember, true);

  async function finish(answer?: string): Promise<PublishedVerdict> {
    const result = await enqueue(async () => {
      const lost = await deliverObservations();
      if (lost?.failure)
        return failureDecision(
          '#finish',
          lost.failure,
          'An observation could not be delivered to the guard.',
        );
      return backend.finish(answer);
    });
    return announce(result, undefined, undefined, 'finish', undefined);
  }

  return {
    guardAction(target, actionOptions) {
      if (typeof actionOptions?.action !== 'string' || actionOptions.action === '')
        throw new TypeError('guardAction: `action` must name a declared action.');
      if (typeof target !== 'string' && !(target instanceof win.Element))
        throw new TypeError('guardAction: the target must be an element or a CSS selector.');
      if (typeof target === 'string') doc.createDocumentFragment().querySelector(target); // throws on a bad selector now, not at the first event
      const on =
        actionOptions.on === undefined
          ? undefined
          : typeof actionOptions.on === 'string'
            ? [actionOptions.on]
            : [...actionOptions.on];
      const trigger: Trigger = { target, options: actionOptions, on };
      triggers.push(trigger);
      return () => {
        const index = triggers.indexOf(trigger);
        if (index >= 0) triggers.splice(index, 1);
      };
    },
    observe(updates) {
      if (backend.synchronous && queued === 0 && undelivered.length === 0)
        return Promise.resolve(backend.observe(updates) as ObserveOutcome);
      // Queued, not sent at once: a check of an earlier event must be decided before this fact.
      return enqueue(async () => {
        undelivered.push({ kind: 'observe', updates });
        return (await deliverObservations()) ?? { ok: true, problems: [] };
      });
    },
    finish,
    get last() {
      return publisher.last();
    },
    get roadmap() {
      return publisher.roadmap();
    },
    dispose() {
      disposed = true;
      for (const type of types) win.removeEventListener(type, intercept, true);
      win.removeEventListener('focusin', remember, true);
      publisher.detach();
    },
  };
}

export type { WebFailureCode };
