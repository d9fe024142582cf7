import type { Guard } from '../../guard/index.js';

/**
 * The guard's question for a call waiting for a person's approval, or `undefined` when
 * the call is not waiting. On ai 7 the question is the approval request's `reason`; ai 6's
 * `tool-approval-request` carries no reason, so a v6 UI asks the server for it by the
 * call's id (`toolCallId` of the approval part), from the guard of the chat (restored
 * from its journal on a stateless server).
 *
 * @example
 * // ai 6, in the chat route, after the run paused on an approval:
 * const questions = Object.fromEntries(
 *   guard.status().pendingIds.map((id) => [id, pendingPrompt(guard, id)]),
 * );
 * // send them with the stream, e.g. as message metadata, for the UI's approval dialog
 */
export function pendingPrompt(guard: Guard, toolCallId: string): string | undefined {
  if (guard.state(toolCallId) !== 'asked') return undefined;
  const prompt = guard.decision(toolCallId)?.prompt;
  return prompt === undefined || prompt === '' ? undefined : prompt;
}
