/**
 * intentguard in an OpenAI Agents SDK run, offline: the SDK's own ScriptedModel plays
 * the model, reading what the tools answered and acting on it. The run goes:
 * a failed balance check (rolled back) → a retry → a refused transfer and a refused
 * finish (the model reads why) → the corrected transfer → the run pauses for the
 * person → both halves saved as text → a new guard restored from its journal → the
 * person approves → the transfer runs → the finish the guard accepts ends the run.
 *
 *   npx tsx examples/openai-agents/run.ts
 *
 * In an app, import from 'intentguard' and 'intentguard/openai-agents' instead of ../../src.
 */
import { readFileSync } from 'node:fs';
import { Agent, RunState, run, setTracingDisabled, tool } from '@openai/agents';
import {
  functionCall,
  modelResponder,
  type RecordedModelCall,
  ScriptedModel,
  type ScriptedModelInput,
} from '@openai/agents/testing';
import { z } from 'zod';
import { createGuard, type Guard, type GuardJournal, restoreGuard } from '../../src/guard/index.js';
import {
  finishBehavior,
  finishToolOptions,
  intentguardToolOptions,
  resolveInterruptions,
} from '../../src/integrations/openai-agents/index.js';
import { unwrap } from '../../src/language/index.js';
import { loadToolSchema } from '../../src/schema/index.js';

setTracingDisabled(true);

const here = new URL('../bank-transfer/', import.meta.url);
const specText = readFileSync(new URL('spec.intent', here), 'utf8');
const schema = unwrap(loadToolSchema(readFileSync(new URL('tools.json', here), 'utf8')));
const task = 'Transfer $500 to Alice if my balance exceeds $1000.';

const say = (line: string) => console.log(line);
const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' | ');

/** The bank: the first balance check fails, as a flaky service does. */
let offline = true;

function bankAgent(guard: Guard, model: ScriptedModel): Agent {
  const balance = tool({
    name: 'bank_check_balance',
    description: "Returns the balance of the user's checking account.",
    parameters: z.object({}),
    execute: async () => {
      if (offline) {
        offline = false;
        say('  bank: balance check failed (bank offline)');
        throw new Error('bank offline');
      }
      say('  bank: balance is $1500');
      return { balance: 1500 };
    },
    ...intentguardToolOptions(guard, 'BankCheckBalance'),
  });
  const transfer = tool({
    name: 'bank_transfer',
    description: 'Transfers money from the checking account to a payee.',
    parameters: z.object({ to: z.string(), amount: z.number() }),
    execute: async ({ to, amount }) => {
      say(`  bank: sent $${amount} to ${to}`);
      return `sent $${amount} to ${to}`;
    },
    ...intentguardToolOptions(guard, 'BankTransfer'),
  });
  return new Agent({
    name: 'bank assistant',
    instructions: 'Do what the user asks with the bank tools, then call finish.',
    model,
    tools: [balance, transfer, tool(finishToolOptions(guard))],
    // The run ends on a finish the guard accepts, not on any finish call.
    toolUseBehavior: finishBehavior(guard),
  });
}

/** What the model read as the result of one of its calls. */
function resultOf(call: RecordedModelCall, callId: string): string {
  for (const item of call.request.input as unknown[]) {
    const result = item as { type?: string; callId?: string; output?: unknown };
    if (result.type !== 'function_call_result' || result.callId !== callId) continue;
    const output = result.output as string | { text?: string };
    return typeof output === 'string' ? output : (output.text ?? '');
  }
  throw new Error(`no result for ${callId}`);
}

/** One model turn: it reads the results of its earlier calls, then makes new ones. */
function turn(
  reads: readonly string[],
  calls: readonly [string, string, Record<string, unknown>][],
): ScriptedModelInput {
  return modelResponder((call) => {
    for (const id of reads) say(`  model reads ${id}: ${oneLine(resultOf(call, id))}`);
    return calls.map(([id, name, args]) => {
      say(`model calls ${name} ${JSON.stringify(args)} (${id})`);
      return functionCall(name, args, { callId: id });
    });
  });
}

say(`user: ${task}`);

// The first half: until the run pauses for the person.
const guard = createGuard(specText, schema, { now: '2025-03-14T12:00' });
const firstModel = new ScriptedModel([
  turn([], [['b1', 'bank_check_balance', {}]]),
  turn(['b1'], [['b2', 'bank_check_balance', {}]]),
  turn(
    ['b2'],
    [
      ['t1', 'bank_transfer', { to: 'Alice', amount: 5000 }],
      ['f1', 'finish', { summary: 'Sent the money.' }],
    ],
  ),
  turn(['t1', 'f1'], [['t2', 'bank_transfer', { to: 'Alice', amount: 500 }]]),
]);
const paused = await run(bankAgent(guard, firstModel), task);
say(`run paused: ${paused.interruptions.length} call waits for the user`);

// Saved as text, as a server would between two requests.
const saved = JSON.stringify({ state: paused.state.toString(), journal: guard.journal() });
say(`saved: run state and guard journal (${guard.journal().events.length} events)`);

// The second half: a new guard from the journal, the run state restored.
const stored = JSON.parse(saved) as { state: string; journal: GuardJournal };
const restored = restoreGuard(specText, schema, stored.journal);
const secondModel = new ScriptedModel([
  turn(['t2'], [['f2', 'finish', { summary: 'Sent $500 to Alice.' }]]),
]);
const agent = bankAgent(restored, secondModel);
const state = await RunState.fromString(agent, stored.state);
await resolveInterruptions(state, restored, (request) => {
  say(`user is asked: ${request.prompt}`);
  say('user answers: yes');
  return true;
});
const finished = await run(agent, state);
say(`final output: ${finished.finalOutput}`);
const status = restored.status();
say(
  `guard: ${status.finished ? 'finished' : 'not finished'}; achieved ${Object.keys(status.achieved).join(', ')}`,
);
