import { readFileSync } from 'node:fs';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent, createMiddleware, tool, toolErrorMiddleware } from 'langchain';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { renderRefusal } from '../../guard/adapter-kit/index.js';
import {
  createGuard,
  type Guard,
  type GuardJournal,
  type GuardOptions,
  restoreGuard,
} from '../../guard/index.js';
import { loadToolSchema } from '../../schema/index.js';
import { answersOf } from './approvals.js';
import {
  IntentguardMiddlewareError,
  intentguardMiddleware,
  isIntentguardApprovalRequest,
  journalStateKey,
} from './index.js';

/*
 * Real LangChain v1 agents (createAgent, the tool node, LangGraph's checkpointer and
 * interrupts) driven by @langchain/core's fake chat model, over the bank-transfer spec.
 */

const examples = new URL('../../../examples/', import.meta.url);
const bankText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const loaded = loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8'));
if (!loaded.ok) throw new Error('bank tools');
const schema = loaded.value;
const now = '2025-03-14T12:00';

/** The bank's tools, recording what really ran. */
function bank(balance = 1500, failures = 0) {
  const ran = { balances: 0, transfers: [] as { to: string; amount: number }[] };
  let failing = failures;
  const checkBalance = tool(
    async () => {
      ran.balances++;
      if (failing-- > 0) throw new Error('bank offline');
      return JSON.stringify({ balance });
    },
    { name: 'BankCheckBalance', description: 'The balance.', schema: z.object({}) },
  );
  const transfer = tool(
    async ({ to, amount }: { to: string; amount: number }) => {
      ran.transfers.push({ to, amount });
      return `Sent $${amount} to ${to}.`;
    },
    {
      name: 'BankTransfer',
      description: 'Sends money.',
      schema: z.object({ to: z.string(), amount: z.number() }),
    },
  );
  return { ran, tools: [checkBalance, transfer] };
}

const balanceCall = (id: string) => ({ name: 'BankCheckBalance', args: {}, id });
const transferCall = (id: string, to: string, amount: number) => ({
  name: 'BankTransfer',
  args: { to, amount },
  id,
});

function guardSource(text = bankText, options: GuardOptions = {}) {
  return vi.fn((journal: GuardJournal | undefined) =>
    journal === undefined
      ? createGuard(text, schema, { now, ...options })
      : restoreGuard(text, schema, journal, options),
  );
}

const thread = (id: string) => ({ configurable: { thread_id: id } });
const start = {
  messages: [new HumanMessage('Transfer $500 to Alice if my balance exceeds $1000.')],
};

function toolMessageFor(messages: readonly unknown[], id: string): ToolMessage {
  const found = messages.find(
    (message): message is ToolMessage =>
      ToolMessage.isInstance(message) && message.tool_call_id === id,
  );
  if (!found) throw new Error(`no tool message for ${id}`);
  return found;
}

/** What the model read last on its `index`-th call. */
function lastReadBy(model: ReturnType<typeof fakeModel>, index: number) {
  return model.calls[index]?.messages.at(-1);
}

