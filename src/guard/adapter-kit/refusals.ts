import { internalErrorVerdict } from '../../engine/fail-closed.js';
import type { GuardDecision } from '../types.js';

/*
 * What an adapter tells the model when a call does not run and the guard's own verdict
 * is not the answer: the guard could not check it, it waits for a person, nobody can be
 * asked. Each refusal has a code and one English rendering, so that every adapter (and
 * every framework the model runs in) says the same thing for the same situation.
 */

/** A refusal an adapter makes, by code, with what its text needs. */
export type Refusal =
  /** The guard could not check the call: it threw, its source failed, the service failed. */
  | { readonly code: 'unchecked'; readonly reason: string }
  /** The guard could not check the finish. */
  | { readonly code: 'finish-unchecked'; readonly reason: string }
  /** The call waits for a person's answer, so it did not run (yet). */
  | { readonly code: 'awaiting-approval' }
  /** The call needs a person's approval and nobody can be asked here. */
  | { readonly code: 'approval-missing'; readonly question: string }
  /** The call was approved, but not in an answer the guard asked for. */
  | { readonly code: 'approval-unmatched' }
  /** A person said no. */
  | { readonly code: 'user-declined'; readonly feedback: string }
  /** The call reached its tool changed (or added) after the guard checked the model's turn. */
  | { readonly code: 'changed-after-check'; readonly name: string };

export type RefusalCode = Refusal['code'];

/** Every code, in the order of `Refusal`. */
export const refusalCodes: readonly RefusalCode[] = [
  'unchecked',
  'finish-unchecked',
  'awaiting-approval',
  'approval-missing',
  'approval-unmatched',
  'user-declined',
  'changed-after-check',
];

/** How much of a thrown error's message a refusal quotes (it may be long, or the model's own text). */
const maxReasonLength = 300;

function quoted(reason: string): string {
  return reason.slice(0, maxReasonLength);
}

/** The one English text of a refusal, as the model reads it. */
export function renderRefusal(refusal: Refusal): string {
  switch (refusal.code) {
    case 'unchecked':
    case 'finish-unchecked':
      return uncheckedText(refusal);
    case 'awaiting-approval':
      return 'intentguard: this call waits for the user’s approval and did not run. Do not repeat it; wait for the user’s answer.';
    case 'approval-missing':
      return `intentguard: refused. This call needs the user's approval (${refusal.question.trim()}), and the user could not be asked here, so it did not run. Do not repeat it; tell the user what you want to do and why, so they can do it or allow it.`;
    case 'approval-unmatched':
      return 'intentguard: refused. This call was approved, but not in an answer the guard asked for, so it did not run. Ask the user again.';
    case 'user-declined':
      return `intentguard: the user declined this call. ${refusal.feedback} Do not make it again; ask the user how to go on, or continue with the rest of the task.`;
    case 'changed-after-check':
      return `intentguard: this ${refusal.name} call was not checked after the model's turn (another middleware added or changed it), so it did not run. Make the call again if it is still needed.`;
  }
}

/** A refusal that carries the reason the guard could not decide. */
export type UncheckedRefusal = Extract<Refusal, { readonly reason: string }>;

function uncheckedText(refusal: UncheckedRefusal): string {
  return refusal.code === 'unchecked'
    ? `intentguard: refused. The call could not be checked (${quoted(refusal.reason)}), so it did not run.`
    : `intentguard: refused. The finish could not be checked (${quoted(refusal.reason)}), so the task is not finished.`;
}

/**
 * Such a refusal as a guard decision, for hosts that pass decisions on: the engine's
 * fail-closed `reject` (`internal-error`), whose message is the refusal's one text.
 */
export function refusalDecision(id: string, refusal: UncheckedRefusal): GuardDecision {
  return {
    id,
    action: 'refuse',
    verdict: internalErrorVerdict(refusal.reason),
    message: uncheckedText(refusal),
    prompt: '',
  };
}
