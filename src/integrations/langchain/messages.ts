import type { Guard, ToolCall, ToolOutcome } from '../../guard/index.js';
import { isRecord } from '../../support/is-record.js';
import { IntentguardMiddlewareError } from './errors.js';

/*
 * LangChain messages read structurally (`type`, `tool_calls`, `tool_call_id`), and the
 * messages this adapter adds written as message-like objects that LangGraph's messages
 * reducer turns into real `ToolMessage` / `HumanMessage` instances. The adapter never
 * imports `@langchain/core` at run time (an optional peer).
 */

/** The fields of a LangChain message this adapter reads. */
export interface MessageFields {
  readonly type?: unknown;
  readonly id?: unknown;
  readonly content?: unknown;
  readonly tool_calls?: unknown;
  readonly tool_call_id?: unknown;
  readonly status?: unknown;
  readonly artifact?: unknown;
}

/** A tool message as a state update: the messages reducer makes it a `ToolMessage`. */
export interface ToolMessageLike {
  readonly type: 'tool';
  readonly content: string;
  readonly tool_call_id: string;
  readonly name: string;
}

/** A message to the model as a state update: the messages reducer makes it a `HumanMessage`. */
export interface HumanMessageLike {
  readonly type: 'human';
  readonly content: string;
  readonly name: 'intentguard';
}

function messagesOf(messages: unknown): readonly MessageFields[] {
  return Array.isArray(messages) ? messages.filter(isRecord) : [];
}

/** The last AI message (the model's turn), as LangChain's own HITL middleware finds it. */
export function lastAiMessage(messages: unknown): MessageFields | undefined {
  const all = messagesOf(messages);
  for (let index = all.length - 1; index >= 0; index--) {
    if (all[index]?.type === 'ai') return all[index];
  }
  return undefined;
}

/**
 * The model's final answer: the text of the last AI message (a string, or the text blocks
 * of a content array); undefined when it has none. The guard checks it at finish for calls
 * it shows but never made (LANGUAGE.md §7).
 */
export function finalAnswer(messages: unknown): string | undefined {
  const content = lastAiMessage(messages)?.content;
  if (typeof content === 'string') return content === '' ? undefined : content;
  if (!Array.isArray(content)) return undefined;
  const text = content
    .filter(isRecord)
    .flatMap((block) =>
      block['type'] === 'text' && typeof block['text'] === 'string' ? [block['text']] : [],
    )
    .join('\n');
  return text === '' ? undefined : text;
}

/** Ids of the calls that already have a tool message (answered by a tool or a middleware). */
export function answeredIds(messages: unknown): Set<string> {
  const ids = new Set<string>();
  for (const message of messagesOf(messages)) {
    if (message.type === 'tool' && typeof message.tool_call_id === 'string')
      ids.add(message.tool_call_id);
  }
  return ids;
}

/**
 * The calls of the model's turn the guard decides: every tool call without an answer yet.
 * `extract-*` calls are LangChain's structured-output calls, answered by the agent itself.
 */
export function pendingCalls(message: MessageFields, answered: ReadonlySet<string>): ToolCall[] {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  const pending: ToolCall[] = [];
  for (const call of calls) {
    const name = typeof call.name === 'string' ? call.name : '';
    if (name.startsWith('extract-')) continue;
    const id = call.id;
    if (typeof id !== 'string' || id === '')
      throw new IntentguardMiddlewareError(
        'call-without-id',
        `The model called ${name || 'a tool'} without a call id: the guard decides each call by its id.`,
      );
    if (answered.has(id)) continue;
    pending.push({ id, name, args: call.args ?? {} });
  }
  return pending;
}

/** The text of a message's content: a string, or the text parts of a content array. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) => {
      if (typeof part === 'string') return part;
      return isRecord(part) && part.type === 'text' && typeof part.text === 'string'
        ? part.text
        : '';
    })
    .join('');
}

/** A tool message as the guard's outcome: `status: 'error'` is a failure, anything else output. */
export function outcomeOf(message: MessageFields): ToolOutcome {
  const text = contentText(message.content);
  if (message.status === 'error') return { error: text };
  // A tool with `responseFormat: 'content_and_artifact'` keeps its raw data in the artifact.
  return { output: isRecord(message.artifact) ? message.artifact : text };
}

/**
 * Tells the guard the outcome of every call it allowed whose tool message is in the
 * state: the checkpointed messages are the record of what ran, so a guard restored in
 * another process learns the same outcomes. Reporting twice is harmless (`result` is
 * idempotent per id). A call whose arguments a middleware changed after the check is
 * not the call the guard allowed (the tool node refused it): it counts as failed, so
 * what the guard anticipated for it is rolled back.
 */
export function reportResults(guard: Guard, messages: unknown): void {
  const running = new Set(guard.status().runningIds);
  if (running.size === 0) return;
  const all = messagesOf(messages);
  const calls = new Map<string, ToolCall>();
  for (const message of all) {
    if (message.type !== 'ai' || !Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls.filter(isRecord)) {
      if (typeof call.id === 'string' && running.has(call.id))
        calls.set(call.id, { id: call.id, name: String(call.name), args: call.args ?? {} });
    }
  }
  for (const message of all) {
    const id = message.tool_call_id;
    if (message.type !== 'tool' || typeof id !== 'string' || !running.has(id)) continue;
    const call = calls.get(id);
    // For a call it has decided, `check` answers the recorded decision and changes nothing.
    const unchanged = call !== undefined && guard.check(call).action === 'run';
    guard.result(
      id,
      unchanged ? outcomeOf(message) : { error: 'changed after the check; it did not run' },
    );
    running.delete(id);
  }
}

export function toolMessage(call: ToolCall, content: string): ToolMessageLike {
  return { type: 'tool', content, tool_call_id: call.id, name: call.name };
}

export function humanMessage(content: string): HumanMessageLike {
  return { type: 'human', content, name: 'intentguard' };
}

/**
 * The id of the call a person's edit makes of call `id`: a new id, since the guard
 * decides each id once and a call whose arguments change under its id is refused.
 */
export function editedCallId(id: string): string {
  return `${id}_edited`;
}

/**
 * Puts the edited calls in place of the ones asked about in the model's message (keyed
 * by the asked call's id), keeping their position, as LangChain's own HITL middleware
 * rewrites `tool_calls`; the message goes back into the state so the tool node runs them.
 */
export function replaceCalls(message: MessageFields, edits: ReadonlyMap<string, ToolCall>): void {
  if (!Array.isArray(message.tool_calls)) return;
  const replaced = message.tool_calls.map((call: unknown) => {
    const edit = isRecord(call) && typeof call.id === 'string' ? edits.get(call.id) : undefined;
    return edit === undefined || !isRecord(call)
      ? call
      : { ...call, id: edit.id, name: edit.name, args: edit.args };
  });
  (message as { tool_calls?: unknown }).tool_calls = replaced;
}
