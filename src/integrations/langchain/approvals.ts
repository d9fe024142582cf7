import type { GuardDecision, ToolCall } from '../../guard/index.js';
import { isRecord } from '../../support/is-record.js';

/**
 * What the middleware passes to LangGraph's `interrupt` when calls wait for a person.
 * It has the shape of LangChain's `HITLRequest` (`humanInTheLoopMiddleware`), so UIs
 * that render those render it too, plus `intentguard.callIds` to tell it apart.
 */
export interface IntentguardApprovalRequest {
  /** One per call waiting for a person, in the order of the model's tool calls. */
  readonly actionRequests: readonly {
    readonly name: string;
    readonly args: unknown;
    /** The guard's question for the person (`GuardDecision.prompt`). */
    readonly description: string;
  }[];
  readonly reviewConfigs: readonly {
    readonly actionName: string;
    readonly allowedDecisions: readonly ('approve' | 'edit' | 'reject')[];
  }[];
  readonly intentguard: { readonly callIds: readonly string[] };
}

/**
 * The person's answer, given as `new Command({ resume: answer })`: LangChain's
 * `HITLResponse` shape, one decision per action request, in the same order. An `edit`
 * (the person changed the call) is checked by the guard as a new proposal: it runs if
 * the spec allows it, and is refused with feedback to the model if not. Anything else —
 * a missing decision, an edit without a tool name or an arguments object, an unknown
 * type — denies the call; a rejection's `message` is passed to the model.
 */
export interface IntentguardApprovalResponse {
  readonly decisions: readonly (
    | { readonly type: 'approve' }
    | {
        readonly type: 'edit';
        readonly editedAction: { readonly name: string; readonly args: Record<string, unknown> };
      }
    | { readonly type: 'reject'; readonly message?: string }
  )[];
}

/** One person's answer, read from the resume value. */
export interface Answer {
  readonly approved: boolean;
  readonly note: string | undefined;
  /** The call as the person edited it (an `edit` decision), to be checked anew. */
  readonly edited?: { readonly name: string; readonly args: Record<string, unknown> };
}

export function approvalRequest(asks: readonly GuardDecision[], calls: readonly ToolCall[]) {
  const byId = new Map(calls.map((call) => [call.id, call]));
  const request: IntentguardApprovalRequest = {
    actionRequests: asks.map((decision) => ({
      name: byId.get(decision.id)?.name ?? '',
      args: byId.get(decision.id)?.args ?? {},
      description: decision.prompt,
    })),
    reviewConfigs: asks.map((decision) => ({
      actionName: byId.get(decision.id)?.name ?? '',
      allowedDecisions: ['approve', 'edit', 'reject'],
    })),
    intentguard: { callIds: asks.map((decision) => decision.id) },
  };
  return request;
}

/** The answers for `count` calls; whatever is not an explicit approval is a denial (fail closed). */
export function answersOf(resume: unknown, count: number): Answer[] {
  const decisions =
    isRecord(resume) && Array.isArray(resume.decisions) ? (resume.decisions as unknown[]) : [];
  return Array.from({ length: count }, (_, index) => {
    const decision = decisions[index];
    if (!isRecord(decision)) return { approved: false, note: undefined };
    const note =
      typeof decision.message === 'string' && decision.message.trim() !== ''
        ? decision.message.trim()
        : undefined;
    const action = decision.editedAction;
    if (
      decision.type === 'edit' &&
      isRecord(action) &&
      typeof action.name === 'string' &&
      action.name !== '' &&
      isRecord(action.args)
    )
      return { approved: false, note, edited: { name: action.name, args: action.args } };
    return { approved: decision.type === 'approve', note };
  });
}

/**
 * Whether an interrupt's value is intentguard's approval request.
 *
 * @example
 * const result = await agent.invoke(input, config);
 * for (const { value } of result.__interrupt__ ?? []) {
 *   if (isIntentguardApprovalRequest(value)) console.log(value.actionRequests.map((a) => a.description));
 * }
 */
export function isIntentguardApprovalRequest(value: unknown): value is IntentguardApprovalRequest {
  return (
    isRecord(value) &&
    isRecord(value.intentguard) &&
    Array.isArray(value.intentguard.callIds) &&
    Array.isArray(value.actionRequests) &&
    Array.isArray(value.reviewConfigs)
  );
}
