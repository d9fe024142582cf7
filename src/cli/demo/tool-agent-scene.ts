import { generateText, jsonSchema, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import {
  createGuard,
  type GuardEvent,
  type GuardJournal,
  restoreGuard,
} from '../../guard/index.js';
import {
  finishTool,
  guardTools,
  isTaskFinished,
  schemaFromAiSdkTools,
  syncApprovals,
} from '../../integrations/ai-sdk/index.js';
import { checkSpec, print, unwrap } from '../../language/index.js';

/**
 * The demo's tool-agent scene: a scripted model (the AI SDK's own mock) drives a real
 * `generateText` loop whose tools are wrapped by `intentguard/ai-sdk`. It shows a
 * refusal and the feedback the model reads, the corrected calls, a transfer the person
 * confirms in a second request (the server keeps only the guard's journal), and the
 * finish that ends the run. No network, no key.
 */
export interface SceneOutput {
  /** A line of the narration. */
  readonly line: (actor: string, text: string, tone?: 'ok' | 'ask' | 'refuse' | 'dim') => void;
  readonly event: (record: Record<string, unknown>) => void;
}

const instruction = 'Transfer $500 to Alice if my balance exceeds $1000.';
export const toolAgentSpec = `BankCheckBalance() -> BalanceKnown
@confirm(financial, "Confirm the transfer details with the user")
BalanceKnown & BankCheckBalanceResult(balance > 1000) & BankTransfer(to = "Alice", amount = 500) -> Transferred
Transferred -> Done
BalanceKnown & BankCheckBalanceResult(balance <= 1000) -> Done
reject BankTransfer(amount > 500) because "never move more than the user asked for"`;

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

/** An eager agent: it transfers too much first, then does what the tool results tell it. */
function scriptedAgent(output: SceneOutput): MockLanguageModelV3 {
  let calls = 0;
  const act = (prompt: Prompt): Content[] => {
    const seen = lastResult(prompt);
    const call = (toolName: string, input: object): Content[] => {
      output.line('model', `${toolName} ${JSON.stringify(input)}`);
      return [
        {
          type: 'tool-call',
          toolCallId: `call-${++calls}`,
          toolName,
          input: JSON.stringify(input),
        },
      ];
    };
    if (seen === '') return call('BankTransfer', { to: 'Alice', amount: 900 });
    if (seen.includes('never move more than'))
      return call('BankTransfer', { to: 'Alice', amount: 500 });
    if (seen.includes('call BankCheckBalance')) return call('BankCheckBalance', {});
    const balance = /"balance":\s*(\d+)/.exec(seen)?.[1];
    if (balance !== undefined && Number(balance) > 1000)
      return call('BankTransfer', { to: 'Alice', amount: 500 });
    if (seen.includes('"ok":true')) return call('finish', {});
    const text = seen.includes('done') ? 'Done: $500 went to Alice.' : 'I cannot go on.';
    output.line('model', text);
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

function narrator(output: SceneOutput): (event: GuardEvent) => void {
  return (event) => {
    output.event({ scene: 'tool agent', event });
    if (event.kind === 'decision') {
      const { action, message, prompt, verdict } = event.decision;
      const code = verdict.reasons[0]?.code;
      if (action === 'run') output.line('guard', `✓ run ${event.call.name}`, 'ok');
      else if (action === 'ask') output.line('guard', `? ask the person: ${prompt}`, 'ask');
      else
        output.line(
          'guard',
          `↺ ${verdict.decision}${code ? ` · ${code}` : ''}; the model reads:\n${message}`,
          'refuse',
        );
    } else if (event.kind === 'approval') {
      output.line(
        'guard',
        `${event.approved ? '✓ approved' : '✗ declined'}: ${event.decision.action}`,
        'ok',
      );
    } else if (event.kind === 'finish') {
      output.line(
        'guard',
        event.decision.action === 'run'
          ? '✓ finish: the task is done'
          : `↺ finish refused:\n${event.decision.message}`,
        event.decision.action === 'run' ? 'ok' : 'refuse',
      );
    }
  };
}

/** Runs the scene; returns whether the task ended done. */
export async function runToolAgentScene(output: SceneOutput): Promise<boolean> {
  const tools = {
    BankCheckBalance: tool({
      description: "Returns the balance of the user's checking account.",
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      outputSchema: jsonSchema<{ balance: number }>({
        type: 'object',
        properties: { balance: { type: 'number' } },
      }),
      execute: async () => {
        output.line('tool', 'BankCheckBalance → {"balance":1500}', 'dim');
        return { balance: 1500 };
      },
    }),
    BankTransfer: tool({
      description: 'Transfers money from the checking account to a payee.',
      inputSchema: jsonSchema<{ to: string; amount: number }>({
        type: 'object',
        properties: { to: { type: 'string' }, amount: { type: 'number' } },
        required: ['to', 'amount'],
      }),
      execute: async ({ to, amount }) => {
        output.line('tool', `BankTransfer → sent $${amount} to ${to}`, 'dim');
        return { ok: true, reference: 'TX-1' };
      },
    }),
  };
  const schema = unwrap(await schemaFromAiSdkTools(tools));
  const model = scriptedAgent(output);
  const narrate = narrator(output);
  let journal: GuardJournal | undefined;

  /** One request of a stateless chat server: restore the guard, apply answers, run, keep the journal. */
  const request = async (messages: ModelMessage[]): Promise<ModelMessage[]> => {
    const guard = journal
      ? restoreGuard(toolAgentSpec, schema, journal, { onEvent: narrate })
      : createGuard(toolAgentSpec, schema, { now: '2025-03-14T12:00', onEvent: narrate });
    syncApprovals(guard, messages);
    const result = await generateText({
      model,
      tools: { ...guardTools(tools, guard), finish: finishTool(guard) },
      stopWhen: [isTaskFinished(guard), stepCountIs(12)],
      messages,
    });
    journal = guard.journal();
    const { pendingIds, finished } = guard.status();
    output.line(
      'server',
      `request ends: ${finished ? 'finished' : `waiting for the person (${pendingIds.join(', ')})`}; keeps a journal of ${journal.events.length} events`,
      'dim',
    );
    return [...messages, ...result.response.messages];
  };

  output.line('user', instruction);
  output.line('spec', print(unwrap(checkSpec(toolAgentSpec, schema)).ast).trimEnd(), 'dim');
  const history = await request([{ role: 'user', content: instruction }]);
  const approvals = history.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string'
      ? message.content.filter((part) => part.type === 'tool-approval-request')
      : [],
  );
  output.line('person', `approves ${approvals.map((part) => part.toolCallId).join(', ')}`);
  await request([
    ...history,
    {
      role: 'tool',
      content: approvals.map((part) => ({
        type: 'tool-approval-response' as const,
        approvalId: part.approvalId,
        approved: true,
      })),
    },
  ]);
  if (!journal) return false;
  const { finished, done } = restoreGuard(toolAgentSpec, schema, journal).status();
  return finished && done;
}
