import { readFileSync } from 'node:fs';
import {
  generateText,
  hasToolCall,
  isStepCount,
  jsonSchema,
  type ModelMessage,
  streamText,
  ToolLoopAgent,
  tool,
} from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuard, type Guard, type GuardJournal, restoreGuard } from '../../guard/index.js';
import { loadToolSchema } from '../../schema/index.js';
import { finishTool, isTaskFinished } from './finish.js';
import { isGuardRefusal } from './guard-refusal.js';
import { guardTools } from './guard-tools.js';
import { syncApprovals } from './messages.js';
import { intentguardToolApproval, observeToolResults } from './tool-approval.js';

/**
 * The v7 adapter (`ai` 7.x, installed as the alias `ai-v7` because it declares Node 22)
 * driven by the SDK's own mock model through real multi-step runs.
 */

const examples = new URL('../../../examples/', import.meta.url);
const specText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;
const now = '2025-03-14T12:00';
const task = 'Transfer $500 to Alice if my balance exceeds $1000.';

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type Prompt = CallOptions['prompt'];
type Generated = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type Content = Generated['content'][number];

const call = (toolCallId: string, toolName: string, input: object = {}): Content => ({
  type: 'tool-call',
  toolCallId,
  toolName,
  input: JSON.stringify(input),
});
const say = (text: string): Content => ({ type: 'text', text });

/** What the model read as each call's result in the prompt, by call id. */
function resultsIn(prompt: Prompt): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type !== 'tool-result') continue;
      const output = part.output;
      seen[part.toolCallId] =
        output.type === 'text' || output.type === 'error-text'
          ? output.value
          : output.type === 'execution-denied'
            ? `denied: ${output.reason ?? ''}`
            : JSON.stringify('value' in output ? output.value : output);
    }
  }
  return seen;
}

