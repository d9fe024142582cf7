import type { CompiledPredicate } from '../compiled-spec.js';
import type { PolicyJudge, PolicyJudgment } from '../policy-judge.js';
import type { NormalizedProposal } from '../proposal.js';
import type { StateUpdate } from '../state.js';
import { valueKey } from '../values.js';
import type { Reason, Verdict } from '../verdict.js';
import { decide } from './decide.js';
import { type CommitPlan, type DecisionHost, noRules, type Recheck, setCount } from './decision.js';

/** How strict a decision is (LANGUAGE.md §8): reject > revise hard > revise soft > confirm > allow. */
function strictness(verdict: Pick<Verdict, 'decision' | 'severity'>): number {
  switch (verdict.decision) {
    case 'reject':
      return 4;
    case 'revise':
      return verdict.severity === 'soft' ? 2 : 3;
    case 'confirm':
      return 1;
    default:
      return 0;
  }
}

/** What the intent's decision procedure would have committed or kept for approval. */
interface Held {
  plan: CommitPlan | undefined;
}

/**
 * One state, two judges (LANGUAGE.md §8): the intent decides a proposal by §6 and the
 * policy by its guards and permissions; the stricter decision wins, and the proposal
 * commits once, when the composed decision allows it. The intent's steps run unchanged
 * over a host that holds back what they would commit or keep for approval; this layer
 * then commits, asks or refuses for both. Finish, ask, unplanned actions, soft deviations
 * and escalation are the intent's alone.
 */
export function decideComposed(
  host: DecisionHost,
  policy: PolicyJudge,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
): Verdict {
  // A policy cannot forbid finishing, nor asking (LANGUAGE.md §8).
  if (proposal.finish || proposal.ask !== undefined)
    return markIntent(decide(host, proposal, recheck));
  const view = proposal.updates.length > 0 ? host.overlay(proposal.updates) : host.store;
  const judgment = policy.judge(proposal, view);
  const { holding, held } = holdingHostOf(host);
  held.plan = undefined;
  const intent = decide(holding, proposal, recheck);
  const policyRank = strictness(judgment);
  const intentRank = strictness(intent);
  if (Math.max(policyRank, intentRank) >= 2) {
    // Refused: nothing commits, and no approval the intent's escalation kept stands.
    host.amendApproval(() => undefined);
    if (judgment.refusesAction) recordRefusal(host, proposal);
    return composedRefusal(host, policy, intent, judgment, policyRank >= intentRank);
  }
  const plan: CommitPlan = {
    ...(held.plan ?? {
      updates: proposal.updates,
      rules: [],
      finish: false,
      action: proposal.action,
    }),
    policyRules: judgment.rules,
  };
  if (policyRank === 0 && intentRank === 0) {
    host.commit(plan, true);
    return composedVerdict(host, policy, intent, judgment, 'allow', [], 'Allowed.');
  }
  // Someone asks. At a re-check the approval was given for both: it commits.
  if (recheck) {
    host.commit(plan, true);
    return composedVerdict(host, policy, intent, judgment, 'allow', [], 'Allowed.');
  }
  if (intent.decision === 'confirm' && held.plan === undefined)
    // The intent's escalation kept its own plan for approval: the policy's permissions join it.
    host.amendApproval((kept) => ({ ...kept, policyRules: judgment.rules }));
  else host.awaitApproval(plan, proposal);
  const reasons = [...markAll(intent.reasons, 'intent'), ...judgment.reasons];
  return composedVerdict(
    host,
    policy,
    intent,
    judgment,
    'confirm',
    reasons,
    joinParts(
      intent.decision === 'confirm' ? intent.feedback : undefined,
      judgment.decision === 'confirm'
        ? `The operator's policy asks the user to approve this:\n${judgment.feedback}`
        : undefined,
    ),
  );
}

const holdingHosts = new WeakMap<DecisionHost, { holding: DecisionHost; held: Held }>();

/** The holding host of a session's host, made once (a proposal allocates none). */
function holdingHostOf(host: DecisionHost): { holding: DecisionHost; held: Held } {
  let entry = holdingHosts.get(host);
  if (!entry) {
    const held: Held = { plan: undefined };
    entry = { holding: holdingHost(host, held), held };
    holdingHosts.set(host, entry);
  }
  return entry;
}

/**
 * A host over the session's own that holds back the intent's commit and its request for
 * approval (`held`), so that nothing happens before the policy has its say.
 */
function holdingHost(host: DecisionHost, held: Held): DecisionHost {
  return {
    ...host,
    commit: (plan) => {
      held.plan = plan;
    },
    awaitApproval: (plan) => {
      held.plan = plan;
    },
  };
}

