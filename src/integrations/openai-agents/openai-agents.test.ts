import { readFileSync } from 'node:fs';
import {
  Agent,
  defineToolInputGuardrail,
  defineToolOutputGuardrail,
  RunContext,
  RunState,
  type RunToolApprovalItem,
  run,
  setTracingDisabled,
  ToolGuardrailFunctionOutputFactory,
  tool,
} from '@openai/agents';
import {
  assistantMessage,
  functionCall,
  modelResponder,
  type RecordedModelCall,
  ScriptedModel,
  type ScriptedModelInput,
} from '@openai/agents/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuard, type Guard, type GuardEvent, restoreGuard } from '../../guard/index.js';
import { checkSpec, unwrap } from '../../language/index.js';
import { loadToolSchema } from '../../schema/index.js';
import {
  type ApprovalRequest,
  answerInterruption,
  finishBehavior,
  finishToolOptions,
  type GuardSource,
  type IntentguardToolSettings,
  intentguardToolOptions,
  type RunContextLike,
  resolveInterruptions,
  schemaFromOpenAiAgentsTools,
} from './index.js';

const examples = new URL('../../../examples/', import.meta.url);
const bankText = readFileSync(new URL('bank-transfer/spec.intent', examples), 'utf8');
const schema = unwrap(
  loadToolSchema(readFileSync(new URL('bank-transfer/tools.json', examples), 'utf8')),
);
const now = '2025-03-14T12:00';
const task = 'Transfer $500 to Alice if my balance exceeds $1000.';

beforeAll(() => setTracingDisabled(true));

/** What the bank's tools were asked to do, in order: the side effects that really ran. */
interface Bank {
  readonly executed: string[];
  /** How many balance checks fail before one succeeds. */
  failures: number;
  balance: number;
}

function newBank(failures = 0): Bank {
  return { executed: [], failures, balance: 1500 };
}

function bankTools<TContext>(
  guard: GuardSource<RunContextLike<TContext>>,
  bank: Bank,
  settings: { balance?: IntentguardToolSettings; transfer?: IntentguardToolSettings } = {},
) {
  const balance = tool({
    name: 'bank_check_balance',
    description: "Returns the balance of the user's checking account.",
    parameters: z.object({}),
    execute: async () => {
      bank.executed.push('balance');
      if (bank.failures > 0) {
        bank.failures--;
        throw new Error('bank offline');
      }
      return { balance: bank.balance };
    },
    ...intentguardToolOptions(guard, 'BankCheckBalance', settings.balance),
  });
  const transfer = tool({
    name: 'bank_transfer',
    description: 'Transfers money to a payee.',
    parameters: z.object({ to: z.string(), amount: z.number() }),
    execute: async ({ to, amount }) => {
      bank.executed.push(`transfer ${amount} to ${to}`);
      return `sent $${amount} to ${to}`;
    },
    ...intentguardToolOptions(guard, 'BankTransfer', settings.transfer),
  });
  return [balance, transfer, tool(finishToolOptions(guard))];
}

function bankAgent(
  guard: Guard,
  bank: Bank,
  model: ScriptedModel,
  settings: Parameters<typeof bankTools>[2] = {},
) {
  return new Agent({
    name: 'bank assistant',
    instructions: 'Do what the user asks with the bank tools, then call finish.',
    model,
    tools: bankTools(guard, bank, settings),
    toolUseBehavior: finishBehavior(guard),
  });
}

/** The text the model read as the result of one of its calls. */
function resultText(call: RecordedModelCall, callId: string): string | undefined {
  const input = call.request.input;
  if (!Array.isArray(input)) return undefined;
  for (const item of input as unknown[]) {
    const candidate = item as { type?: string; callId?: string; output?: unknown };
    if (candidate.type !== 'function_call_result' || candidate.callId !== callId) continue;
    const output = candidate.output as { type?: string; text?: string } | string;
    return typeof output === 'string' ? output : (output.text ?? JSON.stringify(output));
  }
  return undefined;
}

/** A model step that needs what it read about earlier calls, and answers with new calls. */
function step(
  respond: (
    read: (callId: string) => string,
  ) => (ReturnType<typeof functionCall> | ReturnType<typeof assistantMessage>)[],
): ScriptedModelInput {
  return modelResponder((call) =>
    respond((callId) => {
      const text = resultText(call, callId);
      if (text === undefined) throw new Error(`the model never read a result for ${callId}`);
      return text;
    }),
  );
}