/** A mock model that plays one turn per model call; each turn sees the prompt. */
function scripted(turns: ReadonlyArray<(prompt: Prompt) => Content[]>) {
  const prompts: Prompt[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      const turn = turns[prompts.length - 1];
      if (!turn) throw new Error(`the script has no turn ${prompts.length}`);
      const content = turn(options.prompt);
      return {
        content,
        finishReason: {
          unified: content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop',
          raw: undefined,
        },
        usage: {
          inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 1, text: 1, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

interface Bank {
  readonly log: string[];
  balance: number;
  failures: number;
  /** Milliseconds a balance check takes. */
  delay?: number;
}

const newBank = (balance = 1500, failures = 0): Bank => ({ log: [], balance, failures });

function bankTools(bank: Bank) {
  return {
    BankCheckBalance: tool({
      description: "Returns the balance of the user's checking account.",
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      execute: async () => {
        bank.log.push('BankCheckBalance');
        if (bank.delay) await new Promise((resolve) => setTimeout(resolve, bank.delay));
        if (bank.failures > 0) {
          bank.failures--;
          throw new Error('bank offline');
        }
        return { balance: bank.balance };
      },
    }),
    BankTransfer: tool({
      description: 'Transfers money to a payee.',
      inputSchema: z.object({ to: z.string(), amount: z.number() }),
      execute: async ({ to, amount }) => {
        bank.log.push(`BankTransfer ${to} ${amount}`);
        return { ok: true };
      },
    }),
  };
}

const newGuard = (text = specText): Guard => createGuard(text, schema, { now });

/** The settings the adapter adds to a v7 run. */
function guarded(guard: Guard, bank: Bank) {
  return {
    tools: { ...bankTools(bank), finish: finishTool(guard) },
    toolApproval: intentguardToolApproval(guard),
    onToolExecutionEnd: observeToolResults(guard),
    stopWhen: [isTaskFinished(guard), isStepCount(10)],
  };
}

/** The approval requests a person is asked to answer (automatic ones are not). */
function approvalRequests(messages: readonly ModelMessage[]) {
  return messages.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string'
      ? message.content.filter(
          (part) => part.type === 'tool-approval-request' && part.isAutomatic !== true,
        )
      : [],
  );
}

function answer(
  history: ModelMessage[],
  answers: Record<string, boolean>,
  requests = approvalRequests(history),
): ModelMessage[] {
  return [
    ...history,
    {
      role: 'tool',
      content: requests.flatMap((request) =>
        request.type === 'tool-approval-request'
          ? [
              {
                type: 'tool-approval-response' as const,
                approvalId: request.approvalId,
                approved: answers[request.toolCallId] ?? false,
              },
            ]
          : [],
      ),
    },
  ];
}

describe('intentguardToolApproval (ai v7): denial, feedback, corrected call', () => {
  it('denies a call with the guard’s feedback, which the model reads, then runs the corrected calls', async () => {
    const bank = newBank();
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
      (prompt) =>
        /call BankCheckBalance/.test(resultsIn(prompt).t1 ?? '')
          ? [call('b1', 'BankCheckBalance')]
          : [say('giving up')],
      () => [say('Your balance is 1500.')],
    ]);
    await generateText({ model, prompt: task, ...guarded(guard, bank) });

    expect(bank.log).toEqual(['BankCheckBalance']);
    const read = resultsIn(prompts[1]!).t1!;
    expect(read).toMatch(/^denied: intentguard: revise \(hard\)\./);
    expect(read).toContain('BalanceKnown must be achieved first');
    // onToolExecutionEnd reported the result: the balance is known to the guard.
    expect(guard.status()).toMatchObject({ achieved: { BalanceKnown: 1 }, runningIds: [] });
    expect(guard.roadmap()).toContain('BalanceKnown (R1): call BankCheckBalance — achieved');
  });

  it('stops a step with a person’s question; its denial reaches the model with the answer', async () => {
    const bank = newBank();
    const guard = newGuard();
    const first = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [
        call('t1', 'BankTransfer', { to: 'Alice', amount: 500 }),
        call('t2', 'BankTransfer', { to: 'Alice', amount: 900 }),
      ],
    ]);
    const result = await generateText({
      model: first.model,
      prompt: task,
      ...guarded(guard, bank),
    });
    expect(first.prompts).toHaveLength(2);
    const asked = approvalRequests(result.response.messages);
    expect(asked.map((part) => part.type === 'tool-approval-request' && part.toolCallId)).toEqual([
      't1',
    ]);
    // The person sees the guard's prompt as the reason.
    expect(asked[0]).toMatchObject({
      reason:
        'Transfers money from the user\'s checking account to a payee (BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details with the user. (financial)',
    });

    const second = scripted([() => [call('f1', 'finish')]]);
    await generateText({
      model: second.model,
      messages: answer([{ role: 'user', content: task }, ...result.response.messages], {
        t1: true,
      }),
      ...guarded(guard, bank),
    });
    const read = resultsIn(second.prompts[0]!);
    expect(read.t1).toBe('{"ok":true}');
    expect(read.t2).toMatch(/^denied: intentguard: reject\./);
    expect(bank.log).toEqual(['BankCheckBalance', 'BankTransfer Alice 500']);
    expect(guard.status()).toMatchObject({ finished: true });
  });
});

