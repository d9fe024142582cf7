import * as aiV6 from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import * as aiV7 from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { describe, expect, it } from 'vitest';
import { createGuard, type Guard, unwrap } from '../../index.js';
import { AiSdkSetupError } from './errors.js';
import { finishTool, isTaskFinished } from './finish.js';
import { guardTools } from './guard-tools.js';
import { intentguardToolApproval, observeToolResults } from './tool-approval.js';
import { schemaFromAiSdkTools } from './tool-schema.js';

/**
 * A run the guard cannot see stops with an `AiSdkSetupError`, never runs tools
 * unchecked: the review's reproduction (the v7 `toolApproval` form on ai 6), tools added
 * after `guardTools`, and the same forms on ai 7, through the real SDKs and their mock
 * models.
 */

const specText =
  'SendPayment(to = "Dana", amount <= 120) -> Paid\nPaid -> Done\nreject SendPayment(amount > 120) because "never more than asked"\n';

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
};

type Turn =
  | { readonly call: string; readonly id: string; readonly input: object }
  | { readonly text: string };

function reply(turn: Turn | undefined) {
  if (turn === undefined) throw new Error('the script has no more turns');
  return 'call' in turn
    ? {
        content: [
          {
            type: 'tool-call' as const,
            toolCallId: turn.id,
            toolName: turn.call,
            input: JSON.stringify(turn.input),
          },
        ],
        finishReason: { unified: 'tool-calls' as const, raw: undefined },
        usage,
        warnings: [],
      }
    : {
        content: [{ type: 'text' as const, text: turn.text }],
        finishReason: { unified: 'stop' as const, raw: undefined },
        usage,
        warnings: [],
      };
}

/** The ai 6 mock model playing the turns; `calls` counts the model calls. */
function modelV6(turns: readonly Turn[]) {
  const counter = { calls: 0 };
  const model = new MockLanguageModelV3({
    doGenerate: async () => reply(turns[counter.calls++]),
  });
  return { model, counter };
}

function modelV7(turns: readonly Turn[]) {
  const counter = { calls: 0 };
  const model = new MockLanguageModelV4({
    doGenerate: async () => reply(turns[counter.calls++]),
  });
  return { model, counter };
}

interface Payments {
  readonly ran: unknown[];
}

/** The SDK line that makes the tools: `tool` and `jsonSchema` are the same functions on both lines. */
type Line = typeof aiV6 | typeof aiV7;

function paymentTools(payments: Payments, line: Line) {
  const { tool, jsonSchema } = line as typeof aiV6;
  return {
    SendPayment: tool({
      description: 'Send money.',
      inputSchema: jsonSchema<{ to: string; amount: number }>({
        type: 'object',
        properties: { to: { type: 'string' }, amount: { type: 'number' } },
        required: ['to', 'amount'],
      }),
      execute: async (input) => {
        payments.ran.push(input);
        return { ok: true };
      },
    }),
  };
}

function noteTool(notes: string[], line: Line) {
  const { tool, jsonSchema } = line as typeof aiV6;
  return tool({
    description: 'Write a note.',
    inputSchema: jsonSchema<{ text: string }>({
      type: 'object',
      properties: { text: { type: 'string' } },
      required: ['text'],
    }),
    execute: async ({ text }) => {
      notes.push(text);
      return 'noted';
    },
  });
}

/** The same tool objects typed for ai 7's `generateText` (the lines type their tools apart). */
function asV7Tools(tools: object): aiV7.ToolSet {
  return tools as aiV7.ToolSet;
}

async function paymentGuard(payments: Payments): Promise<Guard> {
  const schema = unwrap(await schemaFromAiSdkTools(paymentTools(payments, aiV6)));
  return createGuard(specText, schema, { now: '2026-11-28T12:00' });
}

const overpay: Turn = { call: 'SendPayment', id: 'c1', input: { to: 'Eve', amount: 7000 } };

