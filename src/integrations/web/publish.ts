/// <reference lib="dom" />
import type { Decision, Severity } from '../../engine/verdict.js';
import type { WebFailureCode } from './backend.js';

/** Marks the dialog so the web layer never treats its own buttons as guarded targets. */
export const dialogAttribute = 'data-intentguard-dialog';

/** Where a guarded action stands after a verdict. */
export type VerdictStatus = 'allowed' | 'blocked' | 'asking' | 'approved' | 'denied';

/**
 * One verdict as the agent side reads it: on `window.intentguard` and in the
 * `intentguard:verdict` DOM event. Plain JSON, so any agent (a Playwright script, an
 * extension, a computer-use model's harness) can read it.
 */
export interface PublishedVerdict {
  /** The call id (`#finish` for a finish). */
  readonly id: string;
  readonly kind: 'action' | 'finish';
  readonly trigger: string;
  /** The action's name (`finish` for a finish). */
  readonly action: string;
  readonly label?: string;
  readonly status: VerdictStatus;
  readonly decision: Decision;
  readonly severity?: Severity;
  /** The reason codes (FORMATS.md §2), e.g. `soft-deviation`, `guard-reject`, `premature-finish`. */
  readonly codes: readonly string[];
  /** The text for the model: what to do next. */
  readonly message: string;
  readonly feedback: string;
  /** What the task still needs (for hard refusals). */
  readonly roadmap: string;
  /** The question the person was asked (for `confirm`). */
  readonly prompt: string;
  /** Whether the task is done after this verdict. */
  readonly done: boolean;
  /** Set when the web layer refused by itself (the guard could not be asked). */
  readonly failure?: WebFailureCode;
  readonly args?: unknown;
  readonly updates?: unknown;
}

/** The read-only view on `window.intentguard`. */
export interface PublishedState {
  readonly version: 1;
  /** The latest verdict. */
  readonly last: PublishedVerdict | undefined;
  /** The latest verdict's message for the model ('' before the first). */
  readonly feedback: string;
  /** The task's roadmap: what it still needs. */
  readonly roadmap: string;
  /** The latest verdicts, oldest first (at most 100). */
  readonly verdicts: readonly PublishedVerdict[];
  /** Checks and observations still on their way to a remote guard. */
  readonly pending: number;
  /**
   * Says the task is done, optionally with the agent's final answer; resolves with the
   * verdict (`status: 'allowed'` only when it is, and the answer shows no action never taken).
   */
  finish(answer?: string): Promise<PublishedVerdict>;
}

/** The DOM event every verdict is dispatched as (bubbles, composed; `detail` is the verdict). */
export const verdictEventName = 'intentguard:verdict';

interface Source {
  roadmap(): string | undefined;
  finish(answer?: string): Promise<PublishedVerdict>;
  pending(): number;
}

interface Slot {
  source: Source | undefined;
  verdicts: PublishedVerdict[];
}

const slots = new WeakMap<object, Slot>();
const maxVerdicts = 100;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const item of Object.values(value)) deepFreeze(item);
  }
  return value;
}

/**
 * Installs `window.intentguard` once per window (not writable, not configurable: page
 * scripts cannot replace it with a view that says something else), backed by the web
 * guard created last.
 */
export function publish(win: Window & typeof globalThis, source: Source) {
  let slot = slots.get(win);
  if (slot === undefined) {
    const created: Slot = { source: undefined, verdicts: [] };
    slot = created;
    slots.set(win, created);
    const last = () => created.verdicts[created.verdicts.length - 1];
    const view: PublishedState = Object.freeze({
      version: 1 as const,
      get last() {
        return last();
      },
      get feedback() {
        return last()?.message ?? '';
      },
      get roadmap() {
        return created.source?.roadmap() ?? last()?.roadmap ?? '';
      },
      get verdicts() {
        return created.verdicts.slice();
      },
      get pending() {
        return created.source?.pending() ?? 0;
      },
      finish(answer?: unknown) {
        const current = created.source;
        if (current === undefined)
          return Promise.reject(new Error('intentguard: no guard is active on this page.'));
        // A page script passes anything: only text is an answer.
        return current.finish(typeof answer === 'string' ? answer : undefined);
      },
    });
    Object.defineProperty(win, 'intentguard', {
      value: view,
      writable: false,
      configurable: false,
      enumerable: false,
    });
  }
  const own = slot;
  own.source = source;
  own.verdicts = [];
  return {
    publish(verdict: PublishedVerdict, element: Element | undefined) {
      if (own.source !== source) return;
      deepFreeze(verdict);
      own.verdicts.push(verdict);
      if (own.verdicts.length > maxVerdicts)
        own.verdicts.splice(0, own.verdicts.length - maxVerdicts);
      const target: EventTarget = element?.isConnected ? element : win.document;
      target.dispatchEvent(
        new win.CustomEvent(verdictEventName, { detail: verdict, bubbles: true, composed: true }),
      );
    },
    last: () => own.verdicts[own.verdicts.length - 1],
    roadmap: () => source.roadmap() ?? own.verdicts[own.verdicts.length - 1]?.roadmap ?? '',
    detach() {
      if (own.source === source) own.source = undefined;
    },
  };
}