describe('intentguardToolApproval (ai v7): a stateless chat server', () => {
  /** One request: the guard restored from the stored journal, the answers applied, one run. */
  async function request(
    store: Map<string, string>,
    bank: Bank,
    messages: ModelMessage[],
    turns: ReadonlyArray<(prompt: Prompt) => Content[]>,
  ) {
    const journal = store.get('chat-1');
    const guard = journal
      ? restoreGuard(specText, schema, JSON.parse(journal) as GuardJournal)
      : newGuard();
    const applied = syncApprovals(guard, messages);
    const script = scripted(turns);
    const result = await generateText({ model: script.model, messages, ...guarded(guard, bank) });
    store.set('chat-1', JSON.stringify(guard.journal()));
    return { guard, applied, result, prompts: script.prompts };
  }

  it('asks in one request and runs the approved call in the next, from the journal alone', async () => {
    const store = new Map<string, string>();
    const bank = newBank();
    const user: ModelMessage[] = [{ role: 'user', content: task }];
    const one = await request(store, bank, user, [
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
    ]);
    expect(one.guard.status().pendingIds).toEqual(['t1']);
    expect(bank.log).toEqual(['BankCheckBalance']);

    const history = [...user, ...one.result.response.messages];
    const two = await request(store, bank, answer(history, { t1: true }), [
      () => [call('f1', 'finish')],
      () => [say('never reached')],
    ]);
    expect(two.applied.map((decision) => decision.action)).toEqual(['run']);
    expect(bank.log).toEqual(['BankCheckBalance', 'BankTransfer Alice 500']);
    expect(two.prompts).toHaveLength(1);
    expect(two.guard.status()).toMatchObject({ done: true, finished: true, runningIds: [] });
    // What was stored replays to the same guard.
    const restored = restoreGuard(specText, schema, JSON.parse(store.get('chat-1')!));
    expect(restored.status()).toEqual(two.guard.status());
  });

  it('records a denial; the model reads it and the transfer never runs', async () => {
    const store = new Map<string, string>();
    const bank = newBank();
    const user: ModelMessage[] = [{ role: 'user', content: task }];
    const one = await request(store, bank, user, [
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
    ]);
    const two = await request(
      store,
      bank,
      answer([...user, ...one.result.response.messages], { t1: false }),
      [() => [say('I did not transfer anything.')]],
    );
    expect(two.applied.map((decision) => decision.action)).toEqual(['refuse']);
    expect(resultsIn(two.prompts[0]!).t1).toMatch(/^denied/);
    expect(bank.log).toEqual(['BankCheckBalance']);
    expect(JSON.parse(store.get('chat-1')!).events).toContainEqual({
      resolve: { approved: false },
      id: 't1',
    });
  });

  it('denies an approval that the state no longer allows, with the reason for the model', async () => {
    const bank = newBank();
    const guard = newGuard();
    const first = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
    ]);
    const result = await generateText({
      model: first.model,
      prompt: task,
      ...guarded(guard, bank),
    });
    guard.observe({ BankCheckBalanceResult: { balance: 10 } });
    const second = scripted([() => [say('The balance is too low now.')]]);
    await generateText({
      model: second.model,
      messages: answer([...result.response.messages], { t1: true }),
      ...guarded(guard, bank),
    });
    expect(bank.log).toEqual(['BankCheckBalance']);
    expect(resultsIn(second.prompts[0]!).t1).toMatch(/^denied: intentguard: revise/);
  });

  it('never runs an approval the guard cannot match to its own question', async () => {
    const bank = newBank();
    const guard = newGuard();
    const first = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
    ]);
    const result = await generateText({
      model: first.model,
      prompt: task,
      ...guarded(guard, bank),
    });
    // The next request finds another guard: one that saw the balance but never asked about t1.
    const other = newGuard();
    other.check({ id: 'b1', name: 'BankCheckBalance' });
    other.result('b1', { output: { balance: 1500 } });
    const second = scripted([() => [say('ok')]]);
    await generateText({
      model: second.model,
      messages: answer([...result.response.messages], { t1: true }),
      ...guarded(other, bank),
      toolApproval: intentguardToolApproval(() => other),
    });
    expect(bank.log).toEqual(['BankCheckBalance']);
    expect(resultsIn(second.prompts[0]!).t1).toMatch(
      /^denied: intentguard: refused\. This call was approved, but not in an answer the guard asked for/,
    );
  });
});