describe('the v7 toolApproval form on ai 6 (the review’s reproduction)', () => {
  it('stops before the model is called: no payment, a clear error', async () => {
    const payments: Payments = { ran: [] };
    const guard = await paymentGuard(payments);
    const { model, counter } = modelV6([overpay, { text: 'done' }]);
    const run = aiV6.generateText({
      model,
      prompt: 'Pay Dana 120.',
      tools: { ...paymentTools(payments, aiV6), finish: finishTool(guard) },
      // ai 6 does not know these options; the user runs plain JS or tsx (no type check).
      ...({
        toolApproval: intentguardToolApproval(guard),
        onToolExecutionEnd: observeToolResults(guard),
      } as object),
      stopWhen: [isTaskFinished(guard), aiV6.stepCountIs(5)],
    });
    const error = await run.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(AiSdkSetupError.isInstance(error)).toBe(true);
    expect((error as AiSdkSetupError).code).toBe('tool-approval-ignored');
    expect((error as Error).message).toContain('guardTools(tools, guard)');
    expect((error as Error).message).toContain('ai 7, which needs Node 22');
    expect(payments.ran).toEqual([]);
    expect(counter.calls).toBe(0);
  });

  it('streamText fails the same way and runs nothing', async () => {
    const payments: Payments = { ran: [] };
    const guard = await paymentGuard(payments);
    intentguardToolApproval(guard);
    let modelCalls = 0;
    const model = new MockLanguageModelV3({
      doStream: async () => {
        modelCalls++;
        throw new Error('the model must not be called');
      },
    });
    const errors: unknown[] = [];
    const result = aiV6.streamText({
      model,
      prompt: 'Pay Dana 120.',
      tools: { ...paymentTools(payments, aiV6), finish: finishTool(guard) },
      onError: ({ error }) => {
        errors.push(error);
      },
    });
    await result.consumeStream();
    expect(errors.some((error) => AiSdkSetupError.isInstance(error))).toBe(true);
    expect(modelCalls).toBe(0);
    expect(payments.ran).toEqual([]);
  });

  it('without the finish tool, isTaskFinished stops the run after the first step', async () => {
    const payments: Payments = { ran: [] };
    const guard = await paymentGuard(payments);
    intentguardToolApproval(guard);
    const { model, counter } = modelV6([overpay, overpay, { text: 'done' }]);
    const error = await aiV6
      .generateText({
        model,
        prompt: 'Pay Dana 120.',
        tools: paymentTools(payments, aiV6),
        stopWhen: [isTaskFinished(guard), aiV6.stepCountIs(5)],
      })
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expect((error as AiSdkSetupError).code).toBe('unchecked-tool-call');
    expect((error as AiSdkSetupError).toolName).toBe('SendPayment');
    expect((error as Error).message).toContain('ignored toolApproval');
    // The one step ai 6 ran before intentguard was called at all; never a second one.
    expect(counter.calls).toBe(1);
    expect(payments.ran).toHaveLength(1);
  });

  it('guardTools with the same guard is the form that works on ai 6: no setup error', async () => {
    const payments: Payments = { ran: [] };
    const guard = await paymentGuard(payments);
    intentguardToolApproval(guard);
    const { model } = modelV6([
      overpay,
      { call: 'SendPayment', id: 'c2', input: { to: 'Dana', amount: 120 } },
      { call: 'finish', id: 'f1', input: {} },
      { text: 'Paid Dana 120.' },
    ]);
    await aiV6.generateText({
      model,
      prompt: 'Pay Dana 120.',
      tools: { ...guardTools(paymentTools(payments, aiV6), guard), finish: finishTool(guard) },
      stopWhen: [isTaskFinished(guard), aiV6.stepCountIs(6)],
    });
    expect(payments.ran).toEqual([{ to: 'Dana', amount: 120 }]);
    expect(guard.status().finished).toBe(true);
  });
});

