import type { Guard, GuardDecision, ToolCall } from '../../guard/index.js';
import type { GuardSource, RunContextLike } from './types.js';

/** The guard of this run: the one given, or the one the app keeps in the run's context. */
export function guardOf(source: GuardSource<never>, runContext: RunContextLike | undefined): Guard {
  if (typeof source !== 'function') return source;
  if (runContext === undefined)
    throw new TypeError(
      'intentguard: the guard is looked up in the run context, but the SDK passed none',
    );
  const guard = (source as (runContext: RunContextLike) => Guard)(runContext);
  if (typeof guard !== 'object' || guard === null || typeof guard.check !== 'function')
    throw new TypeError('intentguard: the guard source did not return a guard');
  return guard;
}

/**
 * The call as the guard first checked it, read from its journal — so that a later hook,
 * perhaps in another process after a restore, asks about the very same arguments (the
 * guard refuses a call id reused with other arguments). Undefined for an id the guard
 * has never checked.
 */
export function recordedCall(guard: Guard, id: string): ToolCall | undefined {
  return guard.call(id);
}

/** The guard's decision on a call it has already checked, without changing anything. */
export function knownDecision(guard: Guard, id: string): GuardDecision | undefined {
  return guard.decision(id);
}

/** The arguments the model wrote, parsed; the text itself when it is not JSON. */
export function parsedArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A refusal for a call the guard could not check: the run goes on, the call does not run. */
export function uncheckedMessage(error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  return `intentguard: this call could not be checked, so it did not run (${reason.slice(0, 300)}).`;
}