/** A refusal: the stricter side's decision, with both sides' reasons and feedback. */
function composedRefusal(
  host: DecisionHost,
  policy: PolicyJudge,
  intent: Verdict,
  judgment: PolicyJudgment,
  policyFirst: boolean,
): Verdict {
  const winner = policyFirst ? judgment : intent;
  const intentReasons = strictness(intent) >= 2 ? markAll(intent.reasons, 'intent') : [];
  const policyReasons = strictness(judgment) >= 2 ? judgment.reasons : [];
  const reasons = policyFirst
    ? [...policyReasons, ...intentReasons]
    : [...intentReasons, ...policyReasons];
  const intentFeedback = intentReasons.length > 0 ? intent.feedback : undefined;
  const policyFeedback = policyReasons.length > 0 ? judgment.feedback : undefined;
  const feedback = policyFirst
    ? joinParts(policyFeedback, intentFeedback)
    : joinParts(intentFeedback, policyFeedback);
  const roadmap =
    winner.decision === 'revise' && winner.severity === 'hard'
      ? joinParts(
          policyReasons.length > 0
            ? `The operator's policy refuses this call; only what it permits can run.`
            : undefined,
          intent.roadmap ?? host.roadmap(),
        )
      : undefined;
  // Nothing commits: the policy's permissions are not performed, so the verdict names none.
  return composedVerdict(
    host,
    policy,
    intent,
    { ...judgment, rules: [] },
    winner.decision,
    reasons,
    feedback,
    winner.decision === 'revise' ? (winner.severity ?? 'hard') : undefined,
    roadmap,
  );
}

/** The verdict of both judges, as the session states it after its commit (if any). */
function composedVerdict(
  host: DecisionHost,
  policy: PolicyJudge,
  intent: Verdict,
  judgment: PolicyJudgment,
  decision: Verdict['decision'],
  reasons: readonly Reason[],
  feedback: string,
  severity?: Verdict['severity'],
  roadmap?: string,
): Verdict {
  const base = host.verdict(decision, severity, reasons, [], feedback, roadmap);
  const own = policy.performs(judgment);
  if (intent.performs.length === 0 && own.length === 0) return base;
  const achieved: Record<string, number> = {};
  for (const head of intent.performs) setCount(achieved, head, host.achieved.get(head) ?? 0);
  for (const head of own) setCount(achieved, head, policy.achieved.get(head) ?? 0);
  return { ...base, performs: [...intent.performs, ...own], achieved };
}

function markAll(reasons: readonly Reason[], source: 'intent' | 'policy'): Reason[] {
  return reasons.map((reason) => (reason.source ? reason : { ...reason, source }));
}

/** The intent's verdict of a finish or an ask, its reasons marked as the intent's. */
function markIntent(verdict: Verdict): Verdict {
  return verdict.reasons.length === 0
    ? verdict
    : { ...verdict, reasons: markAll(verdict.reasons, 'intent') };
}

function joinParts(...parts: readonly (string | undefined)[]): string {
  return parts.filter((part): part is string => part !== undefined && part !== '').join('\n\n');
}

/**
 * `refused A(…)` (LANGUAGE.md §8): the policy refused a proposal of action A, kept as an
 * instance of the built-in state the intent reads — when some rule of the intent reads it.
 */
function recordRefusal(host: DecisionHost, proposal: NormalizedProposal): void {
  const action = proposal.action;
  if (!action) return;
  const predicate = host.compiled.refused.get(action.predicate.name);
  if (!predicate) return;
  const values = action.values;
  // Every distinct call once; an argument not given is part of the key (`∅`), unlike a state's key.
  const key = values.map(valueKey).join('\u0000');
  const { maxInstances } = host.settings.limits;
  // Bounded like any state: past the limit a refusal is not kept, so `refused` holds less — never more.
  if (
    host.store.instance(predicate, key) === undefined &&
    countInstances(host, predicate) >= maxInstances
  )
    return;
  const update: StateUpdate = {
    predicate,
    operation: 'set',
    key,
    assignments: values.map((value, index) => [index, value] as const),
  };
  host.commit({ updates: [update], rules: noRules, finish: false });
}

function countInstances(host: DecisionHost, predicate: CompiledPredicate): number {
  let count = 0;
  host.store.someInstance(predicate, () => ++count < 0);
  return count;
}

/**
 * At the approval of an escalated proposal (the intent's refusal overruled by a person):
 * the policy judges it again in full, since no one's approval overrules the operator.
 * Its refusal, or undefined when it permits.
 */
export function policyRecheck(
  host: DecisionHost,
  policy: PolicyJudge,
  proposal: NormalizedProposal,
): Verdict | undefined {
  const view = proposal.updates.length > 0 ? host.overlay(proposal.updates) : host.store;
  const judgment = policy.judge(proposal, view);
  if (strictness(judgment) < 2) return undefined;
  if (judgment.refusesAction) recordRefusal(host, proposal);
  return host.verdict(
    judgment.decision,
    judgment.severity,
    judgment.reasons,
    [],
    judgment.feedback,
  );
}
