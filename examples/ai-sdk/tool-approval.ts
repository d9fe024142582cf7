/**
 * intentguard in a Vercel AI SDK agent on ai 7 (`toolApproval`), offline: the same story
 * as `main.ts`, with the SDK's own approval hook instead of wrapped tools. The person sees
 * the guard's question as the approval request's `reason`. Run it with
 *
 *   npx tsx examples/ai-sdk/tool-approval.ts
 *
 * ai 7 needs Node 22; this repository installs it as `ai-v7` so that its tests run on
 * Node 20 too. In your project the imports are `from 'ai'` and `from 'ai/test'`.
 */
import { generateText, isStepCount, jsonSchema, type ModelMessage, tool } from 'ai-v7';
import { MockLanguageModelV4 } from 'ai-v7/test';
import { z } from 'zod';
import { createGuard, type GuardJournal, restoreGuard } from '../../src/guard/index.js';
import {
  finishTool,
  intentguardToolApproval,
  isTaskFinished,
  observeToolResults,
  schemaFromAiSdkTools,
} from '../../src/integrations/ai-sdk/index.js';
import { unwrap } from '../../src/language/index.js';
import { narrate, nextMove, resultText, show, specText, task } from './story.js';

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

type Prompt = Parameters<MockLanguageModelV4['doGenerate']>[0]['prompt'];

function lastResult(prompt: Prompt): string {
  const message = prompt.at(-1);
  if (message?.role !== 'tool') return '';
  const part = message.content.findLast((item) => item.type === 'tool-result');
  return part?.type === 'tool-result' ? resultText(part.output) : '';
}

/** The eager agent of story.ts as ai 7's mock model. */
function scriptedAgent(): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const move = nextMove(lastResult(prompt));
      if ('text' in move) show('model', move.text);
      else show('model', `${move.toolName} ${JSON.stringify(move.input)}`);
      return {
        content:
          'text' in move
            ? [{ type: 'text', text: move.text }]
            : [
                {
                  type: 'tool-call',
                  toolCallId: `call-${++calls}`,
                  toolName: move.toolName,
                  input: JSON.stringify(move.input),
                },
              ],
        finishReason: { unified: 'text' in move ? 'stop' : 'tool-calls', raw: undefined },
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

/** One request of the chat server: restore the guard, run (the hook applies the answers), store. */
async function handle(chatId: string, messages: ModelMessage[]): Promise<ModelMessage[]> {
  const stored = journals.get(chatId);
  const guard = stored
    ? restoreGuard(specText, schema, JSON.parse(stored) as GuardJournal, { onEvent: narrate })
    : createGuard(specText, schema, { now: '2025-03-14T12:00', onEvent: narrate });
  const result = await generateText({
    model,
    tools: { ...bankTools, finish: finishTool(guard) },
    toolApproval: intentguardToolApproval(guard),
    onToolExecutionEnd: observeToolResults(guard),
    stopWhen: [isTaskFinished(guard), isStepCount(12)],
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

// The client shows the approval request with the guard's question; the person approves.
const requests = history.flatMap((message) =>
  message.role === 'assistant' && typeof message.content !== 'string'
    ? message.content.filter((part) => part.type === 'tool-approval-request')
    : [],
);
for (const request of requests) show('person', `reads: ${request.reason ?? ''}`);
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
