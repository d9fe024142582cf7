/**
 * intentguard in a Vercel AI SDK agent, offline: a scripted model (the SDK's own mock)
 * plays an eager agent that reads its tool results. Run it with
 *
 *   npx tsx examples/ai-sdk/main.ts
 *
 * It shows a refusal, the feedback the model reads, the corrected calls, a transfer the
 * person confirms in a second HTTP-like request (the guard's journal is all the server
 * keeps between the two), and the finish that ends the run.
 */
import { readFileSync } from 'node:fs';
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import {
  createGuard,
  type GuardEvent,
  type GuardJournal,
  restoreGuard,
} from '../../src/guard/index.js';
import {
  finishTool,
  guardTools,
  isTaskFinished,
  schemaFromAiSdkTools,
  syncApprovals,
} from '../../src/integrations/ai-sdk/index.js';
import { unwrap } from '../../src/language/index.js';

const task = 'Transfer $500 to Alice if my balance exceeds $1000.';
const specText = readFileSync(new URL('../bank-transfer/spec.intent', import.meta.url), 'utf8');

function show(who: string, text: string): void {
  console.log(`${who.padEnd(7)} ${text}`);
}

// The app's tools, as any AI SDK app defines them.
const bankTools = {
  BankCheckBalance: tool({
    description: "Returns the balance of the user's checking account.",
    inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
    outputSchema: z.object({ balance: z.number() }),
    execute: async () => {
      show('tool', 'BankCheckBalance → {"balance":1500}');
      return { balance: 1500 };
    },
  }),
  BankTransfer: tool({
    description: 'Transfers money from the checking account to a payee.',
    inputSchema: z.object({ to: z.string(), amount: z.number() }),
    execute: async ({ to, amount }) => {
      show('tool', `BankTransfer → sent $${amount} to ${to}`);
      return { ok: true, reference: 'TX-1' };
    },
  }),
};

/** The guard's decisions, as they happen. */
function narrate(event: GuardEvent): void {
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

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `          ${line}`)
    .join('\n');
}

type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];
type Content = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>['content'][number];

/** The text of the last tool result the model was given. */
function lastResult(prompt: Prompt): string {
  const message = prompt.at(-1);
  if (message?.role !== 'tool') return '';
  const part = message.content.findLast((item) => item.type === 'tool-result');
  if (part?.type !== 'tool-result') return '';
  const output = part.output;
  return output.type === 'text' || output.type === 'error-text'
    ? output.value
    : JSON.stringify('value' in output ? output.value : output);
}

/** An eager agent: transfers first, then does what the results tell it. */
function scriptedAgent(): MockLanguageModelV3 {
  let calls = 0;
  const act = (prompt: Prompt): Content[] => {
    const seen = lastResult(prompt);
    const call = (toolName: string, input: object): Content[] => {
      show('model', `${toolName} ${JSON.stringify(input)}`);
      return [
        {
          type: 'tool-call',
          toolCallId: `call-${++calls}`,
          toolName,
          input: JSON.stringify(input),
        },
      ];
    };
    if (seen === '') return call('BankTransfer', { to: 'Alice', amount: 500 });
    if (seen.includes('call BankCheckBalance')) return call('BankCheckBalance', {});
    if (/"balance":\s*(\d+)/.test(seen) && Number(/"balance":\s*(\d+)/.exec(seen)?.[1]) > 1000)
      return call('BankTransfer', { to: 'Alice', amount: 500 });
    if (seen.includes('"ok":true')) return call('finish', {});
    const text = seen.includes('the task is done') ? 'Done: $500 went to Alice.' : 'I am stuck.';
    show('model', text);
    return [{ type: 'text', text }];
  };
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const content = act(prompt);
      return {
        content,
        finishReason: {
          unified: content[0]?.type === 'tool-call' ? 'tool-calls' : 'stop',
          raw: undefined,
        },
        usage: {
          inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 0, text: 0, reasoning: 0 },
        },
        warnings: [],
      };
    },
  });
}

const model = scriptedAgent();
const schema = unwrap(await schemaFromAiSdkTools(bankTools));
/** What a stateless chat server keeps between requests: the guard's journal, by chat. */
const journals = new Map<string, string>();

/** One request of the chat server: restore the guard, apply the answers, run, store. */
async function handle(chatId: string, messages: ModelMessage[]): Promise<ModelMessage[]> {
  const stored = journals.get(chatId);
  const guard = stored
    ? restoreGuard(specText, schema, JSON.parse(stored) as GuardJournal, { onEvent: narrate })
    : createGuard(specText, schema, { now: '2025-03-14T12:00', onEvent: narrate });
  syncApprovals(guard, messages);
  const result = await generateText({
    model,
    tools: { ...guardTools(bankTools, guard), finish: finishTool(guard) },
    stopWhen: [isTaskFinished(guard), stepCountIs(12)],
    messages,
  });
  journals.set(chatId, JSON.stringify(guard.journal()));
  const { pendingIds, finished } = guard.status();
  show(
    'server',
    `request ends: ${finished ? 'finished' : `waiting for ${pendingIds.join(', ') || 'the user'}`}; journal of ${guard.journal().events.length} events stored`,
  );
  return [...messages, ...result.response.messages];
}

show('user', task);
const history = await handle('chat-1', [{ role: 'user', content: task }]);

// The client shows the approval request; the person approves it.
const requests = history.flatMap((message) =>
  message.role === 'assistant' && typeof message.content !== 'string'
    ? message.content.filter((part) => part.type === 'tool-approval-request')
    : [],
);
show('person', `approves ${requests.map((request) => request.toolCallId).join(', ')}`);
await handle('chat-1', [
  ...history,
  {
    role: 'tool',
    content: requests.map((request) => ({
      type: 'tool-approval-response' as const,
      approvalId: request.approvalId,
      approved: true,
    })),
  },
]);
