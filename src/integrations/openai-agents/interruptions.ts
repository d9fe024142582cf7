import { renderRefusal } from '../../guard/adapter-kit/index.js';
import type { Guard, GuardDecision } from '../../guard/index.js';
import type { ApprovalItemLike, RunStateLike } from './types.js';

/** What a person is asked about one paused call. */
export interface ApprovalRequest<TItem extends ApprovalItemLike = ApprovalItemLike> {
  /** The SDK's approval item. */
  readonly item: TItem;
  /** The call id. */
  readonly id: string;
  /** The action's name in the spec's schema. */
  readonly name: string;
  /** The arguments the guard checked. */
  readonly args: unknown;
  /** The question for the person: what runs, and why it asks. */
  readonly prompt: string;
  readonly decision: GuardDecision;
}

export interface ResolvedInterruptions<TItem extends ApprovalItemLike = ApprovalItemLike> {
  /** Calls approved in the SDK (they run when the run resumes). */
  readonly approved: readonly string[];
  /** Calls rejected in the SDK, each with the guard's text for the model. */
  readonly rejected: readonly string[];
  /** Interruptions of calls the guard never checked (other tools): the app answers them. */
  readonly unresolved: readonly TItem[];
}

function callIdOf(item: ApprovalItemLike): string | undefined {
  const raw = item.rawItem as { callId?: unknown } | null | undefined;
  return typeof raw?.callId === 'string' ? raw.callId : undefined;
}

/** The SDK's item and the guard's record of it, when the guard checked this call. */
function requestFor<TItem extends ApprovalItemLike>(
  guard: Guard,
  item: TItem,
): ApprovalRequest<TItem> | undefined {
  const id = callIdOf(item);
  if (id === undefined) return undefined;
  const call = guard.call(id);
  if (call === undefined) return undefined;
  const decision = guard.check(call);
  return { item, id, name: call.name, args: call.args, prompt: decision.prompt, decision };
}

/**
 * Gives a person's answer about one paused call to the guard and to the SDK's run state,
 * so that both agree. An approval is re-checked against the state of this moment: if the
 * guard now refuses, the SDK rejects the call with the guard's text for the model. A
 * denial rejects it with text that tells the model not to retry. Approvals are per call
 * (never `alwaysApprove`): each later call is checked on its own. Undefined (and the
 * state unchanged) for a call the guard never checked.
 *
 * @example
 * const state = await RunState.fromString(agent, saved.state);
 * for (const item of state.getInterruptions()) answerInterruption(state, guard, item, await askUser(item));
 * const result = await run(agent, state);
 */
export function answerInterruption<TItem extends ApprovalItemLike>(
  state: RunStateLike<TItem>,
  guard: Guard,
  item: TItem,
  approved: boolean,
): GuardDecision | undefined {
  const request = requestFor(guard, item);
  if (request === undefined) return undefined;
  const decision = guard.approve(request.id, approved === true);
  if (approved === true && decision.action === 'run') state.approve(item);
  else
    state.reject(item, {
      message:
        decision.action === 'refuse'
          ? decision.message
          : renderRefusal({ code: 'user-declined', feedback: decision.verdict.feedback }),
    });
  return decision;
}

/**
 * Answers every interruption of a paused run that the guard knows: the person is asked
 * (`ask` receives the guard's prompt) only about calls the guard still holds for
 * approval; calls it has since decided are approved or rejected as it decided.
 * Interruptions of tools the guard does not cover are returned in `unresolved`.
 * Then resume with `run(agent, state)`.
 *
 * @example
 * let result = await run(agent, 'Transfer $500 to Alice if my balance exceeds $1000.');
 * while (result.interruptions.length > 0) {
 *   await resolveInterruptions(result.state, guard, (request) => confirm(request.prompt));
 *   result = await run(agent, result.state);
 * }
 */
export async function resolveInterruptions<TItem extends ApprovalItemLike>(
  state: RunStateLike<TItem>,
  guard: Guard,
  ask: (request: ApprovalRequest<TItem>) => boolean | Promise<boolean>,
): Promise<ResolvedInterruptions<TItem>> {
  const approved: string[] = [];
  const rejected: string[] = [];
  const unresolved: TItem[] = [];
  for (const item of state.getInterruptions()) {
    const request = requestFor(guard, item);
    if (request === undefined) {
      unresolved.push(item);
      continue;
    }
    const answer =
      request.decision.action === 'ask'
        ? (await ask(request)) === true
        : request.decision.action === 'run';
    const decision = answerInterruption(state, guard, item, answer);
    if (answer && decision?.action === 'run') approved.push(request.id);
    else rejected.push(request.id);
  }
  return { approved, rejected, unresolved };
}