const balanceCall = (callId: string) => functionCall('bank_check_balance', {}, { callId });
const transferCall = (callId: string, to: string, amount: number) =>
  functionCall('bank_transfer', { to, amount }, { callId });
const finishCall = (callId: string, summary: string) =>
  functionCall('finish', { summary }, { callId });

const newGuard = (options: Parameters<typeof createGuard>[2] = {}) =>
  createGuard(bankText, schema, { now, ...options });

describe('a guarded run with @openai/agents 0.20 and a scripted model', () => {
  it('refuses, rolls back a failure, pauses for approval across a restore, and ends only when done', async () => {
    const bank = newBank(1);
    const read: Record<string, string> = {};
    // The first half: everything up to the approval the person has not given yet.
    const guard = newGuard();
    const firstModel = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step((result) => {
        read.b1 = result('b1');
        return [balanceCall('b2')];
      }),
      step((result) => {
        read.b2 = result('b2');
        // Too much, and a finish before anything was sent: both refused.
        return [transferCall('t1', 'Alice', 5000), finishCall('f1', 'Sent.')];
      }),
      step((result) => {
        read.t1 = result('t1');
        read.f1 = result('f1');
        return [transferCall('t2', 'Alice', 500)];
      }),
    ]);
    const first = await run(bankAgent(guard, bank, firstModel), task);
    firstModel.assertComplete();

    expect(read.b1).toContain('An error occurred while running the tool.');
    expect(read.b1).toContain('intentguard: the call failed');
    expect(read.b2).toContain('1500');
    expect(read.t1).toMatch(/^intentguard: reject\./);
    expect(read.t1).toContain('never move more than the user asked for');
    expect(read.f1).toMatch(/^intentguard: revise/);
    expect(bank.executed).toEqual(['balance', 'balance']);
    expect(first.finalOutput).toBeUndefined();
    expect(first.interruptions.map((item) => item.rawItem)).toMatchObject([
      { type: 'function_call', callId: 't2', name: 'bank_transfer' },
    ]);
    expect(guard.status()).toMatchObject({ pendingIds: ['t2'], achieved: { BalanceKnown: 1 } });

    // Both halves persisted as text, as a server would between two requests.
    const saved = JSON.stringify({
      state: first.state.toString(),
      journal: guard.journal(),
    });

    // The second half: a new guard from the journal, a new agent, the state restored.
    const stored = JSON.parse(saved) as {
      state: string;
      journal: Parameters<typeof restoreGuard>[2];
    };
    const restored = restoreGuard(bankText, schema, stored.journal);
    expect(restored.status()).toEqual(guard.status());
    const secondModel = new ScriptedModel([
      step((result) => {
        read.t2 = result('t2');
        return [finishCall('f2', 'Sent $500 to Alice.')];
      }),
    ]);
    const agent = bankAgent(restored, bank, secondModel);
    const state = await RunState.fromString(agent, stored.state);
    const asked: ApprovalRequest[] = [];
    const answers = await resolveInterruptions(state, restored, (request) => {
      asked.push(request);
      return true;
    });
    expect(answers).toEqual({ approved: ['t2'], rejected: [], unresolved: [] });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({
      id: 't2',
      name: 'BankTransfer',
      args: { to: 'Alice', amount: 500 },
    });
    expect(asked[0]?.prompt).toContain('(BankTransfer) with to: "Alice", amount: 500?');

    const second = await run(agent, state);
    secondModel.assertComplete();
    expect(read.t2).toBe('sent $500 to Alice');
    expect(second.interruptions).toEqual([]);
    expect(second.finalOutput).toBe('Sent $500 to Alice.');
    expect(bank.executed).toEqual(['balance', 'balance', 'transfer 500 to Alice']);
    expect(restored.status()).toMatchObject({
      finished: true,
      done: true,
      pendingIds: [],
      runningIds: [],
      achieved: { BalanceKnown: 1, Transferred: 1 },
    });
    // The journal tells the whole story: the failure, the refusals, the approval, the finish.
    const events = restored.journal().events;
    expect(events).toContainEqual({ fail: { id: 'b1' } });
    expect(events).toContainEqual({ resolve: { approved: true }, id: 't2' });
    expect(events.filter((event) => 'propose' in event && event.id === '#finish')).toHaveLength(2);
  });

  it('asks about a call only after the guard allows it, and refuses the rest before asking', async () => {
    const bank = newBank();
    const guard = newGuard();
    let inputAtApproval = '';
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      // A refused and a confirmable call in one step: only the second pauses the run.
      step(() => [transferCall('t1', 'Mallory', 500), transferCall('t2', 'Alice', 500)]),
      step((result) => {
        inputAtApproval = result('t1');
        return [finishCall('f1', 'Sent.')];
      }),
    ]);
    const agent = bankAgent(guard, bank, model);
    const first = await run(agent, task);
    expect(first.interruptions.map((item) => (item.rawItem as { callId: string }).callId)).toEqual([
      't2',
    ]);
    expect(guard.status().pendingIds).toEqual(['t2']);
    await resolveInterruptions(first.state, guard, () => true);
    const second = await run(agent, first.state);
    expect(inputAtApproval).toMatch(/^intentguard: revise \(hard\)\./);
    expect(inputAtApproval).toContain('"Alice"');
    expect(bank.executed).toEqual(['balance', 'transfer 500 to Alice']);
    expect(second.finalOutput).toBe('Sent.');
  });

  it('checks every call of a turn before any runs: a call that needs an earlier result waits', async () => {
    const bank = newBank();
    const guard = newGuard();
    const read: Record<string, string> = {};
    const model = new ScriptedModel([
      step(() => [balanceCall('b1'), transferCall('t1', 'Alice', 500)]),
      step((result) => {
        read.t1 = result('t1');
        return [transferCall('t2', 'Alice', 500)];
      }),
    ]);
    const first = await run(bankAgent(guard, bank, model), task);
    expect(read.t1).toMatch(/^intentguard: revise \(hard\)\./);
    expect(bank.executed).toEqual(['balance']);
    expect(first.interruptions).toHaveLength(1);
    expect(guard.status().pendingIds).toEqual(['t2']);
  });

  it('tells the model when the person declines, and does not run the call', async () => {
    const bank = newBank();
    const guard = newGuard();
    const read: Record<string, string> = {};
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step(() => [transferCall('t1', 'Alice', 500)]),
      step((result) => {
        read.t1 = result('t1');
        return [finishCall('f1', 'Nothing sent.')];
      }),
      step((result) => {
        read.f1 = result('f1');
        return [assistantMessage('I could not send the money.')];
      }),
    ]);
    const agent = bankAgent(guard, bank, model);
    const first = await run(agent, task);
    const answers = await resolveInterruptions(first.state, guard, () => false);
    expect(answers).toMatchObject({ approved: [], rejected: ['t1'] });
    const second = await run(agent, first.state);
    expect(read.t1).toContain('the user declined this call');
    expect(read.t1).toContain('Do not make it again');
    // The task cannot be done without the transfer: the finish is refused, and the
    // model's plain answer (no tool call) is what ends this run.
    expect(read.f1).toMatch(/^intentguard: revise/);
    expect(bank.executed).toEqual(['balance']);
    expect(second.finalOutput).toBe('I could not send the money.');
    expect(guard.status()).toMatchObject({ finished: false, achieved: { BalanceKnown: 1 } });
  });

  it('re-checks an approval against the state at the moment it is given', async () => {
    const bank = newBank();
    const guard = newGuard();
    const read: Record<string, string> = {};
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step(() => [transferCall('t1', 'Alice', 500)]),
      step((result) => {
        read.t1 = result('t1');
        return [finishCall('f1', 'Balance too low now.')];
      }),
    ]);
    const agent = bankAgent(guard, bank, model);
    const first = await run(agent, task);
    // While the person thinks, the app learns that the balance dropped.
    guard.observe({ BankCheckBalanceResult: { balance: 10 } });
    const told: string[] = [];
    const recording = {
      getInterruptions: () => first.state.getInterruptions(),
      approve: (item: RunToolApprovalItem) => {
        told.push('approve');
        first.state.approve(item);
      },
      reject: (item: RunToolApprovalItem, options?: { message?: string }) => {
        told.push(`reject: ${options?.message?.split('\n')[0]}`);
        first.state.reject(item, options);
      },
    };
    const answers = await resolveInterruptions(recording, guard, () => true);
    expect(answers).toMatchObject({ approved: [], rejected: ['t1'] });
    // The SDK rejects the call with the guard's text: it never reaches the tool's guardrails.
    expect(told).toEqual(['reject: intentguard: revise (hard).']);
    const second = await run(agent, first.state);
    expect(read.t1).toMatch(/^intentguard: revise/);
    expect(bank.executed).toEqual(['balance']);
    // With a low balance the task is done without a transfer.
    expect(second.finalOutput).toBe('Balance too low now.');
  });

  it('keeps the guard in step when the app approves through the SDK alone', async () => {
    const bank = newBank();
    const guard = newGuard();
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step(() => [transferCall('t1', 'Alice', 500)]),
      step(() => [finishCall('f1', 'Sent.')]),
    ]);
    const agent = bankAgent(guard, bank, model);
    const first = await run(agent, task);
    for (const item of first.interruptions) first.state.approve(item);
    const second = await run(agent, first.state);
    expect(bank.executed).toEqual(['balance', 'transfer 500 to Alice']);
    expect(guard.journal().events).toContainEqual({ resolve: { approved: true }, id: 't1' });
    expect(second.finalOutput).toBe('Sent.');
  });

  it('does not take a pre-approval input guardrail for an approval', async () => {
    const bank = newBank();
    const guard = newGuard();
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step(() => [transferCall('t1', 'Alice', 500)]),
      step(() => [finishCall('f1', 'Sent.')]),
    ]);
    const agent = bankAgent(guard, bank, model);
    const options = { toolExecution: { preApprovalInputGuardrails: true } };
    const first = await run(agent, task, options);
    expect(first.interruptions).toHaveLength(1);
    expect(bank.executed).toEqual(['balance']);
    expect(guard.status().pendingIds).toEqual(['t1']);
    await resolveInterruptions(first.state, guard, () => true);
    const second = await run(agent, first.state, options);
    expect(bank.executed).toEqual(['balance', 'transfer 500 to Alice']);
    expect(second.finalOutput).toBe('Sent.');
  });

  it('finds the guard in the run context, restored with RunState.fromStringWithContext', async () => {
    const bank = newBank();
    interface AppContext {
      guard: Guard;
    }
    const source = (runContext: { context: AppContext }) => runContext.context.guard;
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step(() => [transferCall('t1', 'Alice', 500)]),
      step(() => [finishCall('f1', 'Sent.')]),
    ]);
    // One agent for every run; each run brings its guard in its context.
    const agent = new Agent<AppContext>({
      name: 'bank assistant',
      model,
      tools: bankTools(source, bank),
      toolUseBehavior: finishBehavior(source),
    });
    const guard = newGuard();
    const first = await run(agent, task, { context: { guard } });
    const saved = { state: first.state.toString(), journal: JSON.stringify(guard.journal()) };

    const restored = restoreGuard(bankText, schema, JSON.parse(saved.journal));
    const state = await RunState.fromStringWithContext(
      agent,
      saved.state,
      new RunContext<AppContext>({ guard: restored }),
    );
    await resolveInterruptions(state, restored, () => true);
    const second = await run(agent, state);
    expect(second.finalOutput).toBe('Sent.');
    expect(bank.executed).toEqual(['balance', 'transfer 500 to Alice']);
    expect(guard.status().finished).toBe(false);
    expect(restored.status().finished).toBe(true);
  });

  it('runs the app guardrails after its own, and rolls back a call they reject', async () => {
    const bank = newBank();
    const guard = newGuard();
    const seen: string[] = [];
    let blocked = 1;
    const read: Record<string, string> = {};
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step((result) => {
        read.b1 = result('b1');
        return [balanceCall('b2')];
      }),
      step((result) => {
        read.b2 = result('b2');
        return [assistantMessage('Checked.')];
      }),
    ]);
    const agent = bankAgent(guard, bank, model, {
      balance: {
        inputGuardrails: [
          defineToolInputGuardrail({
            name: 'rate limit',
            run: async ({ toolCall }) => {
              seen.push(`input ${toolCall.callId}`);
              return blocked-- > 0
                ? ToolGuardrailFunctionOutputFactory.rejectContent('rate limited, try again')
                : ToolGuardrailFunctionOutputFactory.allow();
            },
          }),
        ],
        outputGuardrails: [
          defineToolOutputGuardrail({
            name: 'audit',
            run: async ({ toolCall, output }) => {
              seen.push(`output ${toolCall.callId} ${JSON.stringify(output)}`);
              return ToolGuardrailFunctionOutputFactory.allow();
            },
          }),
        ],
      },
    });
    await run(agent, task);
    expect(read.b1).toBe('rate limited, try again');
    expect(seen).toEqual(['input b1', 'input b2', 'output b2 {"balance":1500}']);
    expect(bank.executed).toEqual(['balance']);
    // b1 did not run, so b2 was allowed (not "already achieved").
    expect(guard.journal().events).toContainEqual({ fail: { id: 'b1' } });
    expect(guard.status().achieved).toEqual({ BalanceKnown: 1 });
  });

  it('lets the app word failures, or fail the run, through errorFunction', async () => {
    const worded = newBank(1);
    const guard = newGuard();
    const read: Record<string, string> = {};
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step((result) => {
        read.b1 = result('b1');
        return [assistantMessage('The bank is offline.')];
      }),
    ]);
    const agent = bankAgent(guard, worded, model, {
      balance: { errorFunction: (_context, error) => `bank said: ${(error as Error).message}` },
    });
    await run(agent, task);
    expect(read.b1).toBe('bank said: bank offline');
    expect(guard.journal().events).toContainEqual({ fail: { id: 'b1' } });

    const failing = newBank(1);
    const strict = newGuard();
    const throwing = bankAgent(
      strict,
      failing,
      new ScriptedModel([step(() => [balanceCall('b1')])]),
      {
        balance: { errorFunction: null },
      },
    );
    await expect(run(throwing, task)).rejects.toThrow('bank offline');
    expect(strict.journal().events).toContainEqual({ fail: { id: 'b1' } });
  });

  it('decides and records in shadow mode, but runs everything', async () => {
    const bank = newBank();
    const events: GuardEvent[] = [];
    const guard = newGuard({ mode: 'shadow', onEvent: (event) => events.push(event) });
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step(() => [transferCall('t1', 'Alice', 5000)]),
      step(() => [finishCall('f1', 'Sent.')]),
    ]);
    const result = await run(bankAgent(guard, bank, model), task);
    expect(result.interruptions).toEqual([]);
    expect(bank.executed).toEqual(['balance', 'transfer 5000 to Alice']);
    expect(result.finalOutput).toBe('Sent.');
    const decisions = events.flatMap((event) =>
      event.kind === 'decision' ? [event.decision] : [],
    );
    expect(decisions.map((decision) => decision.verdict.decision)).toEqual(['allow', 'reject']);
  });

  it('answers a single interruption, and leaves the ones of unguarded tools to the app', async () => {
    const guard = newGuard();
    const bank = newBank();
    const audit = tool({
      name: 'audit_log',
      description: 'Writes to the audit log.',
      parameters: z.object({ line: z.string() }),
      needsApproval: true,
      execute: async ({ line }) => `logged ${line}`,
    });
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step(() => [
        transferCall('t1', 'Alice', 500),
        functionCall('audit_log', { line: 'x' }, { callId: 'a1' }),
      ]),
    ]);
    const agent = new Agent({
      name: 'bank assistant',
      model,
      tools: [...bankTools(guard, bank), audit],
      toolUseBehavior: finishBehavior(guard),
    });
    const first = await run(agent, task);
    expect(first.interruptions).toHaveLength(2);
    const answers = await resolveInterruptions(first.state, guard, () => true);
    expect(answers.approved).toEqual(['t1']);
    expect(answers.unresolved.map((item) => (item.rawItem as { callId: string }).callId)).toEqual([
      'a1',
    ]);
    const [audited] = answers.unresolved;
    expect(audited && answerInterruption(first.state, guard, audited, true)).toBeUndefined();
  });

  it('builds a schema from the agent tools for writing the spec', () => {
    const guard = newGuard();
    const tools = bankTools(guard, newBank());
    const derived = unwrap(schemaFromOpenAiAgentsTools(tools, { exclude: ['finish'] }));
    expect([...derived.predicates.keys()].sort()).toEqual([
      'bank_check_balance',
      'bank_check_balanceResult',
      'bank_transfer',
      'bank_transferResult',
    ]);
    const transfer = derived.predicates.get('bank_transfer');
    expect(transfer?.variables.map((variable) => variable.name)).toEqual(['to', 'amount']);
    expect(transfer?.critical).toBe(true);
  });
});

