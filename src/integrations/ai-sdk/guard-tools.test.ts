import { readFileSync } from 'node:fs';
import {
  generateText,
  hasToolCall,
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  streamText,
  tool,
} from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuard, type Guard, type GuardJournal, restoreGuard } from '../../guard/index.js';
import { loadToolSchema } from '../../schema/index.js';
import { finishTool, isTaskFinished } from './finish.js';
import { isGuardRefusal } from './guard-refusal.js';
import { guardTools } from './guard-tools.js';
import { syncApprovals } from './messages.js';
import { pendingPrompt } from './pending-prompt.js';

/**
 * The v6 adapter (`ai` 6.x, the `ai` package installed here) driven by the SDK's own
 * mock model through real multi-step `generateText` / `streamText` runs.
 */

const examples = new URL('../../../examples/', import.meta.url);
const specText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;
const now = '2025-03-14T12:00';

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];
type Prompt = CallOptions['prompt'];
type Generated = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
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
  const model = new MockLanguageModelV3({
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
  /** How many balance checks fail before one succeeds. */
  failures: number;
}

function bankTools(bank: Bank) {
  return {
    BankCheckBalance: tool({
      description: "Returns the balance of the user's checking account.",
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      execute: async () => {
        bank.log.push('BankCheckBalance');
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

function newBank(balance = 1500, failures = 0): Bank {
  return { log: [], balance, failures };
}

function newGuard(text = specText): Guard {
  return createGuard(text, schema, { now });
}

function guardedTools(guard: Guard, bank: Bank) {
  return { ...guardTools(bankTools(bank), guard), finish: finishTool(guard) };
}

/** The approval requests of a result, as the client sees them. */
function approvalRequests(messages: readonly ModelMessage[]) {
  return messages.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string'
      ? message.content.filter((part) => part.type === 'tool-approval-request')
      : [],
  );
}

/** The client's next request: the history plus a person's answers. */
function answer(
  history: ModelMessage[],
  answers: Record<string, boolean>,
  requests = approvalRequests(history),
): ModelMessage[] {
  return [
    ...history,
    {
      role: 'tool',
      content: requests.map((request) => ({
        type: 'tool-approval-response' as const,
        approvalId: request.approvalId,
        approved: answers[request.toolCallId] ?? false,
      })),
    },
  ];
}

describe('guardTools (ai v6): refusal, feedback, corrected call', () => {
  it('refuses a call, the model reads why, and its corrected calls run', async () => {
    const bank = newBank();
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
      // The model follows the feedback it read: check the balance first.
      (prompt) =>
        /call BankCheckBalance/.test(resultsIn(prompt).t1 ?? '')
          ? [call('b1', 'BankCheckBalance')]
          : [say('giving up')],
      () => [say('Your balance is 1500.')],
    ]);
    const result = await generateText({
      model,
      tools: guardedTools(guard, bank),
      stopWhen: stepCountIs(10),
      prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
    });

    expect(bank.log).toEqual(['BankCheckBalance']);
    const refused = result.steps[0]?.toolResults[0]?.output;
    expect(isGuardRefusal(refused)).toBe(true);
    // The model reads only the guard's message, not the refusal object.
    const read = resultsIn(prompts[1]!).t1!;
    expect(read).toMatch(/^intentguard: revise \(hard\)\./);
    expect(read).toContain('BalanceKnown must be achieved first');
    expect(resultsIn(prompts[2]!).b1).toBe('{"balance":1500}');
    expect(guard.status()).toMatchObject({ achieved: { BalanceKnown: 1 }, runningIds: [] });
  });

  it('rejects a transfer the spec forbids even when the model insists', async () => {
    const bank = newBank();
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 900 })],
      () => [call('t2', 'BankTransfer', { to: 'Alice', amount: 900 })],
      () => [say('I could not transfer the money.')],
    ]);
    await generateText({
      model,
      tools: guardedTools(guard, bank),
      stopWhen: stepCountIs(10),
      prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
    });
    expect(bank.log).toEqual(['BankCheckBalance']);
    expect(resultsIn(prompts[2]!).t1).toMatch(/^intentguard: reject\./);
    expect(resultsIn(prompts[3]!).t2).toContain('never move more than the user asked for');
  });
});

