/**
 * intentguard in a Vercel AI SDK agent on ai 6 (`guardTools`, which works on ai 7 too),
 * offline: a scripted model (the SDK's own mock) plays an eager agent that reads its tool
 * results. `tool-approval.ts` is the same story on ai 7's `toolApproval`. Run it with
 *
 *   npx tsx examples/ai-sdk/main.ts
 *
 * It shows a refusal, the feedback the model reads, the corrected calls, a transfer the
 * person confirms in a second HTTP-like request (the guard's journal is all the server
 * keeps between the two), and the finish that ends the run.
 */
import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { createGuard, type GuardJournal, restoreGuard } from '../../src/guard/index.js';
import {
  finishTool,
  guardTools,
  isTaskFinished,
  pendingPrompt,
  schemaFromAiSdkTools,
  syncApprovals,
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

type Prompt = Parameters<MockLanguageModelV3['doGenerate']>[0]['prompt'];
type Content = Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>['content'][number];

/** The text of the last tool result the model was given. */
function lastResult(prompt: Prompt): string {
  const message = prompt.at(-1);
  if (message?.role !== 'tool') return '';
  const part = message.content.findLast((item) => item.type === 'tool-result');
  return part?.type === 'tool-result' ? resultText(part.output) : '';
}

/** The eager agent of story.ts as the SDK's mock model. */
function scriptedAgent(): MockLanguageModelV3 {
  let calls = 0;
  const act = (prompt: Prompt): Content[] => {
    const move = nextMove(lastResult(prompt));
    if ('text' in move) {
      show('model', move.text);
      return [{ type: 'text', text: move.text }];
    }
    show('model', `${move.toolName} ${JSON.stringify(move.input)}`);
    return [
      {
        type: 'tool-call',
        toolCallId: `call-${++calls}`,
        toolName: move.toolName,
        input: JSON.stringify(move.input),
      },
    ];
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
  // ai 6's approval request carries no reason: the server sends the guard's question
  // with the stream (here: prints it), by the call's id.
  for (const id of pendingIds) show('server', `question for ${id}: ${pendingPrompt(guard, id)}`);
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
