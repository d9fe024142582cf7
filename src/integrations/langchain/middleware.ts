import type { AgentMiddleware } from 'langchain';
import { z } from 'zod';
import {
  checkGuardSource,
  checkOrRefuse,
  finishOrRefuse,
  type GuardSource,
  renderRefusal,
} from '../../guard/adapter-kit/index.js';
import type { Guard, GuardDecision, GuardJournal, ToolCall } from '../../guard/index.js';
import { argumentError, describeArgument } from '../../language/arguments.js';
import { type Answer, answersOf, approvalRequest } from './approvals.js';
import { IntentguardMiddlewareError } from './errors.js';
import {
  answeredIds,
  editedCallId,
  finalAnswer,
  humanMessage,
  lastAiMessage,
  type MessageFields,
  pendingCalls,
  replaceCalls,
  reportResults,
  type ToolMessageLike,
  toolMessage,
} from './messages.js';
import { ThreadGuards } from './thread-guards.js';

/** The state field that holds the guard's journal, checkpointed with the thread. */
export const journalStateKey = 'intentguardJournal';

// A loose object: the state keeps the journal exactly as written (no field stripped).
const journalSchema = z.looseObject({
  version: z.number(),
  now: z.string(),
  timeZone: z.string(),
  events: z.array(z.looseObject({})),
}) as unknown as z.ZodType<GuardJournal>;

/** The middleware's state: the guard's journal, so that a resume in any process restores it. */
export const intentguardStateSchema = z.object({ [journalStateKey]: journalSchema.optional() });

/** What `intentguardMiddleware` returns: a LangChain agent middleware (`createAgent({ middleware })`). */
export type IntentguardMiddleware = AgentMiddleware<
  typeof intentguardStateSchema,
  undefined,
  unknown
>;

export interface IntentguardMiddlewareOptions {
  /**
   * How many times in a row the agent may stop before the task is done: each time the
   * guard's feedback goes back to the model. One more, and the run fails with
   * `IntentguardMiddlewareError` (`task-unfinished`). Default 3.
   */
  readonly maxFinishRefusals?: number;
}

/** The parts of LangGraph's runtime the middleware uses. */
interface RuntimeFields {
  readonly configurable?: { readonly thread_id?: unknown };
  readonly interrupt?: (value: unknown) => unknown;
}

interface StateFields {
  readonly messages?: unknown;
  readonly [journalStateKey]?: GuardJournal;
}

interface ToolCallRequestFields {
  readonly toolCall: { readonly id?: unknown; readonly name: string; readonly args?: unknown };
  readonly tool?: unknown;
  readonly state?: StateFields;
  readonly runtime?: RuntimeFields;
}

type ToolCallHandler = (request: ToolCallRequestFields) => unknown;

function threadOf(runtime: RuntimeFields | undefined): string {
  const thread = runtime?.configurable?.thread_id;
  return typeof thread === 'string' || typeof thread === 'number' ? String(thread) : '';
}

/** The model turn a message is: its id (the reducer gives every message one). */
function turnOf(message: MessageFields): string {
  return typeof message.id === 'string' ? message.id : JSON.stringify(message.tool_calls ?? []);
}

/** How many times in a row, at the end of the journal, the guard refused the finish. */
function finishRefusals(journal: GuardJournal): number {
  let count = 0;
  for (let index = journal.events.length - 1; index >= 0; index--) {
    const event = journal.events[index];
    if (event === undefined || !('propose' in event)) continue;
    if (event.propose.finish !== true || event.expect.decision === 'allow') break;
    count++;
  }
  return count;
}

function refusalText(decision: GuardDecision, note: string | undefined): string {
  return note === undefined ? decision.message : `${decision.message}\nThe user said: ${note}`;
}

/** What the person's answers change in a turn's decisions, notes and edited calls. */
interface TurnAnswers {
  readonly decisions: Map<string, GuardDecision>;
  readonly notes: Map<string, string>;
  readonly edits: Map<string, ToolCall>;
}

