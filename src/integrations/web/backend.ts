/// <reference lib="dom" />
import type { Verdict } from '../../engine/verdict.js';
import type { Guard, GuardDecision, ToolCall } from '../../guard/types.js';

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

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
  readonly spec?: string;
  readonly states?: unknown;
  readonly now?: string;
  readonly timeZone?: string;
}

class RemoteFailure extends Error {
  constructor(
    readonly code: WebFailureCode,
    message: string,
  ) {
    super(message);
  }
}

const actions: ReadonlySet<string> = new Set(['run', 'ask', 'refuse']);

/** A decision from the wire, checked: anything else is a `guard-error` (fail closed). */
function readDecision(value: unknown, id: string): GuardDecision {
  const candidate = value as Partial<GuardDecision> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.action !== 'string' ||
    !actions.has(candidate.action) ||
    typeof candidate.verdict !== 'object' ||
    candidate.verdict === null ||
    typeof candidate.verdict.decision !== 'string' ||
    !Array.isArray(candidate.verdict.reasons)
  )
    throw new RemoteFailure(
      'guard-error',
      'The guard service answered with something that is not a decision.',
    );
  // An answer for another call must not release this one.
  if (candidate.id !== undefined && candidate.id !== id)
    throw new RemoteFailure(
      'guard-error',
      `The guard service answered for call '${String(candidate.id)}', not '${id}'.`,
    );
  return {
    id,
    action: candidate.action,
    verdict: candidate.verdict,
    message: typeof candidate.message === 'string' ? candidate.message : '',
    prompt: typeof candidate.prompt === 'string' ? candidate.prompt : '',
  };
}

/** The service as a backend. The session is created on first use and retried until it exists. */
export function remoteBackend(options: RemoteOptions, input: RemoteSessionInput): Backend {
  const base = options.url.replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? 5000;
  let session = options.session;
  let lastRoadmap: string | undefined;

  async function request(method: string, path: string, body?: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { Authorization: `Bearer ${options.token}`, 'Content-Type': 'application/json' },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
        credentials: 'omit',
      });
    } catch (error) {
      const name = (error as { name?: unknown } | null)?.name;
      if (name === 'TimeoutError' || name === 'AbortError')
        throw new RemoteFailure(
          'guard-timeout',
          `The guard service did not answer within ${timeoutMs} ms.`,
        );
      throw new RemoteFailure(
        'guard-unreachable',
        `The guard service at ${base} could not be reached (${describe(error)}).`,
      );
    }
    let payload: unknown;
    try {
      payload = await response.json();
    } catch {
      throw new RemoteFailure(
        'guard-error',
        `The guard service answered ${response.status} without JSON.`,
      );
    }
    if (!response.ok) {
      const problem = payload as { code?: unknown; message?: unknown } | null;
      throw new RemoteFailure(
        'guard-error',
        `The guard service answered ${response.status}${typeof problem?.code === 'string' ? ` (${problem.code})` : ''}${typeof problem?.message === 'string' ? `: ${problem.message}` : ''}.`,
      );
    }
    return payload;
  }

  async function sessionPath(): Promise<string> {
    if (session === undefined) {
      const created = (await request('POST', '/v1/sessions', {
        spec: input.spec,
        states: input.states,
        ...(input.now !== undefined ? { now: input.now } : {}),
        ...(input.timeZone !== undefined ? { timeZone: input.timeZone } : {}),
        // The app observes its own state; no call reports a result.
        finishWaitsForResults: false,
      })) as { id?: unknown } | null;
      if (typeof created?.id !== 'string')
        throw new RemoteFailure('guard-error', 'The guard service created no session.');
      session = created.id;
    }
    return `/v1/sessions/${encodeURIComponent(session)}`;
  }

  async function decide(id: string, path: string, body?: unknown): Promise<BackendDecision> {
    try {
      const decision = readDecision(
        await request('POST', `${await sessionPath()}${path}`, body),
        id,
      );
      if (decision.verdict.roadmap) lastRoadmap = decision.verdict.roadmap;
      return { decision };
    } catch (error) {
      if (error instanceof RemoteFailure) return failureDecision(id, error.code, error.message);
      return failureDecision(id, 'guard-error', describe(error));
    }
  }

  return {
    synchronous: false,
    check: (call) => decide(call.id, '/check', call),
    approve: (id, approved) => decide(id, '/approve', { id, approved }),
    finish: (answer) => decide('#finish', '/finish', answer === undefined ? undefined : { answer }),
    observe: (updates) => report('/observe', { updates }),
    fail: (id, reason) => report('/result', { id, error: reason }),
    roadmap: () => lastRoadmap,
  };

  async function report(path: string, body: unknown): Promise<ObserveOutcome> {
    try {
      const result = (await request('POST', `${await sessionPath()}${path}`, body)) as {
        ok?: unknown;
        problems?: unknown;
      } | null;
      return {
        ok: result?.ok === true,
        problems: Array.isArray(result?.problems) ? result.problems : [],
      };
    } catch (error) {
      const code = error instanceof RemoteFailure ? error.code : 'guard-error';
      return { ok: false, problems: [{ message: describe(error) }], failure: code };
    }
  }
}