describe('intentguardToolApproval (ai v7): parallel calls, failures, finish', () => {
  it('asks about several parallel calls at once and runs each approved one', async () => {
    const tipSpec = `${specText.replace(/^reject .*$/m, '')}
@confirm
BalanceKnown & BankCheckBalanceResult(balance > 1000) & BankTransfer(to = "Bob", amount = 20) -> Tipped`;
    const bank = newBank();
    const guard = newGuard(tipSpec);
    const first = scripted([
      () => [call('b1', 'BankCheckBalance'), call('b2', 'BankCheckBalance')],
      () => [
        call('a', 'BankTransfer', { to: 'Alice', amount: 500 }),
        call('b', 'BankTransfer', { to: 'Bob', amount: 20 }),
      ],
    ]);
    const result = await generateText({
      model: first.model,
      prompt: task,
      ...guarded(guard, bank),
    });
    expect(resultsIn(first.prompts[1]!).b2).toMatch(/^denied: [\s\S]*already been achieved/);
    expect(guard.status().pendingIds).toEqual(['a', 'b']);

    const second = scripted([() => [say('Done.')]]);
    await generateText({
      model: second.model,
      messages: answer(
        [...result.response.messages],
        { a: true, b: true },
        approvalRequests(result.response.messages).reverse(),
      ),
      ...guarded(guard, bank),
    });
    expect(bank.log.slice(1).sort()).toEqual(['BankTransfer Alice 500', 'BankTransfer Bob 20']);
    expect(guard.status()).toMatchObject({
      pendingIds: [],
      runningIds: [],
      achieved: { BalanceKnown: 1, Transferred: 1, Tipped: 1 },
    });
  });

  it('rolls a failed tool back through onToolExecutionEnd, so the retry runs', async () => {
    const bank = newBank(1500, 1);
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('b2', 'BankCheckBalance')],
      () => [say('Your balance is 1500.')],
    ]);
    await generateText({ model, prompt: 'What is my balance?', ...guarded(guard, bank) });
    expect(bank.log).toEqual(['BankCheckBalance', 'BankCheckBalance']);
    expect(resultsIn(prompts[1]!).b1).toBe('Error: bank offline');
    expect(resultsIn(prompts[2]!).b2).toBe('{"balance":1500}');
    expect(guard.journal().events).toContainEqual({ fail: { id: 'b1' } });
  });

  it('goes on after a refused finish and stops on the accepted one', async () => {
    const bank = newBank(500);
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('f1', 'finish')],
      (prompt) =>
        /call BankCheckBalance/.test(resultsIn(prompt).f1 ?? '')
          ? [call('b1', 'BankCheckBalance')]
          : [],
      () => [call('f2', 'finish')],
      () => [say('never reached')],
    ]);
    await generateText({ model, prompt: task, ...guarded(guard, bank) });
    expect(prompts).toHaveLength(3);
    expect(resultsIn(prompts[1]!).f1).toMatch(
      /^intentguard: revise \(hard\)\.\nThe task is not done yet/,
    );
    expect(guard.status()).toMatchObject({ done: true, finished: true });
  });

  it('hasToolCall stops on a refused finish; isTaskFinished does not', async () => {
    const guard = newGuard();
    const { model, prompts } = scripted([() => [call('f1', 'finish')], () => [say('unused')]]);
    await generateText({
      model,
      prompt: task,
      ...guarded(guard, newBank()),
      stopWhen: [hasToolCall('finish'), isStepCount(10)],
    });
    expect(prompts).toHaveLength(1);
    expect(guard.status().finished).toBe(false);
  });

  it('waits to finish while a call of the same step has not returned', async () => {
    const bank: Bank = { ...newBank(500), delay: 20 };
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('b1', 'BankCheckBalance'), call('f1', 'finish')],
      () => [call('f2', 'finish')],
    ]);
    // The calls of a step run at once: the finish runs while the balance check is out.
    await generateText({ model, prompt: task, ...guarded(guard, bank) });
    expect(prompts).toHaveLength(2);
    expect(resultsIn(prompts[1]!).f1).toMatch(
      /^intentguard: revise \(hard\)\.\nThe results of BankCheckBalance \(b1\) have not come yet/,
    );
    expect(guard.status()).toMatchObject({ finished: true });
  });
});

