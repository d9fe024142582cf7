/**
 * What the two AI SDK examples share: the task, the spec, the narration of the guard's
 * decisions and the eager agent's next move. `main.ts` plays it on ai 6 with
 * `guardTools`, `tool-approval.ts` on ai 7 with `toolApproval`.
 */
import { readFileSync } from 'node:fs';
import type { GuardEvent } from '../../src/guard/index.js';

export const task = 'Transfer $500 to Alice if my balance exceeds $1000.';
export const specText = readFileSync(
  new URL('../bank-transfer/spec.intent', import.meta.url),
  'utf8',
);

export function show(who: string, text: string): void {
  console.log(`${who.padEnd(7)} ${text}`);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `          ${line}`)
    .join('\n');
}

/** The guard's decisions, as they happen. */
export function narrate(event: GuardEvent): void {
  if (event.kind === 'decision') {
    const { action, message, prompt } = event.decision;
    if (action === 'run') show('guard', `run ${event.call.name}`);
    else if (action === 'ask') show('guard', `ask the person: ${prompt}`);
    else show('guard', `refuse; the model reads:\n${indent(message)}`);
  } else if (event.kind === 'approval') {
    show(
      'guard',
      `${event.approved ? 'approved' : 'declined'} ${event.id}: ${event.decision.action}`,
    );
  } else if (event.kind === 'finish') {
    show('guard', event.decision.action === 'run' ? 'finish: the task is done' : 'finish refused');
  }
}

/** The eager agent's next move, from the last tool result it read: a call or its last words. */
export type Move =
  | { readonly toolName: string; readonly input: object }
  | { readonly text: string };

/** An eager agent: transfers first, then does what the results tell it. */
export function nextMove(lastResult: string): Move {
  const balance = /"balance":\s*(\d+)/.exec(lastResult)?.[1];
  if (lastResult === '') return { toolName: 'BankTransfer', input: { to: 'Alice', amount: 500 } };
  if (lastResult.includes('call BankCheckBalance'))
    return { toolName: 'BankCheckBalance', input: {} };
  if (balance !== undefined && Number(balance) > 1000)
    return { toolName: 'BankTransfer', input: { to: 'Alice', amount: 500 } };
  if (lastResult.includes('"ok":true')) return { toolName: 'finish', input: {} };
  return {
    text: lastResult.includes('the task is done') ? 'Done: $500 went to Alice.' : 'I am stuck.',
  };
}

/** The text of a tool result part as the model reads it (both lines' `ToolResultOutput`). */
export function resultText(
  output: { readonly type: string; readonly value?: unknown; readonly reason?: string } | undefined,
): string {
  if (output === undefined) return '';
  if (output.type === 'text' || output.type === 'error-text') return String(output.value);
  if (output.type === 'execution-denied') return output.reason ?? 'denied';
  return JSON.stringify('value' in output ? output.value : output);
}
