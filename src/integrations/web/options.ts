/// <reference lib="dom" />
/** The page guard's public options and interface (`intentguard/web`). */
import type { Guard } from '../../guard/types.js';
import type { ObserveOutcome, RemoteOptions } from './backend.js';
import type { ConfirmRequest } from './dialog.js';
import type { PublishedVerdict } from './publish.js';
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

export type FromContext<T> = T | ((context: ActionContext) => T);

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
  /**
   * For `remote` without a session: the operator's policy text (LANGUAGE.md §8), sent with
   * the spec; the service checks it (and may refuse one of the page's own when it has its
   * `--policy`). A guard in the page takes its policy in its own options
   * (`createGuard(spec, schema, { policy })`); with `guard` or a `remote.session` this is
   * refused, never ignored.
   */
  readonly policy?: string;
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
