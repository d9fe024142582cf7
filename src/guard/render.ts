import type { Verdict } from '../engine/verdict.js';

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

/** The question a person is asked for a `confirm` verdict: what runs, and why it asks. */
export function renderForPerson(name: string, args: unknown, verdict: Verdict): string {
  let shown: string;
  try {
    shown = JSON.stringify(args ?? {}) ?? '{}';
  } catch {
    shown = '(arguments that cannot be shown)';
  }
  if (shown.length > 500) shown = `${shown.slice(0, 500)}…`;
  const why = verdict.reasons.map((reason) => reason.message).join(' ');
  return `Allow ${name} ${shown}? ${why}`.trim();
}
