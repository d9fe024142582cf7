import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Agent, tool as agentsTool, run, setTracingDisabled } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { tool as aiTool, generateText, jsonSchema, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createAgent, tool as langchainTool } from 'langchain';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuard, type Guard, loadToolSchema, restoreGuard, unwrap } from '../../src/index.js';
import { guardTools } from '../../src/integrations/ai-sdk/guard-tools.js';
import {
  intentguardToolApproval,
  observeToolResults,
} from '../../src/integrations/ai-sdk/tool-approval.js';
import { intentguardMiddleware } from '../../src/integrations/langchain/index.js';
import { intentguardToolOptions } from '../../src/integrations/openai-agents/index.js';

/**
 * G1: once a call's result is in, or the call failed and was rolled back, its id is
 * spent — asking again is never `run` (that would run the tool again with no commit:
 * the review's double payment). A retry is a new call under a new id, checked and
 * committed again; a second payment under a new id is refused by the spec. Through the
 * guard, and through each adapter the way it meets a repeated tool-call id.
 */

const payTools = {
  tools: [
    {
      name: 'Pay',
      description: 'Pay someone.',
      annotations: { destructiveHint: true },
      inputSchema: {
        type: 'object',
        properties: { payee: { type: 'string' }, amount: { type: 'number' } },
        required: ['payee', 'amount'],
      },
    },
  ],
};
const schema = unwrap(loadToolSchema(JSON.stringify(payTools)));
const spec = 'Pay(payee = "Bob", amount = 250) -> Paid\nPaid -> Done';
const now = '2025-06-02T09:00';
const bob = { payee: 'Bob', amount: 250 };
const newGuard = (): Guard => createGuard(spec, schema, { now });

function expectSpent(decision: { action: string; verdict: { reasons: readonly unknown[] } }) {
  expect(decision.action).toBe('refuse');
  expect(decision.verdict.reasons[0]).toMatchObject({
    code: 'invalid-proposal',
    expected: 'a new call id',
  });
}

beforeAll(() => setTracingDisabled(true));

describe('the guard: a call id stands for one run of the tool', () => {
  it('refuses a failed, rolled-back id; the retry under a new id is checked and committed again', () => {
    const guard = newGuard();
    expect(guard.check({ id: 't-1', name: 'Pay', args: bob }).action).toBe('run');
    // Still pending: asking again (a lost answer) gives the recorded decision.
    expect(guard.check({ id: 't-1', name: 'Pay', args: bob }).action).toBe('run');
    guard.result('t-1', { error: 'gateway timeout' });
    expect(guard.status().achieved).toEqual({});

    const again = guard.check({ id: 't-1', name: 'Pay', args: bob });
    expectSpent(again);
    expect(again.verdict.reasons[0]).toMatchObject({ actual: 'rolled back' });
    expect(again.message).toContain('give it a new id');
    // Nor does an approval (or anything else) turn the spent id into `run`.
    expectSpent(guard.approve('t-1', true));
    // A late success for the failed call changes nothing.
    expect(guard.result('t-1', { output: { status: 'paid' } }).status.achieved).toEqual({});

    expect(guard.check({ id: 't-2', name: 'Pay', args: bob }).action).toBe('run');
    guard.result('t-2', { output: { status: 'paid' } });
    expect(guard.status().achieved).toEqual({ Paid: 1 });
    const done = guard.check({ id: 't-2', name: 'Pay', args: bob });
    expectSpent(done);
    expect(done.verdict.reasons[0]).toMatchObject({ actual: 'already executed' });
    // A second payment under a new id: the spec's answer (Paid is achieved once).
    const second = guard.check({ id: 't-3', name: 'Pay', args: bob });
    expect(second.action).toBe('refuse');
    expect(second.verdict.reasons[0]?.code).toBe('already-achieved');

    // A restored guard answers the same, and the refusals were not journaled.
    const restored = restoreGuard(spec, schema, guard.journal(), {});
    expectSpent(restored.check({ id: 't-1', name: 'Pay', args: bob }));
    expectSpent(restored.check({ id: 't-2', name: 'Pay', args: bob }));
    expect(restored.journal()).toEqual(guard.journal());
  });

  it('answers the recorded decision while a call waits for approval, and only then', () => {
    const guard = createGuard(`@confirm(financial, "Confirm the payment")\n${spec}`, schema, {
      now,
    });
    expect(guard.check({ id: 'a', name: 'Pay', args: bob }).action).toBe('ask');
    expect(guard.check({ id: 'a', name: 'Pay', args: bob }).action).toBe('ask');
    expect(guard.approve('a', true).action).toBe('run');
    expect(guard.check({ id: 'a', name: 'Pay', args: bob }).action).toBe('run');
    guard.result('a', { output: {} });
    expectSpent(guard.check({ id: 'a', name: 'Pay', args: bob }));
    expectSpent(guard.approve('a', true));
  });
});