describe('guardTools (ai v6): approval answered in the next request', () => {
  it('asks, persists the journal, and runs the approved call in the next request', async () => {
    const bank = newBank();
    const prompt = 'Transfer $500 to Alice if my balance exceeds $1000.';
    const first = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
    ]);
    // Request 1: a stateless server makes a guard, runs, and stores its journal.
    let stored: string;
    let history: ModelMessage[];
    {
      const guard = newGuard();
      const result = await generateText({
        model: first.model,
        tools: guardedTools(guard, bank),
        stopWhen: [isTaskFinished(guard), stepCountIs(10)],
        prompt,
      });
      const requests = approvalRequests(result.response.messages);
      expect(requests.map((request) => request.toolCallId)).toEqual(['t1']);
      expect(bank.log).toEqual(['BankCheckBalance']);
      expect(guard.status().pendingIds).toEqual(['t1']);
      // ai 6's approval request carries no reason: the UI gets the question by the call id.
      expect(requests[0]).not.toHaveProperty('reason');
      const question = pendingPrompt(guard, 't1');
      expect(question).toBe(guard.decision('t1')?.prompt);
      expect(question).toContain('Alice');
      expect(pendingPrompt(guard, 'b1')).toBeUndefined();
      expect(pendingPrompt(guard, 'unknown')).toBeUndefined();
      stored = JSON.stringify(guard.journal());
      history = [{ role: 'user', content: prompt }, ...result.response.messages];
    }

    // Request 2: the person approved; a new guard is restored from the journal.
    const second = scripted([
      (prompt) => {
        expect(resultsIn(prompt).t1).toBe('{"ok":true}');
        return [call('f1', 'finish')];
      },
      () => [say('never reached: the run stops on the accepted finish')],
    ]);
    const guard = restoreGuard(specText, schema, JSON.parse(stored) as GuardJournal);
    // A stateless server restores the question with the journal.
    expect(pendingPrompt(guard, 't1')).toContain('Alice');
    const messages = answer(history, { t1: true });
    const result = await generateText({
      model: second.model,
      tools: guardedTools(guard, bank),
      stopWhen: [isTaskFinished(guard), stepCountIs(10)],
      messages,
    });
    expect(bank.log).toEqual(['BankCheckBalance', 'BankTransfer Alice 500']);
    expect(second.prompts).toHaveLength(1);
    expect(result.steps.at(-1)?.toolResults[0]?.output).toMatch(/the task is done/);
    expect(guard.status()).toMatchObject({ done: true, finished: true, pendingIds: [] });
    expect(pendingPrompt(guard, 't1')).toBeUndefined();
    // The journal records the approval with the call's id, and replays.
    expect(guard.journal().events).toContainEqual({ resolve: { approved: true }, id: 't1' });
    expect(() => restoreGuard(specText, schema, guard.journal())).not.toThrow();
  });

  it('records a denial from the next request; the transfer never runs', async () => {
    const bank = newBank();
    const guard = newGuard();
    const first = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
    ]);
    const result = await generateText({
      model: first.model,
      tools: guardedTools(guard, bank),
      stopWhen: stepCountIs(10),
      prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
    });
    const messages = answer([...result.response.messages], { t1: false });
    expect(syncApprovals(guard, messages).map((decision) => decision.action)).toEqual(['refuse']);
    const second = scripted([() => [say('I did not transfer anything.')]]);
    await generateText({ model: second.model, tools: guardedTools(guard, bank), messages });
    expect(bank.log).toEqual(['BankCheckBalance']);
    expect(guard.status()).toMatchObject({ pendingIds: [], achieved: { BalanceKnown: 1 } });
    expect(guard.journal().events).toContainEqual({ resolve: { approved: false }, id: 't1' });
  });

  it('re-checks an approval against the state when it comes', async () => {
    const bank = newBank();
    const guard = newGuard();
    const first = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
    ]);
    const result = await generateText({
      model: first.model,
      tools: guardedTools(guard, bank),
      stopWhen: stepCountIs(10),
      prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
    });
    // Meanwhile the app reports that the balance dropped.
    guard.observe({ BankCheckBalanceResult: { balance: 10 } });
    const second = scripted([() => [say('The balance is too low now.')]]);
    await generateText({
      model: second.model,
      tools: guardedTools(guard, bank),
      messages: answer([...result.response.messages], { t1: true }),
    });
    expect(bank.log).toEqual(['BankCheckBalance']);
    expect(resultsIn(second.prompts[0]!).t1).toMatch(/^intentguard: revise/);
  });
});

