import { errorMessage } from '../../support/error-message.js';
import type { Guard, GuardDecision, ToolCall } from '../types.js';
import { refusalDecision } from './refusals.js';

/*
 * The adapters' fail-closed invariant, in one place: whatever goes wrong while a call is
 * checked — the guard source, a host's `render`, a restore, a remote guard — the call is
 * refused with a text the model can act on, never run unchecked, and the run goes on.
 */

/** The id a refusal of this call carries: the call's own, when it has one. */
function idOf(call: unknown): string {
  const id = typeof call === 'object' && call !== null ? (call as { id?: unknown }).id : undefined;
  return typeof id === 'string' ? id : '';
}

/**
 * `guard.check(call)`, failing closed. `guard` may be a function that finds the guard
 * (and, say, applies approvals first): its failure refuses the call the same way.
 * `onError` hears the error (a log line), never the model.
 */
export function checkOrRefuse(
  guard: Guard | (() => Guard),
  call: ToolCall,
  onError?: (error: unknown) => void,
): GuardDecision {
  try {
    const current = typeof guard === 'function' ? guard() : guard;
    return current.check(call);
  } catch (error) {
    onError?.(error);
    return refusalDecision(idOf(call), { code: 'unchecked', reason: errorMessage(error) });
  }
}