describe('adapters: a model that repeats its tool-call id runs the tool once', () => {
  it('AI SDK guardTools (generateText, a mock model): the retry under the same id does not run', async () => {
    const paid: string[] = [];
    let failures = 1;
    const tools = guardTools(
      {
        Pay: aiTool({
          description: 'Pay someone.',
          inputSchema: jsonSchema<{ payee: string; amount: number }>(
            payTools.tools[0]!.inputSchema as never,
          ),
          execute: async ({ payee, amount }) => {
            paid.push(`${payee} ${amount}`);
            if (failures-- > 0) throw new Error('gateway timeout');
            return { status: 'paid' };
          },
        }),
      },
      newGuard(),
    );
    const ids = ['p1', 'p1', 'p2', 'p2', 'p3'];
    const read: string[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const last = options.prompt.at(-1);
        if (last?.role === 'tool') {
          const part = last.content[0];
          if (part?.type === 'tool-result') read.push(JSON.stringify(part.output));
        }
        const id = ids.shift();
        return {
          content:
            id === undefined
              ? [{ type: 'text', text: 'Paid Bob.' }]
              : [
                  {
                    type: 'tool-call',
                    toolCallId: id,
                    toolName: 'Pay',
                    input: JSON.stringify(bob),
                  },
                ],
          finishReason: { unified: id === undefined ? 'stop' : 'tool-calls', raw: undefined },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    await generateText({ model, tools, prompt: 'Pay Bob $250.', stopWhen: stepCountIs(10) });
    // p1 failed; p1 again did not run; p2 paid; p2 again did not run; p3 is a second payment.
    expect(paid).toEqual(['Bob 250', 'Bob 250']);
    expect(read[1]).toContain('failed and was rolled back');
    expect(read[3]).toContain('has already run');
    expect(read[4]).toContain('already');
  });

  it('AI SDK intentguardToolApproval (v7 hook) with observeToolResults', () => {
    const guard = newGuard();
    const approval = intentguardToolApproval(guard);
    const observe = observeToolResults(guard);
    const hook = (toolCallId: string) =>
      approval({ toolCall: { toolCallId, toolName: 'Pay', input: bob }, messages: [] });
    expect(hook('p1')).toBe('not-applicable');
    observe({
      toolCall: { toolCallId: 'p1' },
      toolOutput: { type: 'tool-error', error: 'timeout' },
    });
    expect(hook('p1')).toMatchObject({ type: 'denied', reason: expect.stringContaining('new id') });
    expect(hook('p2')).toBe('not-applicable');
    observe({ toolCall: { toolCallId: 'p2' }, toolOutput: { type: 'tool-result', output: {} } });
    expect(hook('p2')).toMatchObject({
      type: 'denied',
      reason: expect.stringContaining('already run'),
    });
  });

  it('OpenAI Agents: the input guardrail refuses a callId that already ran or was rolled back', async () => {
    const guard = newGuard();
    const paid: string[] = [];
    let failures = 1;
    const options = intentguardToolOptions(guard, 'Pay');
    const pay = agentsTool({
      name: 'pay',
      description: 'Pay someone.',
      parameters: z.object({ payee: z.string(), amount: z.number() }),
      execute: async ({ payee, amount }) => {
        paid.push(`${payee} ${amount}`);
        if (failures-- > 0) throw new Error('gateway timeout');
        return 'paid';
      },
      ...options,
    });
    // A real run: p1 fails (rolled back by errorFunction), p2 pays.
    const model = new ScriptedModel([
      [functionCall('pay', bob, { callId: 'p1' })],
      [functionCall('pay', bob, { callId: 'p2' })],
      [assistantMessage('Paid Bob.')],
    ]);
    await run(new Agent({ name: 'payer', instructions: 'Pay.', model, tools: [pay] }), 'Pay Bob.');
    expect(paid).toEqual(['Bob 250', 'Bob 250']);
    expect(guard.status().achieved).toEqual({ Paid: 1 });
    // The SDK skips a callId it has a result for within one run; a later run over a
    // history that repeats the id reaches the guardrail, which must not allow it.
    const guardrail = options.inputGuardrails[0]!;
    const again = (callId: string) =>
      guardrail.run({
        toolCall: { type: 'function_call', callId, name: 'pay', arguments: JSON.stringify(bob) },
        context: { isToolApproved: () => undefined },
        agent: {},
      } as never);
    for (const [callId, text] of [
      ['p1', 'failed and was rolled back'],
      ['p2', 'has already run'],
    ] as const) {
      const answer = await again(callId);
      expect(answer.behavior).toMatchObject({
        type: 'rejectContent',
        message: expect.stringContaining(text),
      });
    }
  });

  it('LangChain middleware (createAgent, a fake model): a repeated id is refused at the tool node', async () => {
    const paid: string[] = [];
    const pay = langchainTool(
      async ({ payee, amount }: { payee: string; amount: number }) => {
        paid.push(`${payee} ${amount}`);
        return 'paid';
      },
      {
        name: 'Pay',
        description: 'Pay someone.',
        schema: z.object({ payee: z.string(), amount: z.number() }),
      },
    );
    const guard = newGuard();
    const model = fakeModel()
      .respondWithTools([{ name: 'Pay', args: bob, id: 'p1' }])
      .respondWithTools([{ name: 'Pay', args: bob, id: 'p1' }])
      .respond(new AIMessage('Paid Bob.'));
    const agent = createAgent({ model, tools: [pay], middleware: [intentguardMiddleware(guard)] });
    const result = await agent.invoke({ messages: [new HumanMessage('Pay Bob $250.')] });
    expect(paid).toEqual(['Bob 250']);
    const answers = result.messages
      .filter((message) => ToolMessage.isInstance(message) && message.tool_call_id === 'p1')
      .map((message) => String(message.content));
    expect(answers).toHaveLength(2);
    expect(answers[1]).toContain('has already run');
  });
});