/** Applies the person's answer to each call asked about, in order. */
function applyAnswers(
  guard: Guard,
  asks: readonly GuardDecision[],
  answers: readonly Answer[],
  { decisions, notes, edits }: TurnAnswers,
): void {
  asks.forEach((ask, index) => {
    const answer = answers[index] ?? { approved: false, note: undefined };
    decisions.set(ask.id, guard.approve(ask.id, answer.approved));
    if (answer.note !== undefined) notes.set(ask.id, answer.note);
    if (answer.edited === undefined) return;
    // The person changed the call: the one asked about is declined, and the edit is a
    // new proposal under its own id (the guard decides each id once), checked like
    // any other; an edit that still needs a person is approved, as the person wrote it.
    const edit: ToolCall = { id: editedCallId(ask.id), ...answer.edited };
    const checked = checkOrRefuse(guard, edit);
    decisions.delete(ask.id);
    decisions.set(edit.id, checked.action === 'ask' ? guard.approve(edit.id, true) : checked);
    edits.set(ask.id, edit);
  });
}

/**
 * The decision for a call that reaches the tool node: the one the guard took after the
 * model's turn. A call the guard never saw (a middleware added or changed it after the
 * guard's check) has none, and does not run.
 */
function decisionAtRun(guard: Guard, call: ToolCall): GuardDecision | undefined {
  // For a call it has seen, `check` answers the recorded decision and changes nothing (and
  // refuses the id if another middleware changed the call's arguments since).
  return guard.decision(call.id) === undefined ? undefined : guard.check(call);
}

function messageAtRun(call: ToolCall, decision: GuardDecision | undefined): string {
  if (decision === undefined)
    return renderRefusal({ code: 'changed-after-check', name: call.name });
  if (decision.action === 'ask') return renderRefusal({ code: 'awaiting-approval' });
  return decision.message;
}

function checkOptions(options: unknown): Required<IntentguardMiddlewareOptions> {
  if (options === undefined) return { maxFinishRefusals: 3 };
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw argumentError('intentguardMiddleware', {
      parameter: 'options',
      expected: 'an options object or undefined',
      actual: describeArgument(options),
    });
  const { maxFinishRefusals = 3 } = options as IntentguardMiddlewareOptions;
  if (
    typeof maxFinishRefusals !== 'number' ||
    !(Number.isInteger(maxFinishRefusals) || maxFinishRefusals === Number.POSITIVE_INFINITY) ||
    maxFinishRefusals < 0
  )
    throw argumentError('intentguardMiddleware', {
      parameter: 'options.maxFinishRefusals',
      expected: 'a whole number, 0 or more (or Infinity)',
      actual: describeArgument(maxFinishRefusals),
    });
  return { maxFinishRefusals };
}

/**
 * A LangChain v1 agent middleware that checks every tool call against the guard's spec:
 *
 * - `afterModel`: the guard decides each call of the model's turn, in order. Refused calls
 *   get a tool message with the guard's feedback (they never reach the tool); calls that
 *   need a person pause the run with one `interrupt` for all of them (resume with
 *   `new Command({ resume: { decisions: [...] } })`); the rest run.
 * - `wrapToolCall`: only a call the guard allowed runs.
 * - `afterAgent`: the run ends only when the guard says the task is done; otherwise its
 *   feedback goes back to the model.
 *
 * Tool results and failures reach the guard from the checkpointed tool messages (a
 * failure, `status: 'error'`, rolls the call back so the model may retry). The guard's
 * journal is kept in the state (`intentguardJournal`), so a run resumed in another
 * process continues with the guard restored from it.
 *
 * @example
 * const agent = createAgent({
 *   model,
 *   tools,
 *   middleware: [
 *     intentguardMiddleware((journal) =>
 *       journal ? restoreGuard(specText, schema, journal) : createGuard(specText, schema),
 *     ),
 *   ],
 *   checkpointer: new MemorySaver(),
 * });
 */
