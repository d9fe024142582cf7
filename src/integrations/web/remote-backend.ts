import type { GuardDecision } from '../../guard/types.js';
import type * as backendModule from './backend.js';
import type {
  Backend,
  BackendDecision,
  ObserveOutcome,
  RemoteOptions,
  RemoteSessionInput,
  WebFailureCode,
} from './backend.js';

/**
 * What the client uses of backend.ts, passed in rather than imported: the page loaded it
 * already, and an import would split it into a chunk of its own.
 */
export interface RemoteHelpers {
  readonly describe: typeof backendModule.describe;
  readonly failureDecision: typeof backendModule.failureDecision;
}

/** The client of the HTTP service (`intentguard serve`), loaded by `remoteBackend` on first use. */

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
export function createRemoteBackend(
  options: RemoteOptions,
  input: RemoteSessionInput,
  { describe, failureDecision }: RemoteHelpers,
): Backend {
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
        ...(input.policy !== undefined ? { policy: input.policy } : {}),
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
