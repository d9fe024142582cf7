/// <reference lib="dom" />
/**
 * The state one page guard shares between its parts (interception, confirmation, the
 * queue to the guard): created once by `createWebGuard`, passed to each part explicitly.
 */
import { type Backend, localBackend, type RemoteOptions, remoteBackend } from './backend.js';
import type { GuardActionOptions, TriggerKind, WebGuardOptions } from './options.js';
import { type PublishedVerdict, publish } from './publish.js';

export interface Trigger {
  readonly target: Element | string;
  readonly options: GuardActionOptions;
  readonly on: readonly TriggerKind[] | undefined;
}

/** A fact or a roll-back the guard is to receive, in order with the checks. */
export type Report =
  | { readonly kind: 'observe'; readonly updates: unknown }
  | { readonly kind: 'fail'; readonly id: string; readonly reason: string };

export interface PageContext {
  readonly win: Window & typeof globalThis;
  readonly doc: Document;
  readonly backend: Backend;
  /** Who answers a `confirm` verdict; none by default (W1). */
  readonly confirm: WebGuardOptions['confirm'];
  readonly approvalPollMs: number;
  readonly approvalTimeoutMs: number;
  readonly publisher: ReturnType<typeof publish>;
  readonly triggers: Trigger[];
  /** Values of guarded fields as the app last accepted them, to restore after a block. */
  readonly acceptedValues: WeakMap<Element, string>;
  /** Events this layer dispatches itself when it lets a decided action through. */
  readonly passes: { type: string; element: Element }[];
  /** Keyboard activations that were allowed: their follow-up click is the same action. */
  readonly allowedActivations: WeakMap<Element, number>;
  /** Keyboard activations that were held back: their follow-up click must not slip through. */
  readonly heldActivations: WeakMap<Element, number>;
  /** Observations and checks reach a remote guard one after another, in order. */
  queue: Promise<unknown>;
  queued: number;
  /**
   * Reports (observations, and roll-backs of calls that were allowed but not performed)
   * the guard has not received yet; no check or finish is decided before them.
   */
  readonly undelivered: Report[];
  disposed: boolean;
  /** The person's current question, if any: the next waits for it. */
  asking: Promise<void>;
}

/** Checks the options and creates the page's shared state; `finish` answers `window.intentguard.finish`. */
export function createPageContext(
  options: WebGuardOptions,
  finish: (page: PageContext, answer?: string) => Promise<PublishedVerdict>,
): PageContext {
  if ((options.guard === undefined) === (options.remote === undefined))
    throw new TypeError(
      'createWebGuard: give either `guard` (a guard in the page) or `remote` (the HTTP service).',
    );
  const win = options.window ?? (globalThis as unknown as Window & typeof globalThis);
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
  if (options.policy !== undefined && (options.guard || options.remote?.session !== undefined))
    throw new TypeError(
      'createWebGuard: `policy` goes with `remote` when the page creates the session; a guard in the page, or a session already created, has its own policy.',
    );
  const backend: Backend = options.guard
    ? localBackend(options.guard)
    : remoteBackend(options.remote as RemoteOptions, {
        spec: options.spec,
        states: statesJson,
        ...(options.policy !== undefined ? { policy: options.policy } : {}),
        ...(options.now !== undefined ? { now: options.now } : {}),
        ...(options.timeZone !== undefined ? { timeZone: options.timeZone } : {}),
      });
  if (options.confirm === 'service' && options.remote === undefined)
    throw new TypeError(
      "createWebGuard: `confirm: 'service'` needs `remote`: the person answers on the service's approvals page.",
    );
  const page: PageContext = {
    win,
    doc: win.document,
    backend,
    // No default question in the page: the agent driving the page could answer it (W1).
    confirm: options.confirm,
    approvalPollMs: options.approvalPollMs ?? 1000,
    approvalTimeoutMs: options.approvalTimeoutMs ?? 600_000,
    publisher: publish(win, {
      roadmap: () => backend.roadmap(),
      finish: (answer?: string) => finish(page, answer),
      pending: () => page.queued,
    }),
    triggers: [],
    acceptedValues: new WeakMap(),
    passes: [],
    allowedActivations: new WeakMap(),
    heldActivations: new WeakMap(),
    queue: Promise.resolve(),
    queued: 0,
    undelivered: [],
    disposed: false,
    asking: Promise.resolve(),
  };
  return page;
}

let callCounter = 0;

export function callId(): string {
  callCounter += 1;
  const random = Math.floor(Math.random() * 0x1_0000_0000).toString(36);
  return `web-${callCounter}-${random}`;
}