export function intentguardMiddleware(
  guard: GuardSource<GuardJournal | undefined>,
  options?: IntentguardMiddlewareOptions,
): IntentguardMiddleware {
  const threads = new ThreadGuards(checkGuardSource(guard, 'intentguardMiddleware'));
  const { maxFinishRefusals } = checkOptions(options);

  const afterModel = async (state: StateFields, runtime: RuntimeFields) => {
    const message = lastAiMessage(state.messages);
    const turn = message === undefined ? undefined : turnOf(message);
    const bound = threads.bind(threadOf(runtime), state[journalStateKey], turn);
    reportResults(bound.guard, state.messages);
    const calls = message === undefined ? [] : pendingCalls(message, answeredIds(state.messages));
    if (calls.length === 0) return { [journalStateKey]: threads.written(bound) };

    // Fail closed per call: a call the guard refuses or cannot check gets a tool message,
    // and the run goes on.
    const decisions = new Map(calls.map((call) => [call.id, checkOrRefuse(bound.guard, call)]));
    const asks = [...decisions.values()].filter((decision) => decision.action === 'ask');
    const notes = new Map<string, string>();
    const edits = new Map<string, ToolCall>();
    if (asks.length > 0) {
      if (typeof runtime.interrupt !== 'function')
        throw new TypeError('intentguardMiddleware: approvals need LangGraph (runtime.interrupt)');
      // The node runs again from the start on resume: every check above answers the same.
      bound.interruptedTurn = turn;
      const answers = answersOf(await runtime.interrupt(approvalRequest(asks, calls)), asks.length);
      applyAnswers(bound.guard, asks, answers, { decisions, notes, edits });
    }
    if (edits.size > 0 && message !== undefined) replaceCalls(message, edits);

    const refusals: ToolMessageLike[] = [];
    for (const call of calls.map((asked) => edits.get(asked.id) ?? asked)) {
      const decision = decisions.get(call.id);
      if (decision !== undefined && decision.action !== 'run')
        refusals.push(toolMessage(call, refusalText(decision, notes.get(call.id))));
    }
    // The model's message, its edited calls in place (as LangChain's own HITL middleware
    // does), goes back into the state, so the tool node runs the edits.
    const changed = edits.size > 0 && message !== undefined ? [message] : [];
    const messages = [...changed, ...refusals];
    return {
      [journalStateKey]: threads.written(bound),
      ...(messages.length > 0 ? { messages } : {}),
      // With no call left to run, the agent would end the run: the model answers instead.
      ...(refusals.length === calls.length ? { jumpTo: 'model' as const } : {}),
    };
  };

  const afterAgent = async (state: StateFields, runtime: RuntimeFields) => {
    const bound = threads.bind(threadOf(runtime), state[journalStateKey]);
    reportResults(bound.guard, state.messages);
    if (bound.guard.status().finished) return { [journalStateKey]: threads.written(bound) };
    const decision = finishOrRefuse(bound.guard, finalAnswer(state.messages));
    const journal = threads.written(bound);
    if (decision.action === 'run') return { [journalStateKey]: journal };
    const refused = finishRefusals(journal);
    if (refused > maxFinishRefusals)
      throw new IntentguardMiddlewareError(
        'task-unfinished',
        `The agent stopped ${refused} times before the task was done.\n${decision.message}`,
        decision,
      );
    return {
      [journalStateKey]: journal,
      messages: [humanMessage(decision.message)],
      jumpTo: 'model' as const,
    };
  };

  const wrapToolCall = async (request: ToolCallRequestFields, handler: ToolCallHandler) => {
    const { id, name, args } = request.toolCall;
    if (typeof id !== 'string' || id === '')
      throw new IntentguardMiddlewareError(
        'call-without-id',
        `The model called ${name} without a call id: the guard decides each call by its id.`,
      );
    const bound = threads.bind(threadOf(request.runtime), request.state?.[journalStateKey]);
    const call: ToolCall = { id, name, args: args ?? {} };
    const decision = decisionAtRun(bound.guard, call);
    if (decision?.action === 'run') return handler(request);
    // The tool node makes the tool message from what the tool returns: a stand-in tool
    // that returns the refusal gives a real ToolMessage without importing LangChain.
    const refusal = messageAtRun(call, decision);
    return handler({
      ...request,
      tool: { name, description: 'intentguard refusal', invoke: async () => refusal },
    });
  };

  const middleware = {
    // The brand `createMiddleware` sets (a registry symbol, so no import is needed).
    [Symbol.for('AgentMiddleware')]: true,
    name: 'intentguard',
    stateSchema: intentguardStateSchema,
    afterModel: { hook: afterModel, canJumpTo: ['model'] },
    afterAgent: { hook: afterAgent, canJumpTo: ['model'] },
    wrapToolCall,
  };
  return middleware as unknown as IntentguardMiddleware;
}