describe('intentguardMiddleware in a LangChain agent', () => {
  it('refuses a wrong call with feedback, runs the corrected one after approval, and ends when done', async () => {
    const { ran, tools } = bank(1500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([transferCall('t1', 'Alice', 5000)])
      .respondWithTools([transferCall('t2', 'Alice', 500)])
      .respond(new AIMessage('Transferred $500 to Alice.'));
    const source = guardSource();
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(source)],
      checkpointer: new MemorySaver(),
    });

    const paused = await agent.invoke(start, thread('a'));
    // The refused transfer never reached the tool; the model read the guard's reason.
    expect(ran.transfers).toEqual([]);
    const refusal = toolMessageFor(paused.messages, 't1');
    expect(refusal.content).toMatch(/^intentguard: reject\.\nThe spec refuses BankTransfer/);
    expect(ToolMessage.isInstance(lastReadBy(model, 2))).toBe(true);
    expect(String(lastReadBy(model, 2)?.content)).toBe(refusal.content);
    // The corrected transfer waits for a person, with the guard's question.
    const [pause] = paused.__interrupt__ ?? [];
    expect(isIntentguardApprovalRequest(pause?.value)).toBe(true);
    expect(pause?.value).toEqual({
      actionRequests: [
        {
          name: 'BankTransfer',
          args: { to: 'Alice', amount: 500 },
          description: expect.stringContaining(
            'Transfers money from the user\'s checking account to a payee (BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details',
          ),
        },
      ],
      reviewConfigs: [
        { actionName: 'BankTransfer', allowedDecisions: ['approve', 'edit', 'reject'] },
      ],
      intentguard: { callIds: ['t2'] },
    });

    const done = await agent.invoke(
      new Command({ resume: { decisions: [{ type: 'approve' }] } }),
      thread('a'),
    );
    expect(ran.transfers).toEqual([{ to: 'Alice', amount: 500 }]);
    expect(ran.balances).toBe(1);
    expect(done.__interrupt__).toBeUndefined();
    expect(done.messages.at(-1)?.content).toBe('Transferred $500 to Alice.');
    expect(model.callCount).toBe(4);
    // The journal in the state is the guard's whole history: it restores a finished guard.
    const journal = done[journalStateKey];
    if (journal === undefined) throw new Error('no journal in the state');
    expect(restoreGuard(bankText, schema, journal).status()).toMatchObject({
      done: true,
      finished: true,
      achieved: { BalanceKnown: 1, Transferred: 1 },
    });
    expect(journal.events.map((event) => Object.keys(event)[0])).toEqual([
      'propose', // b1 allowed
      'observe', // its result, from the checkpointed tool message
      'propose', // t1 rejected
      'propose', // t2 confirm
      'resolve', // t2 approved: the session answers the confirmation it kept for t2
      'observe', // BankTransferResult
      'propose', // finish
    ]);
    // One guard, made once: the resume in the same process reused it.
    expect(source).toHaveBeenCalledTimes(1);
  });

  it('restores the guard from the journal when another process resumes the thread', async () => {
    const checkpointer = new MemorySaver();
    const first = bank(1500);
    const firstModel = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([transferCall('t1', 'Alice', 500)]);
    const firstAgent = createAgent({
      model: firstModel,
      tools: first.tools,
      middleware: [intentguardMiddleware(guardSource())],
      checkpointer,
    });
    const paused = await firstAgent.invoke(start, thread('b'));
    expect(paused.__interrupt__).toHaveLength(1);

    // A new process: new middleware, new model, the same checkpoints.
    const second = bank(1500);
    const secondModel = fakeModel().respond(new AIMessage('Done.'));
    const source = guardSource();
    const secondAgent = createAgent({
      model: secondModel,
      tools: second.tools,
      middleware: [intentguardMiddleware(source)],
      checkpointer,
    });
    const done = await secondAgent.invoke(
      new Command({ resume: { decisions: [{ type: 'approve' }] } }),
      thread('b'),
    );
    expect(source).toHaveBeenCalledTimes(1);
    const given = source.mock.calls[0]?.[0];
    // Restored from what the checkpoint held: the balance check. Its result, reported
    // before the interrupt, is read again from the checkpointed tool message.
    expect(given?.events.map((event) => Object.keys(event)[0])).toEqual(['propose']);
    expect(second.ran.transfers).toEqual([{ to: 'Alice', amount: 500 }]);
    expect(first.ran.transfers).toEqual([]);
    expect(done.messages.at(-1)?.content).toBe('Done.');
    expect(source.mock.results[0]?.value.status()).toMatchObject({ done: true, finished: true });
  });

  it("turns a person's rejection into a refusal the model reads, with the person's words", async () => {
    const { ran, tools } = bank(1500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([transferCall('t1', 'Alice', 500)])
      .respond(new AIMessage('The user declined the transfer.'));
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(guardSource(), { maxFinishRefusals: 0 })],
      checkpointer: new MemorySaver(),
    });
    await agent.invoke(start, thread('c'));
    // The task cannot be done without the transfer: the guard does not let the run end.
    const ending = agent.invoke(
      new Command({ resume: { decisions: [{ type: 'reject', message: 'not today' }] } }),
      thread('c'),
    );
    await expect(ending).rejects.toSatisfy(
      (error: unknown) =>
        IntentguardMiddlewareError.isInstance(error) &&
        error.code === 'task-unfinished' &&
        error.decision?.verdict.reasons[0]?.code === 'premature-finish',
    );
    expect(ran.transfers).toEqual([]);
    const read = String(lastReadBy(model, 2)?.content);
    expect(read).toContain('intentguard: the user declined this call.');
    expect(read).toMatch(/\nThe user said: not today$/);
  });

  describe("a person's edit is checked again as a new proposal", () => {
    const upTo500 = [
      'BankCheckBalance() -> BalanceKnown',
      '@confirm(financial, "Confirm the transfer details with the user")',
      'BalanceKnown & BankTransfer(to = "Alice", amount <= 500) -> Transferred',
      'Transferred -> Done',
      'reject BankTransfer(amount > 500) because "never move more than the user asked for"',
      '',
    ].join('\n');
    const edit = (to: string, amount: number) => ({
      decisions: [{ type: 'edit', editedAction: { name: 'BankTransfer', args: { to, amount } } }],
    });

    it('runs an edit the spec allows, in place of the call asked about', async () => {
      const { ran, tools } = bank(1500);
      const model = fakeModel()
        .respondWithTools([balanceCall('b1')])
        .respondWithTools([transferCall('t1', 'Alice', 500)])
        .respond(new AIMessage('Transferred $200 to Alice.'));
      const agent = createAgent({
        model,
        tools,
        middleware: [intentguardMiddleware(guardSource(upTo500))],
        checkpointer: new MemorySaver(),
      });
      const paused = await agent.invoke(start, thread('edit-ok'));
      const [pause] = paused.__interrupt__ ?? [];
      expect(pause?.value).toMatchObject({
        reviewConfigs: [
          { actionName: 'BankTransfer', allowedDecisions: ['approve', 'edit', 'reject'] },
        ],
      });
      const done = await agent.invoke(
        new Command({ resume: edit('Alice', 200) }),
        thread('edit-ok'),
      );
      expect(ran.transfers).toEqual([{ to: 'Alice', amount: 200 }]);
      expect(toolMessageFor(done.messages, 't1_edited').content).toBe('Sent $200 to Alice.');
      expect(done.messages.some((m) => ToolMessage.isInstance(m) && m.tool_call_id === 't1')).toBe(
        false,
      );
      const journal = done[journalStateKey];
      if (journal === undefined) throw new Error('no journal in the state');
      expect(restoreGuard(upTo500, schema, journal).status()).toMatchObject({
        done: true,
        finished: true,
      });
    });

    it('refuses an edit into what the spec forbids, with feedback the model reads', async () => {
      const { ran, tools } = bank(1500);
      const model = fakeModel()
        .respondWithTools([balanceCall('b1')])
        .respondWithTools([transferCall('t1', 'Alice', 500)])
        .respondWithTools([transferCall('t2', 'Alice', 500)]);
      const agent = createAgent({
        model,
        tools,
        middleware: [intentguardMiddleware(guardSource(upTo500))],
        checkpointer: new MemorySaver(),
      });
      await agent.invoke(start, thread('edit-no'));
      const again = await agent.invoke(
        new Command({ resume: edit('Alice', 5000) }),
        thread('edit-no'),
      );
      expect(ran.transfers).toEqual([]);
      const refusal = toolMessageFor(again.messages, 't1_edited');
      expect(refusal.content).toMatch(/^intentguard: reject\./);
      expect(refusal.content).toContain('never move more than the user asked for');
      expect(String(lastReadBy(model, 2)?.content)).toBe(refusal.content);
      // The model's next transfer is asked about again: nothing ran on the edit.
      expect(again.__interrupt__?.[0]?.value).toMatchObject({ intentguard: { callIds: ['t2'] } });
    });

    it('denies the call when an edit names no tool or gives no arguments object', async () => {
      const { ran, tools } = bank(1500);
      const model = fakeModel()
        .respondWithTools([balanceCall('b1')])
        .respondWithTools([transferCall('t1', 'Alice', 500)])
        .respondWithTools([transferCall('t2', 'Alice', 500)]);
      const agent = createAgent({
        model,
        tools,
        middleware: [intentguardMiddleware(guardSource(upTo500))],
        checkpointer: new MemorySaver(),
      });
      await agent.invoke(start, thread('edit-bad'));
      const again = await agent.invoke(
        new Command({
          resume: {
            decisions: [{ type: 'edit', editedAction: { name: 'BankTransfer', args: '{}' } }],
          },
        }),
        thread('edit-bad'),
      );
      expect(ran.transfers).toEqual([]);
      expect(toolMessageFor(again.messages, 't1').content).toContain(
        'intentguard: the user declined this call.',
      );
    });
  });

  it('sends a premature finish back to the model, and ends the run once the task is done', async () => {
    const { ran, tools } = bank(500);
    const model = fakeModel()
      .respond(new AIMessage('Nothing to do.'))
      .respondWithTools([balanceCall('b1')])
      .respond(new AIMessage('Your balance is $500, so no transfer.'));
    const guard = createGuard(bankText, schema, { now });
    const agent = createAgent({ model, tools, middleware: [intentguardMiddleware(guard)] });
    const result = await agent.invoke(start);
    const feedback = lastReadBy(model, 1);
    expect(HumanMessage.isInstance(feedback)).toBe(true);
    expect(feedback?.name).toBe('intentguard');
    expect(String(feedback?.content)).toMatch(
      /^intentguard: revise \(hard\)\.\nThe task is not done/,
    );
    expect(String(feedback?.content)).toContain('call BankCheckBalance');
    expect(ran.balances).toBe(1);
    expect(model.callCount).toBe(3);
    expect(result.messages.at(-1)?.content).toBe('Your balance is $500, so no transfer.');
    expect(guard.status()).toMatchObject({ done: true, finished: true });
  });

  it('fails the run when the agent keeps stopping before the task is done', async () => {
    const { tools } = bank(500);
    const model = fakeModel()
      .respond(new AIMessage('Done.'))
      .respond(new AIMessage('Done, really.'))
      .respond(new AIMessage('Done, I insist.'));
    const guard = createGuard(bankText, schema, { now });
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(guard, { maxFinishRefusals: 2 })],
    });
    await expect(agent.invoke(start)).rejects.toThrow(
      /^The agent stopped 3 times before the task was done\.\nintentguard: revise/,
    );
    expect(model.callCount).toBe(3);
    expect(guard.status().finished).toBe(false);
  });

  it('rolls a failed tool back, so the model may retry it', async () => {
    const { ran, tools } = bank(500, 1);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([balanceCall('b2')])
      .respond(new AIMessage('Your balance is $500.'));
    const guard = createGuard(bankText, schema, { now });
    const agent = createAgent({
      model,
      tools,
      // Inside the guard: turns the tool's exception into an error tool message.
      middleware: [
        intentguardMiddleware(guard),
        toolErrorMiddleware({ onError: (error) => `failed: ${String(error)}` }),
      ],
    });
    const result = await agent.invoke(start);
    expect(toolMessageFor(result.messages, 'b1')).toMatchObject({ status: 'error' });
    // Without the rollback, the retry would be refused as already achieved.
    expect(toolMessageFor(result.messages, 'b2').content).toBe('{"balance":500}');
    expect(ran.balances).toBe(2);
    expect(guard.journal().events).toContainEqual({ fail: { id: 'b1' } });
    expect(guard.status()).toMatchObject({ done: true, finished: true });
  });

  it('keeps a call whose tool threw running, so resuming the thread runs it again', async () => {
    const { ran, tools } = bank(500, 1);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respond(new AIMessage('Your balance is $500.'));
    const source = guardSource();
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(source)],
      checkpointer: new MemorySaver(),
    });
    // Under a wrapToolCall middleware, LangChain lets a tool's exception fail the run.
    await expect(agent.invoke(start, thread('g'))).rejects.toThrow('bank offline');
    const guard = source.mock.results[0]?.value as Guard;
    expect(guard.status().runningIds).toEqual(['b1']);
    // Resuming runs the failed task again, with the same call id, and the guard lets it.
    const result = await agent.invoke(null, thread('g'));
    expect(ran.balances).toBe(2);
    expect(toolMessageFor(result.messages, 'b1').content).toBe('{"balance":500}');
    expect(guard.status()).toMatchObject({ done: true, finished: true, runningIds: [] });
    expect(model.callCount).toBe(2);
  });

  it('runs the allowed calls of a turn and answers the refused ones, without a jump', async () => {
    const { ran, tools } = bank(500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1'), transferCall('t1', 'Mallory', 100)])
      .respond(new AIMessage('Balance checked.'));
    const guard = createGuard(bankText, schema, { now });
    const agent = createAgent({ model, tools, middleware: [intentguardMiddleware(guard)] });
    const result = await agent.invoke(start);
    expect(ran).toEqual({ balances: 1, transfers: [] });
    const refusal = toolMessageFor(result.messages, 't1');
    // The reducer made the message-like refusal a real ToolMessage.
    expect(ToolMessage.isInstance(refusal)).toBe(true);
    expect(refusal.name).toBe('BankTransfer');
    expect(refusal.status).not.toBe('error');
    expect(refusal.content).toMatch(/^intentguard: revise \(hard\)\./);
    expect(toolMessageFor(result.messages, 'b1').content).toBe('{"balance":500}');
    // The model's second call read both answers.
    expect(model.calls[1]?.messages.filter(ToolMessage.isInstance)).toHaveLength(2);
    expect(guard.status()).toMatchObject({ done: true, finished: true });
  });

  it('asks once for every call of a turn that needs a person, and answers each on its own', async () => {
    const spec = `${bankText.replace(/^reject .*$/m, '')}
@confirm
BalanceKnown & BankCheckBalanceResult(balance > 1000) & BankTransfer(to = "Bob", amount = 20) -> Tipped`;
    const { ran, tools } = bank(1500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([transferCall('ta', 'Alice', 500), transferCall('tb', 'Bob', 20)])
      .respond(new AIMessage('Sent $500 to Alice.'));
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(guardSource(spec))],
      checkpointer: new MemorySaver(),
    });
    const paused = await agent.invoke(start, thread('d'));
    expect(paused.__interrupt__).toHaveLength(1);
    const request = paused.__interrupt__?.[0]?.value;
    if (!isIntentguardApprovalRequest(request)) throw new Error('not an intentguard request');
    expect(request.intentguard.callIds).toEqual(['ta', 'tb']);
    expect(request.actionRequests.map((action) => action.args)).toEqual([
      { to: 'Alice', amount: 500 },
      { to: 'Bob', amount: 20 },
    ]);
    const done = await agent.invoke(
      new Command({ resume: { decisions: [{ type: 'approve' }, { type: 'reject' }] } }),
      thread('d'),
    );
    expect(ran.transfers).toEqual([{ to: 'Alice', amount: 500 }]);
    expect(toolMessageFor(done.messages, 'ta').content).toBe('Sent $500 to Alice.');
    expect(toolMessageFor(done.messages, 'tb').content).toContain('the user declined this call');
    expect(done.messages.at(-1)?.content).toBe('Sent $500 to Alice.');
  });

  it('does not run a call that another middleware changed or added after the check', async () => {
    const { ran, tools } = bank(500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([balanceCall('b2')])
      .respond(new AIMessage('Done.'));
    // Listed first, so its afterModel runs after the guard's: it changes b1's arguments.
    const editor = createMiddleware({
      name: 'editor',
      afterModel: (state) => {
        const last = state.messages.at(-1);
        if (!AIMessage.isInstance(last) || last.tool_calls?.[0]?.id !== 'b1') return;
        return {
          messages: [
            new AIMessage({
              ...(last.id === undefined ? {} : { id: last.id }),
              content: '',
              tool_calls: [
                { ...balanceCall('b1'), args: { account: 'savings' } },
                balanceCall('bx'),
              ],
            }),
          ],
        };
      },
    });
    const guard = createGuard(bankText, schema, { now });
    const agent = createAgent({ model, tools, middleware: [editor, intentguardMiddleware(guard)] });
    const result = await agent.invoke(start);
    expect(toolMessageFor(result.messages, 'b1').content).toContain(
      "The call id 'b1' was already used for another call",
    );
    expect(toolMessageFor(result.messages, 'bx').content).toMatch(
      /^intentguard: this BankCheckBalance call was not checked after the model's turn/,
    );
    // Only b2 ran: b1 counts as failed, so the retry was allowed.
    expect(ran.balances).toBe(1);
    expect(toolMessageFor(result.messages, 'b2').content).toBe('{"balance":500}');
    expect(guard.journal().events).toContainEqual({ fail: { id: 'b1' } });
    expect(guard.status()).toMatchObject({ done: true, finished: true, runningIds: [] });
  });

  it('forgets the checks of a turn whose approval was abandoned for a new message', async () => {
    const { ran, tools } = bank(1500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([transferCall('t1', 'Alice', 500)])
      .respondWithTools([transferCall('t2', 'Alice', 500)])
      .respond(new AIMessage('Sent.'));
    const source = guardSource();
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(source)],
      checkpointer: new MemorySaver(),
    });
    const paused = await agent.invoke(start, thread('e'));
    expect(paused.__interrupt__).toHaveLength(1);
    // Instead of answering, the user writes again: the pending question is dropped.
    const again = await agent.invoke(
      { messages: [new HumanMessage('Please go ahead.')] },
      thread('e'),
    );
    // The guard was rebuilt from the checkpoint, which never held t1's check.
    expect(source).toHaveBeenCalledTimes(2);
    const rebuilt = source.mock.results[1]?.value as Guard;
    expect(again.__interrupt__?.[0]?.value).toMatchObject({ intentguard: { callIds: ['t2'] } });
    expect(rebuilt.status().pendingIds).toEqual(['t2']);
    await agent.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), thread('e'));
    expect(ran.transfers).toEqual([{ to: 'Alice', amount: 500 }]);
    expect(rebuilt.journal().events.some((event) => 'id' in event && event.id === 't1')).toBe(
      false,
    );
    expect(rebuilt.status()).toMatchObject({ done: true, finished: true });
  });

  it('runs every call in shadow mode, and records what it would have done', async () => {
    const { ran, tools } = bank(500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1'), transferCall('t1', 'Mallory', 100)])
      .respond(new AIMessage('Done.'));
    const guard = createGuard(bankText, schema, { now, mode: 'shadow' });
    const agent = createAgent({ model, tools, middleware: [intentguardMiddleware(guard)] });
    await agent.invoke(start);
    expect(ran.transfers).toEqual([{ to: 'Mallory', amount: 100 }]);
    expect(guard.journal().events).toContainEqual({
      propose: { action: { name: 'BankTransfer', args: { to: 'Mallory', amount: 100 } } },
      id: 't1',
      expect: { decision: 'revise' },
    });
  });
});

