/** A decision as the page publishes it: on `window.intentguard`, as an event, on the element. */
import type { Decision, Severity } from '../../engine/verdict.js';
import type { GuardDecision, ToolCall } from '../../guard/types.js';
import type { BackendDecision } from './backend.js';
import type { PageContext, Trigger } from './context.js';
import type { TriggerKind } from './options.js';
import type { PublishedVerdict, VerdictStatus } from './publish.js';

function statusOf(decision: GuardDecision, approval?: boolean): VerdictStatus {
  if (approval !== undefined) return decision.action === 'run' ? 'approved' : 'denied';
  return decision.action === 'run' ? 'allowed' : decision.action === 'ask' ? 'asking' : 'blocked';
}

export function announce(
  page: PageContext,
  result: BackendDecision,
  call: ToolCall | undefined,
  trigger: Trigger | undefined,
  kind: TriggerKind | 'finish',
  element: Element | undefined,
  approval?: boolean,
): PublishedVerdict {
  const { decision, failure } = result;
  const verdict = decision.verdict;
  const published: PublishedVerdict = {
    id: decision.id,
    kind: kind === 'finish' ? 'finish' : 'action',
    trigger: kind,
    action: call?.name ?? 'finish',
    ...(trigger?.options.label !== undefined ? { label: trigger.options.label } : {}),
    status: statusOf(decision, approval),
    decision: verdict.decision as Decision,
    ...(verdict.severity !== undefined ? { severity: verdict.severity as Severity } : {}),
    codes: verdict.reasons.map((reason) => reason.code),
    message: decision.message,
    feedback: verdict.feedback,
    roadmap: verdict.roadmap ?? '',
    prompt: decision.prompt,
    done: verdict.done,
    ...(failure !== undefined ? { failure } : {}),
    ...(call?.updates !== undefined ? { updates: call.updates } : {}),
    ...(call?.args !== undefined ? { args: call.args } : {}),
  };
  page.publisher.publish(published, element);
  return published;
}