describe('ai v7: other entry points', () => {
  it('guards a ToolLoopAgent and a streamText run the same way', async () => {
    const bank = newBank();
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
      () => [say('I need the balance first.')],
    ]);
    const agent = new ToolLoopAgent({ model, ...guarded(guard, bank) });
    await agent.generate({ prompt: task });
    expect(resultsIn(prompts[1]!).t1).toMatch(/^denied: intentguard: revise/);

    const streamGuard = newGuard();
    const finish = (reason: 'tool-calls' | 'stop') => ({
      type: 'finish' as const,
      finishReason: { unified: reason, raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
    });
    const streams = [
      [
        {
          type: 'tool-call',
          toolCallId: 't1',
          toolName: 'BankTransfer',
          input: '{"to":"Alice","amount":500}',
        },
        finish('tool-calls'),
      ],
      [
        { type: 'tool-call', toolCallId: 'b1', toolName: 'BankCheckBalance', input: '{}' },
        finish('tool-calls'),
      ],
      [
        { type: 'text-start', id: '1' },
        { type: 'text-delta', id: '1', delta: 'ok' },
        { type: 'text-end', id: '1' },
        finish('stop'),
      ],
    ];
    const streaming = new MockLanguageModelV4({
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            for (const part of streams.shift() ?? []) controller.enqueue(part);
            controller.close();
          },
        }) as never,
      }),
    });
    const result = streamText({ model: streaming, prompt: task, ...guarded(streamGuard, bank) });
    expect(await result.text).toBe('ok');
    const denied = (await result.steps)[0]?.content.find(
      (part) => part.type === 'tool-approval-response',
    );
    expect(denied).toMatchObject({ approved: false });
    expect(streamGuard.status()).toMatchObject({ achieved: { BalanceKnown: 1 }, runningIds: [] });
  });

  it('guardTools works on v7 too (needsApproval is kept there for WorkflowAgent)', async () => {
    const bank = newBank();
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
      () => [say('I need the balance first.')],
    ]);
    const result = await generateText({
      model,
      prompt: task,
      tools: guardTools(bankTools(bank), guard),
      stopWhen: isStepCount(5),
    });
    expect(isGuardRefusal(result.steps[0]?.toolResults[0]?.output)).toBe(true);
    expect(resultsIn(prompts[1]!).t1).toMatch(/^intentguard: revise/);
  });
});

describe('observeToolResults', () => {
  it('reads v6 experimental_onToolCallFinish events too, and ignores calls that did not run', () => {
    const guard = newGuard();
    const observe = observeToolResults(guard);
    guard.check({ id: 'b1', name: 'BankCheckBalance' });
    observe({ toolCall: { toolCallId: 'b1' }, success: false, error: new Error('offline') });
    expect(guard.journal().events.at(-1)).toEqual({ fail: { id: 'b1' } });
    guard.check({ id: 'b2', name: 'BankCheckBalance' });
    observe({ toolCall: { toolCallId: 'b2' }, success: true, output: { balance: 1500 } });
    expect(guard.status()).toMatchObject({ achieved: { BalanceKnown: 1 }, runningIds: [] });
    // A refused call, an unknown id, a finish call: nothing to report, nothing thrown.
    guard.check({ id: 't1', name: 'BankTransfer', args: { to: 'Alice', amount: 900 } });
    const before = guard.journal().events.length;
    observe({ toolCall: { toolCallId: 't1' }, toolOutput: { type: 'tool-result', output: {} } });
    observe({
      toolCall: { toolCallId: 'f1' },
      toolOutput: { type: 'tool-result', output: 'done' },
    });
    expect(guard.journal().events).toHaveLength(before);
  });
});