describe('which guard decides', () => {
  function quickAgent(middleware: ReturnType<typeof intentguardMiddleware>) {
    const { tools } = bank(500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respond(new AIMessage('Done.'))
      .respondWithTools([balanceCall('b2')])
      .respond(new AIMessage('Done.'));
    return createAgent({ model, tools, middleware: [middleware], checkpointer: new MemorySaver() });
  }

  it('refuses to let one Guard decide for a second thread', async () => {
    const agent = quickAgent(intentguardMiddleware(createGuard(bankText, schema, { now })));
    await agent.invoke(start, thread('one'));
    await expect(agent.invoke(start, thread('two'))).rejects.toSatisfy(
      (error: unknown) =>
        IntentguardMiddlewareError.isInstance(error) && error.code === 'journal-mismatch',
    );
  });

  it('gives every thread its own guard with a function', async () => {
    const source = guardSource();
    const agent = quickAgent(intentguardMiddleware(source));
    const one = await agent.invoke(start, thread('one'));
    const two = await agent.invoke(start, thread('two'));
    expect(source).toHaveBeenCalledTimes(2);
    expect(source.mock.calls.map(([journal]) => journal)).toEqual([undefined, undefined]);
    for (const result of [one, two]) expect(result[journalStateKey]?.events).toHaveLength(3);
  });

  it('fails closed when the function does not restore the journal it is given', async () => {
    let made = 0;
    // Ignores the journal: the second process would decide with an empty history.
    const forgetful = () => {
      made++;
      return createGuard(bankText, schema, { now });
    };
    const checkpointer = new MemorySaver();
    const { tools } = bank(1500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([transferCall('t1', 'Alice', 500)]);
    const first = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(forgetful)],
      checkpointer,
    });
    await first.invoke(start, thread('f'));
    const second = createAgent({
      model: fakeModel(),
      tools,
      middleware: [intentguardMiddleware(forgetful)],
      checkpointer,
    });
    await expect(
      second.invoke(new Command({ resume: { decisions: [{ type: 'approve' }] } }), thread('f')),
    ).rejects.toSatisfy(
      (error: unknown) =>
        IntentguardMiddlewareError.isInstance(error) &&
        error.code === 'journal-mismatch' &&
        /did not restore the thread's journal/.test(error.message),
    );
    expect(made).toBe(2);
  });

  it('names the parameter on misuse', () => {
    expect(() => intentguardMiddleware(undefined as unknown as Guard)).toThrow(
      /intentguardMiddleware: 'guard' must be a Guard/,
    );
    const guard = createGuard(bankText, schema, { now });
    expect(() => intentguardMiddleware(guard, { maxFinishRefusals: -1 })).toThrow(
      /'options.maxFinishRefusals'/,
    );
    expect(() => intentguardMiddleware(guard, { maxFinishRefusals: 1.5 })).toThrow(TypeError);
  });
});

