import type { Spec } from '../language/index.js';
import { withAllParts } from './all-parts.js';
import {
  createSession as createSessionWith,
  type NoSpecSession,
  type SessionOptions,
  Session as SessionWith,
} from './session.js';

/*
 * Sessions as the root entry gives them: with every engine part (all-parts.ts) unless
 * `options.parts` says which. The engine's own `Session` (session.ts) takes only the parts
 * it is given, so that a page's guard carries none it does not load.
 */

/**
 * One guarded agent run over one spec: it decides each proposal before it runs
 * (LANGUAGE.md §6), takes observations, and waits for the user when it asks.
 * Synchronous, deterministic for a given clock, and fail-closed: an internal error
 * is a `reject`, never an `allow`.
 *
 * @example
 * const session = createSession(spec, { now: '2025-03-14T12:00' });
 * const verdict = session.propose({ action: { name: 'BankCheckBalance', args: {} } });
 * if (verdict.decision === 'allow') runTool();
 */
export class Session extends SessionWith {
  constructor(spec: Spec, options: SessionOptions = {}) {
    super(spec, withAllParts(options));
  }
}

/**
 * Starts a session (with every engine part unless `options.parts` says which). A missing
 * spec (formalization failed) yields a session that refuses every proposal with `no-spec`
 * — fail closed.
 */
export function createSession(spec: Spec, options?: SessionOptions): Session;
export function createSession(
  spec: Spec | undefined | null,
  options?: SessionOptions,
): Session | NoSpecSession;
export function createSession(
  spec: Spec | undefined | null,
  options: SessionOptions = {},
): Session | NoSpecSession {
  if (spec === undefined || spec === null) return createSessionWith(spec, options);
  return new Session(spec, options);
}