describe('result fields from schemaFromOpenAiAgentsTools({ results })', () => {
  const resultSpec = [
    'bank_check_balance() -> BalanceKnown',
    'BalanceKnown & bank_check_balanceResult(balance > 1000) & bank_transfer(to = "Alice", amount = 500) -> Transferred',
    'Transferred -> Done',
    'BalanceKnown & bank_check_balanceResult(balance <= 1000) -> Done',
    '',
  ].join('\n');

  /** The agent's tools, made before the guard: they find it in the run context. */
  function contextTools(bank: Bank) {
    const guardOf = (runContext: RunContextLike<{ guard: Guard }>) => runContext.context.guard;
    return [
      tool({
        name: 'bank_check_balance',
        description: "Returns the balance of the user's checking account.",
        parameters: z.object({}),
        execute: async () => {
          bank.executed.push('balance');
          return { balance: bank.balance };
        },
        ...intentguardToolOptions(guardOf, 'bank_check_balance'),
      }),
      tool({
        name: 'bank_transfer',
        description: 'Transfers money to a payee.',
        parameters: z.object({ to: z.string(), amount: z.number() }),
        execute: async ({ to, amount }) => {
          bank.executed.push(`transfer ${amount} to ${to}`);
          return `sent $${amount} to ${to}`;
        },
        ...intentguardToolOptions(guardOf, 'bank_transfer'),
      }),
    ];
  }

  const results = { bank_check_balance: z.object({ balance: z.number() }) };

  async function runWithBalance(balance: number) {
    const bank = { ...newBank(), balance };
    const tools = contextTools(bank);
    const derived = unwrap(schemaFromOpenAiAgentsTools(tools, { results }));
    const guard = createGuard(resultSpec, derived, { now });
    const read: Record<string, string> = {};
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step((result) => {
        read.b1 = result('b1');
        return [transferCall('t1', 'Alice', 500)];
      }),
      step((result) => {
        read.t1 = result('t1');
        return [assistantMessage('Finished.')];
      }),
    ]);
    const agent = new Agent<{ guard: Guard }>({ name: 'bank', model, tools });
    await run(agent, task, { context: { guard } });
    return { bank, read, guard };
  }

  it('the spec reads the balance the tool returned: above 1000 the transfer runs', async () => {
    const { bank, read, guard } = await runWithBalance(1500);
    expect(read.b1).toContain('1500');
    expect(bank.executed).toEqual(['balance', 'transfer 500 to Alice']);
    expect(guard.status().done).toBe(true);
  });

  it('at or below 1000 the transfer is refused and never runs', async () => {
    const { bank, read, guard } = await runWithBalance(900);
    expect(bank.executed).toEqual(['balance']);
    expect(read.t1).toMatch(/^intentguard: /);
    expect(guard.status().done).toBe(true);
  });

  it('without results the spec cannot read the field, and the hint says why', () => {
    const derived = unwrap(schemaFromOpenAiAgentsTools(contextTools(newBank())));
    expect(() => createGuard(resultSpec, derived, { now })).toThrow(/unknown-variable/);
    const hints = checkSpec(resultSpec, derived).diagnostics.map((d) => d.hint);
    expect(hints).toContain(
      "bank_check_balance declares no outputSchema; add one to read result fields (its result is only its text, 'content').",
    );
  });

  it('without results a plain-text output is the result content the spec reads', async () => {
    const textSpec = [
      'bank_check_balance() -> BalanceKnown',
      'BalanceKnown & bank_check_balanceResult(content contains "in good standing") & bank_transfer(to = "Alice", amount = 500) -> Transferred',
      'Transferred -> Done',
      '',
    ].join('\n');
    async function runWithStatus(status: string) {
      const bank = newBank();
      const guardOf = (runContext: RunContextLike<{ guard: Guard }>) => runContext.context.guard;
      const tools = contextTools(bank);
      tools[0] = tool({
        name: 'bank_check_balance',
        description: "Returns the state of the user's checking account.",
        parameters: z.object({}),
        execute: async () => {
          bank.executed.push('balance');
          return status;
        },
        ...intentguardToolOptions(guardOf, 'bank_check_balance'),
      });
      const guard = createGuard(textSpec, unwrap(schemaFromOpenAiAgentsTools(tools)), { now });
      const read: Record<string, string> = {};
      const model = new ScriptedModel([
        step(() => [balanceCall('b1')]),
        step(() => [transferCall('t1', 'Alice', 500)]),
        step((result) => {
          read.t1 = result('t1');
          return [assistantMessage('Finished.')];
        }),
      ]);
      await run(new Agent<{ guard: Guard }>({ name: 'bank', model, tools }), task, {
        context: { guard },
      });
      return { bank, read };
    }
    const good = await runWithStatus('Account 1234 is in good standing; balance 1500 USD.');
    expect(good.bank.executed).toEqual(['balance', 'transfer 500 to Alice']);
    const frozen = await runWithStatus('Account 1234 is frozen.');
    expect(frozen.bank.executed).toEqual(['balance']);
    expect(frozen.read.t1).toMatch(/^intentguard: /);
  });

  it('keeps the name-based criticality, and refuses results for a tool it does not have', () => {
    const tools = contextTools(newBank());
    const derived = unwrap(schemaFromOpenAiAgentsTools(tools, { results }));
    expect(derived.predicates.get('bank_transfer')?.critical).toBe(true);
    expect(derived.predicates.get('bank_check_balance')?.critical).toBe(false);
    expect(
      derived.predicates.get('bank_check_balanceResult')?.variables.map((v) => v.name),
    ).toEqual(['balance']);
    expect(() =>
      schemaFromOpenAiAgentsTools(tools, {
        results: { bank_check_balanc: results.bank_check_balance },
      }),
    ).toThrow(/results names 'bank_check_balanc', which is not one of the function tools/);
  });
});