describe('guardTools (ai v6): parallel calls, failures, finish', () => {
  it('checks parallel calls in order; several approvals wait and are answered together', async () => {
    const tipSpec = `${specText.replace(/^reject .*$/m, '')}
@confirm
BalanceKnown & BankCheckBalanceResult(balance > 1000) & BankTransfer(to = "Bob", amount = 20) -> Tipped`;
    const bank = newBank();
    const guard = newGuard(tipSpec);
    const first = scripted([
      // Two balance checks in one step: the second is refused (already achieved).
      () => [call('b1', 'BankCheckBalance'), call('b2', 'BankCheckBalance')],
      () => [
        call('a', 'BankTransfer', { to: 'Alice', amount: 500 }),
        call('b', 'BankTransfer', { to: 'Bob', amount: 20 }),
      ],
    ]);
    const result = await generateText({
      model: first.model,
      tools: guardedTools(guard, bank),
      stopWhen: stepCountIs(10),
      prompt: 'Pay Alice and tip Bob.',
    });
    expect(bank.log).toEqual(['BankCheckBalance']);
    expect(resultsIn(first.prompts[1]!).b2).toContain('already been achieved');
    expect(approvalRequests(result.response.messages).map((request) => request.toolCallId)).toEqual(
      ['a', 'b'],
    );
    expect(guard.status().pendingIds).toEqual(['a', 'b']);

    const second = scripted([() => [say('Done.')]]);
    // The answers come in another order than the calls.
    const requests = approvalRequests(result.response.messages).reverse();
    await generateText({
      model: second.model,
      tools: guardedTools(guard, bank),
      messages: answer([...result.response.messages], { a: true, b: true }, requests),
    });
    expect(bank.log.slice(1).sort()).toEqual(['BankTransfer Alice 500', 'BankTransfer Bob 20']);
    expect(guard.status()).toMatchObject({
      pendingIds: [],
      runningIds: [],
      achieved: { BalanceKnown: 1, Transferred: 1, Tipped: 1 },
    });
  });

  it('rolls a failed tool back, so the retried call is allowed', async () => {
    const bank = newBank(1500, 1);
    const guard = newGuard();
    const { model, prompts } = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('b2', 'BankCheckBalance')],
      () => [say('Your balance is 1500.')],
    ]);
    await generateText({
      model,
      tools: guardedTools(guard, bank),
      stopWhen: stepCountIs(10),
      prompt: 'What is my balance?',
    });
    expect(bank.log).toEqual(['BankCheckBalance', 'BankCheckBalance']);
    expect(resultsIn(prompts[1]!).b1).toBe('bank offline');
    // Without the rollback the retry would be refused as already achieved.
    expect(resultsIn(prompts[2]!).b2).toBe('{"balance":1500}');
    expect(guard.journal().events).toContainEqual({ fail: { id: 'b1' } });
    expect(guard.status().achieved).toEqual({ BalanceKnown: 1 });
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
    const result = await generateText({
      model,
      tools: guardedTools(guard, bank),
      stopWhen: [isTaskFinished(guard), stepCountIs(10)],
      prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
    });
    expect(prompts).toHaveLength(3);
    expect(resultsIn(prompts[1]!).f1).toMatch(
      /^intentguard: revise \(hard\)\.\nThe task is not done yet/,
    );
    expect(result.steps.at(-1)?.toolResults[0]?.output).toMatch(/the task is done/);
    expect(guard.status()).toMatchObject({ done: true, finished: true });
  });

  it('hasToolCall would have stopped on the refused finish (why isTaskFinished exists)', async () => {
    const guard = newGuard();
    const { model, prompts } = scripted([() => [call('f1', 'finish')], () => [say('unused')]]);
    await generateText({
      model,
      tools: guardedTools(guard, newBank()),
      stopWhen: [hasToolCall('finish'), stepCountIs(10)],
      prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
    });
    expect(prompts).toHaveLength(1);
    expect(guard.status().finished).toBe(false);
  });
});

