/// <reference lib="dom" />
import type { Verdict } from '../../engine/verdict.js';
import type { Guard, GuardDecision, ToolCall } from '../../guard/types.js';
import { errorMessage } from '../../support/error-message.js';

/**
 * Where the web layer's decisions come from: a guard in the page (synchronous) or the
 * HTTP service (asynchronous). Either way a failure is a refusal, never an allow.
 */

/** Why the web layer refused without a verdict from the guard. */
export type WebFailureCode =
  /** The service could not be reached (network error, refused connection, CORS). */
  | 'guard-unreachable'
  /** The service did not answer in time. */
  | 'guard-timeout'
  /** The service answered with an error, or with something that is not a decision. */
  | 'guard-error'
  /** The trigger's `args` or `updates` function threw or returned something unusable. */
  | 'trigger-error'
  /**
   * What the action would do changed while it was being decided (a form field edited
   * while the dialog or the service answered), or its element left the page: it was not
   * performed, and the guard was told so (the allowed call is rolled back).
   */
  | 'stale-decision';

export interface BackendDecision {
  readonly decision: GuardDecision;
  /** Set when the refusal comes from the web layer itself, not from a verdict. */
  readonly failure?: WebFailureCode;
}

export interface ObserveOutcome {
  readonly ok: boolean;
  readonly problems: readonly unknown[];
  readonly failure?: WebFailureCode;
}

export interface Backend {
  /** True when every answer is available at once: allowed events then pass untouched. */
  readonly synchronous: boolean;
  check(call: ToolCall): BackendDecision | Promise<BackendDecision>;
  approve(id: string, approved: boolean): BackendDecision | Promise<BackendDecision>;
  observe(updates: unknown): ObserveOutcome | Promise<ObserveOutcome>;
  finish(answer?: string): BackendDecision | Promise<BackendDecision>;
  /** An allowed call that was not performed after all: the guard rolls it back. */
  fail(id: string, reason: string): ObserveOutcome | Promise<ObserveOutcome>;
  /** The task's roadmap when the backend can tell it (a page guard can, the service does in its verdicts). */
  roadmap(): string | undefined;
}

/** A refusal made by the web layer: a `reject` verdict with the `internal-error` reason. */
export function failureDecision(
  id: string,
  failure: WebFailureCode,
  detail: string,
): BackendDecision {
  const message = `intentguard: reject.\n${detail} The action was blocked (fail closed).`;
  const verdict: Verdict = {
    decision: 'reject',
    reasons: [{ code: 'internal-error', message: detail }],
    performs: [],
    achieved: {},
    done: false,
    feedback: detail,
  };
  return { decision: { id, action: 'refuse', verdict, message, prompt: '' }, failure };
}

export function describe(error: unknown): string {
  return errorMessage(error);
}

/** A guard running in the page (`createGuard` from the root export). */
export function localBackend(guard: Guard): Backend {
  return {
    synchronous: true,
    check(call) {
      try {
        return { decision: guard.check(call) };
      } catch (error) {
        return failureDecision(
          call.id,
          'trigger-error',
          `The action could not be checked: ${describe(error)}.`,
        );
      }
    },
    approve(id, approved) {
      try {
        return { decision: guard.approve(id, approved) };
      } catch (error) {
        return failureDecision(
          id,
          'guard-error',
          `The answer could not be recorded: ${describe(error)}.`,
        );
      }
    },
    observe(updates) {
      try {
        const result = guard.observe(updates);
        return { ok: result.ok, problems: result.problems };
      } catch (error) {
        return { ok: false, problems: [{ message: describe(error) }], failure: 'guard-error' };
      }
    },
    finish(answer) {
      const decide = (): BackendDecision => {
        try {
          return { decision: guard.finish(answer) };
        } catch (error) {
          return failureDecision(
            '#finish',
            'guard-error',
            `The finish could not be checked: ${describe(error)}.`,
          );
        }
      };
      // A guard loaded from a compiled spec loads what checking an answer needs on demand.
      if (answer === undefined || guard.prepareAnswer === undefined) return decide();
      return guard
        .prepareAnswer()
        .then(decide, (error: unknown) =>
          failureDecision(
            '#finish',
            'guard-error',
            `The finish could not be checked: ${describe(error)}.`,
          ),
        );
    },
    fail(id, reason) {
      try {
        const result = guard.result(id, { error: reason });
        return { ok: result.ok, problems: result.problems };
      } catch (error) {
        return { ok: false, problems: [{ message: describe(error) }], failure: 'guard-error' };
      }
    },
    roadmap: () => guard.roadmap(),
  };
}

/** The HTTP service (`intentguard serve`, docs/service.md). */
export interface RemoteOptions {
  /** The service's base URL, e.g. `http://127.0.0.1:8787` (the service needs `--cors` for the page's origin). */
  readonly url: string;
  /** A bearer token of the service. Page scripts can read it: see the trust model in docs/web.md. */
  readonly token: string;
  /** An existing session to use (created by the app's server); otherwise one is created from `spec` and `states`. */
  readonly session?: string;
  /** How long one request may take before the action is blocked (default 5000 ms). */
  readonly timeoutMs?: number;
}

export interface RemoteSessionInput {
  readonly spec?: string | undefined;
  readonly states?: unknown;
  readonly policy?: string;
  readonly now?: string;
  readonly timeZone?: string;
}

/**
 * The service as a backend. Its client is loaded on first use (remote-backend.ts): a page
 * whose guard runs in the page never downloads it. A client that cannot be loaded blocks
 * every action, like a service that cannot be reached.
 */
export function remoteBackend(options: RemoteOptions, input: RemoteSessionInput): Backend {
  let loaded: Backend | undefined;
  const loading = import('./remote-backend.js').then((module) => {
    loaded = module.createRemoteBackend(options, input, { describe, failureDecision });
    return loaded;
  });
  const unloaded = (error: unknown) =>
    `The client of the guard service could not be loaded (${describe(error)}).`;
  const refused = (id: string) => (error: unknown) =>
    failureDecision(id, 'guard-unreachable', unloaded(error));
  const unobserved = (error: unknown): ObserveOutcome => ({
    ok: false,
    problems: [{ message: unloaded(error) }],
    failure: 'guard-unreachable',
  });
  return {
    synchronous: false,
    check: (call) => loading.then((backend) => backend.check(call), refused(call.id)),
    approve: (id, approved) =>
      loading.then((backend) => backend.approve(id, approved), refused(id)),
    observe: (updates) => loading.then((backend) => backend.observe(updates), unobserved),
    finish: (answer) => loading.then((backend) => backend.finish(answer), refused('#finish')),
    fail: (id, reason) => loading.then((backend) => backend.fail(id, reason), unobserved),
    roadmap: () => loaded?.roadmap(),
  };
}