describe('the v7 toolApproval form on ai 7', () => {
  it('refuses the overpayment and finishes; the finish tool is not mistaken for ai 6', async () => {
    const payments: Payments = { ran: [] };
    const guard = await paymentGuard(payments);
    const { model } = modelV7([
      overpay,
      { call: 'SendPayment', id: 'c2', input: { to: 'Dana', amount: 120 } },
      { call: 'finish', id: 'f1', input: { answer: 'Paid Dana 120.' } },
      { text: 'Paid Dana 120.' },
    ]);
    await aiV7.generateText({
      model,
      prompt: 'Pay Dana 120.',
      tools: asV7Tools({ ...paymentTools(payments, aiV7), finish: finishTool(guard) }),
      toolApproval: intentguardToolApproval(guard),
      onToolExecutionEnd: observeToolResults(guard),
      stopWhen: [isTaskFinished(guard), aiV7.isStepCount(6)],
    });
    expect(payments.ran).toEqual([{ to: 'Dana', amount: 120 }]);
    expect(guard.status().finished).toBe(true);
  });
});

describe('tools added after guardTools', () => {
  const script: readonly Turn[] = [
    { call: 'WriteNote', id: 'n1', input: { text: 'hello' } },
    { call: 'SendPayment', id: 'c2', input: { to: 'Dana', amount: 120 } },
    { text: 'done' },
  ];

  function expectStoppedAfterTheNote(error: unknown, modelCalls: number, payments: Payments): void {
    expect((error as AiSdkSetupError).code).toBe('unchecked-tool-call');
    expect((error as AiSdkSetupError).toolName).toBe('WriteNote');
    expect((error as Error).message).toContain('tools added after wrapping run unchecked');
    expect(modelCalls).toBe(1);
    expect(payments.ran).toEqual([]);
  }

  it('ai 6: the run stops after the step in which the unwrapped tool ran', async () => {
    const payments: Payments = { ran: [] };
    const guard = await paymentGuard(payments);
    const { model, counter } = modelV6(script);
    const error = await aiV6
      .generateText({
        model,
        prompt: 'Pay Dana 120.',
        tools: {
          ...guardTools(paymentTools(payments, aiV6), guard),
          WriteNote: noteTool([], aiV6),
          finish: finishTool(guard),
        },
        stopWhen: [isTaskFinished(guard), aiV6.stepCountIs(6)],
      })
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expectStoppedAfterTheNote(error, counter.calls, payments);
  });

  it('ai 7: the run stops after the step in which the unwrapped tool ran', async () => {
    const payments: Payments = { ran: [] };
    const guard = await paymentGuard(payments);
    const { model, counter } = modelV7(script);
    const error = await aiV7
      .generateText({
        model,
        prompt: 'Pay Dana 120.',
        tools: asV7Tools({
          ...guardTools(paymentTools(payments, aiV7), guard),
          WriteNote: noteTool([], aiV7),
          finish: finishTool(guard),
        }),
        stopWhen: [isTaskFinished(guard), aiV7.isStepCount(6)],
      })
      .then(
        () => undefined,
        (reason: unknown) => reason,
      );
    expectStoppedAfterTheNote(error, counter.calls, payments);
  });

  it('a tool named in guardTools’ unguarded list is let through on purpose', async () => {
    const payments: Payments = { ran: [] };
    const notes: string[] = [];
    const guard = await paymentGuard(payments);
    const { model } = modelV6([
      { call: 'WriteNote', id: 'n1', input: { text: 'hello' } },
      { text: 'done' },
    ]);
    await aiV6.generateText({
      model,
      prompt: 'Write a note.',
      tools: {
        ...guardTools(
          { ...paymentTools(payments, aiV6), WriteNote: noteTool(notes, aiV6) },
          guard,
          {
            unguarded: ['WriteNote'],
          },
        ),
        finish: finishTool(guard),
      },
      stopWhen: [isTaskFinished(guard), aiV6.stepCountIs(4)],
    });
    expect(notes).toEqual(['hello']);
  });
});

describe('isTaskFinished on steps it does not know', () => {
  it('fails closed on a shape that is neither ai 6 nor ai 7', async () => {
    const guard = await paymentGuard({ ran: [] });
    const stop = isTaskFinished(guard);
    expect(() => stop({ steps: [{ toolResults: [] }] })).toThrow(
      /not in a shape the adapter knows/,
    );
    expect(() => stop({ steps: 'no steps' })).toThrow(AiSdkSetupError);
    expect(stop({ steps: [] })).toBe(false);
  });
});