describe('answers to an approval request', () => {
  it('approves only an explicit approve, and keeps a rejection note', () => {
    expect(
      answersOf(
        {
          decisions: [
            { type: 'approve' },
            { type: 'edit', editedAction: {} },
            { type: 'reject', message: ' no ' },
          ],
        },
        4,
      ),
    ).toEqual([
      { approved: true, note: undefined },
      { approved: false, note: undefined },
      { approved: false, note: 'no' },
      { approved: false, note: undefined },
    ]);
    expect(
      answersOf(
        {
          decisions: [{ type: 'edit', editedAction: { name: 'BankTransfer', args: { to: 'A' } } }],
        },
        1,
      ),
    ).toEqual([
      { approved: false, note: undefined, edited: { name: 'BankTransfer', args: { to: 'A' } } },
    ]);
    expect(answersOf(true, 1)).toEqual([{ approved: false, note: undefined }]);
  });

  it("tells intentguard's request from LangChain's own HITL request", () => {
    expect(isIntentguardApprovalRequest({ actionRequests: [], reviewConfigs: [] })).toBe(false);
    expect(
      isIntentguardApprovalRequest({
        actionRequests: [],
        reviewConfigs: [],
        intentguard: { callIds: [] },
      }),
    ).toBe(true);
  });
});

