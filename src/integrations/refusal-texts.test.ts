import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type Refusal, renderRefusal } from '../guard/adapter-kit/index.js';
import { createGuard, type Guard, type GuardOptions } from '../guard/index.js';
import { loadToolSchema } from '../schema/index.js';
import { guardTools, intentguardToolApproval, isGuardRefusal } from './ai-sdk/index.js';
import { internalRefusal } from './http/sessions.js';
import {
  answerInterruption,
  finishToolOptions,
  intentguardToolOptions,
} from './openai-agents/index.js';

/*
 * One English text per refusal code: every adapter that meets the same situation shows
 * the model the same text, the one `renderRefusal` gives for its code.
 */

const examples = new URL('../../examples/', import.meta.url);
const bankText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;

const newGuard = (options: GuardOptions = {}): Guard =>
  createGuard(bankText, schema, { now: '2025-03-14T12:00', ...options });

/** A guard whose $500 transfer to Alice waits for a person. */
function asking(): Guard {
  const guard = newGuard();
  guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} });
  guard.result('b1', { output: { balance: 1500 } });
  expect(guard.check({ id: 't1', name: 'BankTransfer', args: transfer }).action).toBe('ask');
  return guard;
}

const transfer = { to: 'Alice', amount: 500 };
const noApproval = { context: {}, isToolApproved: () => undefined };
const transferItem = { callId: 't1', name: 'bank_transfer', arguments: JSON.stringify(transfer) };
const lost = 'intentguard: the guard source did not return a guard';
const text = (refusal: Refusal) => renderRefusal(refusal);

describe('one rendering per refusal code, in every adapter', () => {
  it('unchecked: the AI SDK (both lines), OpenAI Agents and the service', async () => {
    const approval = intentguardToolApproval(() => ({}) as Guard);
    expect(
      approval({
        toolCall: { toolCallId: 't1', toolName: 'BankTransfer', input: transfer },
        messages: [],
      }),
    ).toEqual({ type: 'denied', reason: text({ code: 'unchecked', reason: lost }) });

    const failing = newGuard({
      render: () => {
        throw new Error('renderer down');
      },
    });
    const tools = guardTools(
      { BankTransfer: { execute: async () => 'sent' } as object },
      failing,
    ) as { BankTransfer: { execute: (input: unknown, options: unknown) => Promise<unknown> } };
    const output = await tools.BankTransfer.execute(
      { to: 'Mallory', amount: 5 },
      { toolCallId: 't9', messages: [] },
    );
    expect(isGuardRefusal(output) && output.message).toBe(
      text({ code: 'unchecked', reason: 'renderer down' }),
    );

    const [guardrail] = intentguardToolOptions(() => ({}) as Guard, 'BankTransfer').inputGuardrails;
    const answer = await guardrail?.run({ context: noApproval, toolCall: transferItem });
    expect(answer?.behavior).toEqual({
      type: 'rejectContent',
      message: text({ code: 'unchecked', reason: lost }),
    });

    expect(internalRefusal('c1').message).toBe(
      text({ code: 'unchecked', reason: 'an internal error of the service' }),
    );
  });

  it('finish-unchecked: OpenAI Agents', async () => {
    const finish = finishToolOptions(() => ({}) as Guard);
    expect(await finish.execute({ summary: 'Done.' }, noApproval)).toBe(
      text({ code: 'finish-unchecked', reason: lost }),
    );
  });

  it('awaiting-approval: the AI SDK v6 tools', async () => {
    const guard = asking();
    const tools = guardTools(
      { BankTransfer: { execute: async () => 'sent' } as object },
      guard,
    ) as {
      BankTransfer: { execute: (input: unknown, options: unknown) => Promise<unknown> };
    };
    const output = await tools.BankTransfer.execute(transfer, { toolCallId: 't1', messages: [] });
    expect(isGuardRefusal(output) && output.message).toBe(text({ code: 'awaiting-approval' }));
  });

  it('approval-missing: OpenAI Agents (a call that reached its tool unasked)', async () => {
    const guard = asking();
    const [guardrail] = intentguardToolOptions(guard, 'BankTransfer').inputGuardrails;
    const answer = await guardrail?.run({ context: noApproval, toolCall: transferItem });
    expect(answer?.behavior).toEqual({
      type: 'rejectContent',
      message: text({ code: 'approval-missing', question: guard.decision('t1')?.prompt ?? '' }),
    });
  });

  it('approval-unmatched: the AI SDK v7 approval', () => {
    const guard = asking();
    const replayed = [
      {
        role: 'assistant',
        content: [{ type: 'tool-approval-request', approvalId: 'a1', toolCallId: 't1' }],
      },
    ];
    expect(
      intentguardToolApproval(guard)({
        toolCall: { toolCallId: 't1', toolName: 'BankTransfer', input: transfer },
        messages: replayed,
      }),
    ).toEqual({ type: 'denied', reason: text({ code: 'approval-unmatched' }) });
  });

  it('user-declined: the guard itself and OpenAI Agents say the same', () => {
    const guard = asking();
    const feedback = guard.decision('t1')?.verdict.feedback ?? '';
    const rejected: unknown[] = [];
    const state = {
      getInterruptions: () => [],
      approve: () => undefined,
      reject: (_item: unknown, options: unknown) => rejected.push(options),
    };
    const item = { type: 'tool_approval_item', rawItem: { callId: 't1' } };
    const decision = answerInterruption(state as never, guard, item as never, false);
    expect(decision?.message).toBe(text({ code: 'user-declined', feedback }));
    expect(rejected).toEqual([{ message: text({ code: 'user-declined', feedback }) }]);
  });
});