describe('failing closed', () => {
  const noApproval = { context: {}, isToolApproved: () => undefined };
  const transferItem = (callId: string) => ({
    callId,
    name: 'bank_transfer',
    arguments: '{"to":"Alice","amount":500}',
  });

  it('does not run a call that waits for approval when no one approved it', async () => {
    const guard = newGuard();
    guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} });
    guard.result('b1', { output: { balance: 1500 } });
    // The guard holds t1 for approval, but the SDK never asked (needsApproval was bypassed).
    expect(
      guard.check({ id: 't1', name: 'BankTransfer', args: { to: 'Alice', amount: 500 } }).action,
    ).toBe('ask');
    const [guardrail] = intentguardToolOptions(guard, 'BankTransfer').inputGuardrails;
    const answer = await guardrail!.run({ context: noApproval, toolCall: transferItem('t1') });
    expect(answer.behavior).toMatchObject({ type: 'rejectContent' });
    expect((answer.behavior as { message: string }).message).toContain(
      'needs the user\'s approval (Transfers money from the user\'s checking account to a payee (BankTransfer) with to: "Alice", amount: 500? Why: Confirm the transfer details with the user. (financial)), and the user could not be asked here, so it did not run.',
    );
    expect(guard.status().pendingIds).toEqual(['t1']);
  });

  it('refuses a call whose arguments differ from the ones the guard checked under its id', async () => {
    const guard = newGuard();
    guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} });
    guard.result('b1', { output: { balance: 1500 } });
    const options = intentguardToolOptions(guard, 'BankTransfer');
    expect(await options.needsApproval(noApproval, { to: 'Bob', amount: 5 }, 't1')).toBe(false);
    // Same id, another tool name in the schema: checked as a new call, refused as a reuse.
    const [guardrail] = intentguardToolOptions(guard, 'BankCheckBalance').inputGuardrails;
    const answer = await guardrail!.run({ context: noApproval, toolCall: transferItem('t1') });
    expect((answer.behavior as { message?: string }).message).toContain(
      "call id 't1' was already used",
    );
  });

  it('refuses, without throwing, when the guard cannot be found or the call not checked', async () => {
    const lost = intentguardToolOptions(() => ({}) as Guard, 'BankTransfer');
    expect(await lost.needsApproval(noApproval, {}, 't1')).toBe(false);
    const [guardrail] = lost.inputGuardrails;
    const answer = await guardrail!.run({ context: noApproval, toolCall: transferItem('t1') });
    expect((answer.behavior as { message?: string }).message).toMatch(
      /^intentguard: refused\. The call could not be checked \(intentguard: the guard source did not return a guard\), so it did not run\.$/,
    );
    const guard = newGuard();
    const unnamed = intentguardToolOptions(guard, 'BankTransfer');
    expect(await unnamed.needsApproval(noApproval, {}, undefined)).toBe(false);
    const [check] = unnamed.inputGuardrails;
    const empty = await check!.run({ context: noApproval, toolCall: transferItem('') });
    expect((empty.behavior as { message?: string }).message).toMatch(
      /cannot be checked: its call\.id must be a non-empty string/,
    );
    expect(() => intentguardToolOptions(guard, '')).toThrow(/'action'/);
  });

  it('does not end the run on a finish the guard refused, nor on another guard', async () => {
    const guard = newGuard();
    const finish = finishToolOptions(guard);
    const details = { toolCall: { callId: 'f1', name: 'finish', arguments: '{}' } };
    const refusal = await finish.execute({ summary: 'Done.' }, undefined, details);
    expect(refusal).toMatch(/^intentguard: revise/);
    const behavior = finishBehavior(guard);
    const result = {
      type: 'function_output',
      tool: { name: 'finish' },
      output: refusal,
      runItem: { rawItem: { callId: 'f1' } },
    };
    expect(await behavior(noApproval, [result])).toEqual({
      isFinalOutput: false,
      isInterrupted: undefined,
    });
    // Done: the same call id on this guard ends the run; on another guard it does not.
    guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} });
    guard.result('b1', { output: { balance: 10 } });
    expect(await finish.execute({ summary: 'Nothing to send.' }, undefined, details)).toBe(
      'Nothing to send.',
    );
    expect(await behavior(noApproval, [{ ...result, output: 'Nothing to send.' }])).toEqual({
      isFinalOutput: true,
      isInterrupted: undefined,
      finalOutput: 'Nothing to send.',
    });
    expect(await finishBehavior(newGuard())(noApproval, [result])).toMatchObject({
      isFinalOutput: false,
    });
  });

  it('checks the summary as the final answer: a transfer it shows but never made is refused', async () => {
    const guard = newGuard();
    guard.check({ id: 'b1', name: 'BankCheckBalance', args: {} });
    guard.result('b1', { output: { balance: 10 } });
    const finish = finishToolOptions(guard);
    const details = { toolCall: { callId: 'f2', name: 'finish', arguments: '{}' } };
    const fabricated = await finish.execute(
      {
        summary: 'Action: BankTransfer\nAction Input: {"to": "Alice", "amount": 5}\nSent Alice $5.',
      },
      undefined,
      details,
    );
    expect(fabricated).toMatch(/^intentguard: revise/);
    expect(fabricated).toContain('never carried out: BankTransfer');
    expect(guard.status().finished).toBe(false);
    expect(await finish.execute({ summary: 'Your balance is $10.' }, undefined, details)).toBe(
      'Your balance is $10.',
    );
  });
});

