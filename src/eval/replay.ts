import { createSession, type Verdict } from '../engine/index.js';
import { sessionTarget } from '../engine/replay.js';
import type { Spec } from '../language/index.js';
import type { EvalCase, StepVerdict } from './types.js';

/**
 * Replays a case's recorded run through a session of `spec`, the way a guard in front
 * of the agent would have seen it, and returns the verdict of every proposal.
 *
 * - A confirmation is answered "approved": the recorded run went on, so the person
 *   said yes (the confirmation still counts as an intervention when scored, unless the
 *   step says the person had approved it already: `approvedByUser`).
 * - A refused call did not run as far as the guard knows: its result is not observed
 *   and nothing of it is committed. From then on the recorded run is not what a
 *   guarded run would have been, so later verdicts are indicative only; scoring rests
 *   on the first intervention.
 * - A failed call (an error result) is rolled back, as the guard does.
 * - With `options.policy` (checked with `checkPolicy`), every proposal is judged by the
 *   spec and the policy together (LANGUAGE.md §8): the stricter decision is the verdict.
 */
export function replayCase(
  evalCase: EvalCase,
  spec: Spec,
  options: { readonly policy?: Spec } = {},
): StepVerdict[] {
  const session = createSession(spec, {
    now: evalCase.now,
    timeZone: evalCase.timeZone,
    rollback: true,
    ...(options.policy !== undefined ? { policy: options.policy } : {}),
  });
  // The case's steps as trace lines, through the engine's replay (call ids name commits).
  const target = sessionTarget(session);
  const notRun = new Set<string>();
  const verdicts: StepVerdict[] = [];
  for (const [index, step] of evalCase.steps.entries()) {
    if (step.kind === 'propose') {
      const id = step.id;
      const { verdict } = target.propose({ propose: step.proposal, ...(id ? { id } : {}) });
      let ran = verdict.decision === 'allow';
      if (verdict.decision === 'confirm')
        ran = target.resolve({ resolve: { approved: true }, ...(id ? { id } : {}) }).result
          .committed;
      if (id !== undefined && !ran) notRun.add(id);
      verdicts.push(stepVerdict(index, step, verdict));
    } else if (step.kind === 'observe') {
      if (step.id !== undefined && notRun.has(step.id)) continue;
      target.observe({ observe: step.observation });
    } else target.fail({ fail: { id: step.id } });
  }
  return verdicts;
}

function stepVerdict(
  index: number,
  step: Extract<EvalCase['steps'][number], { kind: 'propose' }>,
  verdict: Verdict,
): StepVerdict {
  const reason = verdict.reasons[0];
  return {
    step: index,
    name: step.name,
    source: step.source,
    ...(step.label !== undefined ? { label: step.label } : {}),
    decision: verdict.decision,
    ...(verdict.severity !== undefined ? { severity: verdict.severity } : {}),
    ...(reason !== undefined ? { code: reason.code } : {}),
    reason: reason?.message ?? (verdict.decision === 'allow' ? '' : verdict.feedback),
    ...(verdict.decision === 'confirm' && step.approvedByUser === true
      ? { approvedByUser: true as const }
      : {}),
  };
}