describe('intentguardMiddleware fails closed, call by call', () => {
  it('refuses a call whose id the guard cannot take, and the run goes on', async () => {
    const { ran, tools } = bank(800);
    const longId = `call_${'x'.repeat(300)}`;
    const model = fakeModel()
      .respondWithTools([balanceCall(longId), balanceCall('#finish')])
      .respondWithTools([balanceCall('b1')])
      .respond(new AIMessage('Your balance is $800, so I sent nothing.'));
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(guardSource())],
      checkpointer: new MemorySaver(),
    });
    const result = await agent.invoke(start, thread('bad-ids'));
    // Neither call with an id the guard cannot track ran; the model read why.
    expect(ran.balances).toBe(1);
    expect(String(toolMessageFor(result.messages, longId).content)).toMatch(
      /^intentguard: revise \(hard\)\.\nThis call cannot be checked: its call\.id must be a non-empty string of at most 256 characters/,
    );
    expect(String(toolMessageFor(result.messages, '#finish').content)).toMatch(
      /its call\.id must be an id other than '#finish'/,
    );
    expect(String(toolMessageFor(result.messages, 'b1').content)).toBe('{"balance":800}');
    expect(result[journalStateKey]?.events.at(-1)).toMatchObject({
      expect: { decision: 'allow' },
    });
  });

  it('refuses a call the guard cannot check with the one unchecked text, and the run goes on', async () => {
    const { ran, tools } = bank(800);
    const model = fakeModel()
      .respondWithTools([transferCall('t1', 'Mallory', 5)])
      .respond(new AIMessage('I could not do it.'));
    // The host's renderer fails: the guard cannot give a refusal its text.
    const source = guardSource(bankText, {
      render: () => {
        throw new Error('renderer down');
      },
    });
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(source, { maxFinishRefusals: 0 })],
      checkpointer: new MemorySaver(),
    });
    await expect(agent.invoke(start, thread('unchecked'))).rejects.toThrow(
      IntentguardMiddlewareError,
    );
    expect(ran.transfers).toEqual([]);
    const state = await agent.graph.getState(thread('unchecked'));
    const messages = (state.values as { messages: unknown[] }).messages;
    expect(String(toolMessageFor(messages, 't1').content)).toBe(
      renderRefusal({ code: 'unchecked', reason: 'renderer down' }),
    );
  });
});