describe('a guard with a policy (LANGUAGE.md §8), used as it is', () => {
  it("refuses the transfer the intent allows and the policy does not permit; the model reads the policy's reason", async () => {
    const bank = newBank();
    const read: Record<string, string> = {};
    const guard = newGuard({
      policy:
        'BankCheckBalanceResult(balance >= 2000) & BankTransfer(amount <= 500) -> Permitted\n',
    });
    const model = new ScriptedModel([
      step(() => [balanceCall('b1')]),
      step(() => [transferCall('t1', 'Alice', 500)]),
      step((result) => {
        read.t1 = result('t1');
        return [assistantMessage('The bank does not permit the transfer.')];
      }),
    ]);
    const outcome = await run(bankAgent(guard, bank, model), task);
    model.assertComplete();
    // The intent alone would ask the person; the policy's refusal is stricter.
    expect(outcome.interruptions).toEqual([]);
    expect(bank.executed).toEqual(['balance']);
    expect(read.t1).toMatch(
      /^intentguard: revise \(hard\)\.\nThe operator's policy does not permit/,
    );
    expect(read.t1).toContain('balance at least 2000; it is 1500');
    expect(guard.decision('t1')?.verdict.reasons[0]).toMatchObject({
      code: 'policy-violation',
      source: 'policy',
    });
  });
});
