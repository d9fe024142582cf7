/**
 * intentguard in a LangChain.js v1 agent, offline: a scripted chat model asks to move
 * too much money, stops too early, then makes the right transfer, which a person
 * approves through a LangGraph interrupt. Run it with `npx tsx examples/langchain/run.ts`.
 *
 * In an app, import from 'intentguard' and 'intentguard/langchain' instead of ../../src.
 */
import { readFileSync } from 'node:fs';
import { AIMessage, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent, tool } from 'langchain';
import { z } from 'zod';
import { createGuard, restoreGuard } from '../../src/guard/index.js';
import {
  intentguardMiddleware,
  isIntentguardApprovalRequest,
  journalStateKey,
  schemaFromLangChainTools,
} from '../../src/integrations/langchain/index.js';
import { unwrap } from '../../src/language/index.js';

const tools = [
  tool(async () => JSON.stringify({ balance: 1500 }), {
    name: 'BankCheckBalance',
    description: "Returns the balance of the user's checking account.",
    schema: z.object({}),
  }),
  tool(async ({ to, amount }: { to: string; amount: number }) => `Sent $${amount} to ${to}.`, {
    name: 'BankTransfer',
    description: "Transfers money from the user's checking account to a payee.",
    schema: z.object({ to: z.string(), amount: z.number() }),
  }),
];

// The names the spec may use: the tools, their fields, and the result fields it reads.
const schema = unwrap(
  schemaFromLangChainTools(tools, {
    results: { BankCheckBalance: z.object({ balance: z.number() }) },
  }),
);
// "Transfer $500 to Alice if my balance exceeds $1000", as a spec.
const specText = readFileSync(new URL('../bank-transfer/spec.intent', import.meta.url), 'utf8');

// The model's turns, scripted: a real model would read the guard's feedback and revise.
const model = fakeModel()
  .respondWithTools([{ name: 'BankCheckBalance', args: {}, id: 'call-1' }])
  .respondWithTools([{ name: 'BankTransfer', args: { to: 'Alice', amount: 5000 }, id: 'call-2' }])
  .respond(new AIMessage('I could not transfer the money, so I am done.'))
  .respondWithTools([{ name: 'BankTransfer', args: { to: 'Alice', amount: 500 }, id: 'call-3' }])
  .respond(new AIMessage('Transferred $500 to Alice.'));

const agent = createAgent({
  model,
  tools,
  middleware: [
    // One guard per thread: new for a new thread, restored from the thread's journal on resume.
    intentguardMiddleware((journal) =>
      journal === undefined
        ? createGuard(specText, schema, { now: '2025-03-14T12:00' })
        : restoreGuard(specText, schema, journal),
    ),
  ],
  checkpointer: new MemorySaver(),
});

/** The guard's feedback up to its roadmap (which follows it for the model), indented. */
function feedback(text: string): string {
  const lines = text.split('\n');
  const roadmap = lines.indexOf('Roadmap:');
  return (roadmap < 0 ? lines : lines.slice(0, roadmap)).join('\n    ');
}

let printed = 0;
function show(messages: readonly BaseMessage[]): void {
  for (const message of messages.slice(printed)) {
    const text = typeof message.content === 'string' ? message.content : '';
    if (HumanMessage.isInstance(message) && message.name === 'intentguard')
      console.log(`  intentguard to the model: ${feedback(text)}`);
    else if (HumanMessage.isInstance(message)) console.log(`user: ${text}`);
    else if (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0) {
      for (const call of message.tool_calls ?? [])
        console.log(`model calls ${call.name} ${JSON.stringify(call.args)}`);
    } else if (AIMessage.isInstance(message)) console.log(`model: ${text}`);
    else if (text.startsWith('intentguard:')) console.log(`  refused: ${feedback(text)}`);
    else console.log(`  result: ${text}`);
  }
  printed = messages.length;
}

const config = { configurable: { thread_id: 'bank-1' } };
let result = await agent.invoke(
  { messages: [new HumanMessage('Transfer $500 to Alice if my balance exceeds $1000.')] },
  config,
);
show(result.messages);

// The run pauses while a call waits for a person; here the person approves.
for (
  let pause = result.__interrupt__?.[0];
  pause !== undefined;
  pause = result.__interrupt__?.[0]
) {
  if (!isIntentguardApprovalRequest(pause.value)) throw new Error('an interrupt of another kind');
  for (const action of pause.value.actionRequests)
    console.log(`  person asked: ${action.description}`);
  console.log('  person: approve');
  const decisions = pause.value.actionRequests.map(() => ({ type: 'approve' as const }));
  result = await agent.invoke(new Command({ resume: { decisions } }), config);
  show(result.messages);
}

const journal = result[journalStateKey];
if (journal === undefined) throw new Error('the state holds no journal');
const status = restoreGuard(specText, schema, journal).status();
console.log(
  `intentguard: done=${status.done} finished=${status.finished} achieved=${JSON.stringify(status.achieved)} (${journal.events.length} journal events)`,
);