describe('intentguardMiddleware with a policy (LANGUAGE.md §8), the guard used as it is', () => {
  it("refuses the transfer the intent allows and the policy does not permit; the model reads the policy's reason", async () => {
    const { ran, tools } = bank(1500);
    const model = fakeModel()
      .respondWithTools([balanceCall('b1')])
      .respondWithTools([transferCall('t1', 'Alice', 500)])
      .respond(new AIMessage('The bank does not permit the transfer.'));
    const source = guardSource(bankText, {
      policy:
        'BankCheckBalanceResult(balance >= 2000) & BankTransfer(amount <= 500) -> Permitted\n',
    });
    const agent = createAgent({
      model,
      tools,
      middleware: [intentguardMiddleware(source, { maxFinishRefusals: 0 })],
      checkpointer: new MemorySaver(),
    });
    // The task cannot be done without the transfer: the guard does not let the run end.
    await expect(agent.invoke(start, thread('policy'))).rejects.toSatisfy(
      (error: unknown) =>
        IntentguardMiddlewareError.isInstance(error) && error.code === 'task-unfinished',
    );
    // The intent alone would have paused for the person; the policy's refusal is stricter.
    expect(ran.transfers).toEqual([]);
    const read = lastReadBy(model, 2);
    expect(ToolMessage.isInstance(read)).toBe(true);
    expect(String(read?.content)).toMatch(
      /^intentguard: revise \(hard\)\.\nThe operator's policy does not permit this BankTransfer call/,
    );
    expect(String(read?.content)).toContain('balance at least 2000; it is 1500');
    const guard = source.mock.results[0]?.value as Guard;
    expect(guard.decision('t1')?.verdict.reasons[0]).toMatchObject({
      code: 'policy-violation',
      source: 'policy',
    });
  });
});