describe('guardTools (ai v6): the wrapper itself', () => {
  it('keeps the tool’s own needsApproval, and rolls back an allowed call the person declined', async () => {
    const bank = newBank();
    const guard = newGuard();
    const tools = bankTools(bank);
    const own = { ...tools.BankCheckBalance, needsApproval: true };
    const first = scripted([() => [call('b1', 'BankCheckBalance')]]);
    const result = await generateText({
      model: first.model,
      tools: guardTools({ BankCheckBalance: own }, guard),
      prompt: 'What is my balance?',
    });
    expect(approvalRequests(result.response.messages)).toHaveLength(1);
    expect(guard.status()).toMatchObject({ runningIds: ['b1'], achieved: { BalanceKnown: 1 } });
    syncApprovals(guard, answer([...result.response.messages], { b1: false }));
    expect(guard.status()).toMatchObject({ runningIds: [], achieved: {} });
    expect(bank.log).toEqual([]);
  });

  it('reports a streamed tool’s last output as its result, through streamText', async () => {
    const guard = newGuard();
    const streaming = tool({
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      async *execute() {
        yield { balance: 1500 };
        yield { balance: 500 };
      },
    });
    const chunks = (parts: object[]) =>
      new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
    const finish = (reason: 'tool-calls' | 'stop') => ({
      type: 'finish',
      finishReason: { unified: reason, raw: undefined },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
    });
    const streams = [
      chunks([
        { type: 'tool-call', toolCallId: 'b1', toolName: 'BankCheckBalance', input: '{}' },
        finish('tool-calls'),
      ]),
      chunks([
        { type: 'text-start', id: '1' },
        { type: 'text-delta', id: '1', delta: 'ok' },
        { type: 'text-end', id: '1' },
        finish('stop'),
      ]),
    ];
    const model = new MockLanguageModelV3({
      doStream: async () => ({ stream: streams.shift() as never }),
    });
    const result = streamText({
      model,
      tools: guardTools({ BankCheckBalance: streaming }, guard),
      stopWhen: stepCountIs(5),
      prompt: 'What is my balance?',
    });
    expect(await result.text).toBe('ok');
    // The last output (500) is the result: with 1500 the task would not be done.
    expect(guard.status()).toMatchObject({ done: true, runningIds: [] });
  });

  it('refuses to wrap a tool it cannot guard unless it is named as unguarded', () => {
    const guard = newGuard();
    const clientSide = tool({ inputSchema: z.object({}) });
    expect(() => guardTools({ AskUser: clientSide }, guard)).toThrow(
      /^guardTools: 'tools\.AskUser' must be a tool with an execute function .*, not a tool without execute/,
    );
    expect(() => guardTools(undefined as never, guard)).toThrow(/'tools' must be a tool set/);
    expect(guardTools({ AskUser: clientSide }, guard, { unguarded: ['AskUser'] }).AskUser).toBe(
      clientSide,
    );
  });

  it('fails closed on a call the guard cannot check', async () => {
    const guard = newGuard();
    const tools = guardTools(bankTools(newBank()), guard);
    const output = await tools.BankCheckBalance.execute?.({}, { toolCallId: '', messages: [] });
    // The guard refuses a call without an id itself (`invalid-proposal`), as data.
    expect(isGuardRefusal(output) && output.message).toMatch(
      /cannot be checked: its call\.id must be a non-empty string/,
    );
  });
});

describe('guardTools with a policy (LANGUAGE.md §8): the guard is used as it is', () => {
  it("refuses the transfer the intent allows and the policy does not permit; the model reads the policy's reason", async () => {
    const bank = newBank();
    const policy =
      'BankCheckBalanceResult(balance >= 2000) & BankTransfer(amount <= 500) -> Permitted\n';
    const guard = createGuard(specText, schema, { now, policy });
    const { model, prompts } = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
      () => [say('The transfer is not permitted.')],
    ]);
    await generateText({
      model,
      tools: guardedTools(guard, bank),
      stopWhen: stepCountIs(10),
      prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
    });
    // The intent would ask the person; the policy's refusal is stricter, and nothing is sent.
    expect(bank.log).toEqual(['BankCheckBalance']);
    const read = resultsIn(prompts[2]!).t1!;
    expect(read).toMatch(/^intentguard: revise \(hard\)\.\nThe operator's policy does not permit/);
    expect(read).toContain('balance at least 2000; it is 1500');
    expect(guard.decision('t1')?.verdict.reasons[0]).toMatchObject({
      code: 'policy-violation',
      source: 'policy',
    });
  });
  it('both ask for the transfer: one approval request, its question with both reasons once, the policy first', async () => {
    const bank = newBank();
    const policy =
      'confirm BankTransfer(amount > 100) because "the bank confirms transfers over 100"\n';
    const guard = createGuard(specText, schema, { now, policy });
    const { model } = scripted([
      () => [call('b1', 'BankCheckBalance')],
      () => [call('t1', 'BankTransfer', { to: 'Alice', amount: 500 })],
    ]);
    const result = await generateText({
      model,
      tools: guardedTools(guard, bank),
      stopWhen: [isTaskFinished(guard), stepCountIs(10)],
      prompt: 'Transfer $500 to Alice if my balance exceeds $1000.',
    });
    expect(approvalRequests(result.response.messages).map((request) => request.toolCallId)).toEqual(
      ['t1'],
    );
    expect(bank.log).toEqual(['BankCheckBalance']);
    const question = pendingPrompt(guard, 't1') ?? '';
    const policyReason = 'Policy: The policy asks the user to approve BankTransfer';
    const intentReason = 'Task: Confirm the transfer details with the user';
    expect(question.split(policyReason)).toHaveLength(2);
    expect(question.split('the bank confirms transfers over 100')).toHaveLength(2);
    expect(question.split(intentReason)).toHaveLength(2);
    expect(question.indexOf(policyReason)).toBeLessThan(question.indexOf(intentReason));
  });
});
