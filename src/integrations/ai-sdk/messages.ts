import type { Guard, GuardDecision } from '../../guard/index.js';
import { isRecord } from '../../support/is-record.js';

/**
 * Reading the SDK's model messages (`ModelMessage[]`, the same shape in v6 and v7):
 * which calls the server asked a person about, and what the person answered. The
 * messages come from the client, so every part is checked before it is trusted, and
 * only calls the guard itself left waiting can be answered.
 */

interface ApprovalRequestPart {
  readonly approvalId: string;
  readonly toolCallId: string;
}

interface ApprovalResponsePart {
  readonly approvalId: string;
  readonly approved: boolean;
}

/** The parts of the messages with the given role, in order. */
function* partsOf(messages: readonly unknown[] | undefined, role: string): Generator<unknown> {
  if (!Array.isArray(messages)) return;
  for (const message of messages) {
    if (!isRecord(message) || message.role !== role || !Array.isArray(message.content)) continue;
    yield* message.content;
  }
}

function* approvalRequests(
  messages: readonly unknown[] | undefined,
): Generator<ApprovalRequestPart> {
  for (const part of partsOf(messages, 'assistant')) {
    if (
      isRecord(part) &&
      part.type === 'tool-approval-request' &&
      typeof part.approvalId === 'string' &&
      typeof part.toolCallId === 'string'
    )
      yield { approvalId: part.approvalId, toolCallId: part.toolCallId };
  }
}

function* approvalResponses(
  messages: readonly unknown[] | undefined,
): Generator<ApprovalResponsePart> {
  for (const part of partsOf(messages, 'tool')) {
    if (
      isRecord(part) &&
      part.type === 'tool-approval-response' &&
      typeof part.approvalId === 'string'
    )
      // Only an explicit `true` approves; anything else is a denial.
      yield { approvalId: part.approvalId, approved: part.approved === true };
  }
}

/** What the messages say about approvals: the calls asked about, and the answers in order. */
interface ApprovalIndex {
  readonly length: number;
  readonly requested: ReadonlySet<string>;
  readonly answers: ReadonlyArray<{ readonly toolCallId: string; readonly approved: boolean }>;
}

/**
 * The SDK hands every hook of a step the same messages array, and each hook reads it:
 * the index is built once per array (again if the array grew), not once per call.
 */
const indexes = new WeakMap<object, ApprovalIndex>();

function approvalIndex(messages: readonly unknown[] | undefined): ApprovalIndex | undefined {
  if (!Array.isArray(messages)) return undefined;
  const known = indexes.get(messages);
  if (known !== undefined && known.length === messages.length) return known;
  const callOf = new Map<string, string>();
  for (const request of approvalRequests(messages)) {
    if (!callOf.has(request.approvalId)) callOf.set(request.approvalId, request.toolCallId);
  }
  const answers: Array<{ toolCallId: string; approved: boolean }> = [];
  if (callOf.size > 0) {
    const seen = new Set<string>();
    for (const response of approvalResponses(messages)) {
      const toolCallId = callOf.get(response.approvalId);
      // The first answer for a call counts, as in the SDK.
      if (toolCallId === undefined || seen.has(toolCallId)) continue;
      seen.add(toolCallId);
      answers.push({ toolCallId, approved: response.approved });
    }
  }
  const index = { length: messages.length, requested: new Set(callOf.values()), answers };
  indexes.set(messages, index);
  return index;
}

/**
 * Whether the messages hold an approval request for this call: the SDK is replaying a
 * call a person was asked about (the first time a call is checked, the messages do not
 * yet hold the response that made it).
 */
export function hasApprovalRequest(
  messages: readonly unknown[] | undefined,
  toolCallId: string,
): boolean {
  return approvalIndex(messages)?.requested.has(toolCallId) ?? false;
}

/**
 * Applies the people's answers in `messages` (`tool-approval-response` parts, matched to
 * their `tool-approval-request` by `approvalId`) to the guard: each call the guard has
 * waiting for approval is approved — re-checked against the state now — or denied.
 * Calls the guard did not ask about are left alone, and the first answer for a call
 * counts, as in the SDK; so calling this more than once, or on every step, is safe.
 *
 * A call the guard allowed but the tool itself asked about (its own `needsApproval`)
 * and the person denied never runs: its provisional effect is rolled back.
 *
 * Call it at the start of every request of a chat server, with the request's messages,
 * before `generateText` / `streamText`; the adapter's hooks call it as well.
 *
 * @example
 * const guard = restoreGuard(spec, schema, await journals.get(chatId));
 * syncApprovals(guard, messages); // the person's answers from the client
 * const result = await generateText({ model, tools, messages, toolApproval: intentguardToolApproval(guard) });
 */
export function syncApprovals(
  guard: Guard,
  messages: readonly unknown[] | undefined,
): GuardDecision[] {
  const answered: GuardDecision[] = [];
  const index = approvalIndex(messages);
  if (index === undefined || index.answers.length === 0) return answered;
  for (const { toolCallId, approved } of index.answers) {
    const state = guard.state(toolCallId);
    if (state === 'asked') {
      answered.push(guard.approve(toolCallId, approved));
    } else if (!approved && state === 'running') {
      guard.result(toolCallId, { error: 'the user declined the call; it did not run' });
    }
  }
  return answered;
}
