import type { Verdict } from '../engine/verdict.js';
import { maxPromptLength, type PersonContext, personPrompt } from './person-prompt.js';

/**
 * The text a model reads for a verdict. Every framework delivers a refusal as the
 * tool's result string, so the text starts with a stable prefix the model (and a log
 * reader) can recognise, says what to do, and carries the roadmap for hard refusals.
 *
 * @example
 * renderForModel(verdict);
 * // "intentguard: revise (hard). BankTransfer must be called with to equal to "Alice"…"
 */
export function renderForModel(verdict: Verdict): string {
  const head =
    verdict.decision === 'revise'
      ? `intentguard: revise (${verdict.severity ?? 'hard'}).`
      : `intentguard: ${verdict.decision}.`;
  const parts = [head, verdict.feedback];
  if (verdict.decision === 'revise' && verdict.severity === 'soft')
    parts.push('If this step is what the user asked for, propose it again unchanged.');
  if (verdict.roadmap !== undefined && verdict.roadmap !== '') parts.push(verdict.roadmap);
  return parts.join('\n');
}

/**
 * The question a person is asked for a `confirm` verdict: what runs, and why it asks;
 * the arguments a guard or rule constrains and the call's target first, each value cut
 * on its own (`personPrompt`). When the bounded question cannot show all of those, the
 * text says so and asks nothing; the guard refuses such a call instead of asking.
 */
export function renderForPerson(
  name: string,
  args: unknown,
  verdict: Verdict,
  context?: PersonContext,
): string {
  return (
    personPrompt(name, args, verdict, context) ??
    `${unshowableCall} ${verdict.reasons.map((reason) => reason.message).join(' ')}`.slice(
      0,
      maxPromptLength,
    )
  );
}

/** Why a call is refused instead of asked about when its question cannot show it. */
export const unshowableCall =
  'Do not approve: this call has more arguments that need your attention than one question can show, so it cannot be approved as it stands.';
