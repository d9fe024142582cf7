import { requirePart } from '../engine-parts.js';
import { type EvaluationContext, explainRule, ruleFires } from '../evaluation.js';
import { prematureFinish, unmetReason } from '../feedback.js';
import type { NormalizedProposal } from '../proposal.js';
import { singleKey } from '../state.js';
import { textValue } from '../values.js';
import type { Verdict } from '../verdict.js';
import { type CommitPlan, type DecisionHost, noRules, type Recheck } from './decision.js';

/** Ways to finish listed in premature-finish feedback. */
const maxFinishBranches = 5;

/**
 * Step 1: a finish is allowed when Done holds (with the answer, when a Done rule reads
 * it); otherwise it is refused with every way to finish and what each still lacks.
 */
export function decideFinish(
  host: DecisionHost,
  proposal: NormalizedProposal,
  recheck: Recheck | undefined,
): Verdict {
  const plan: CommitPlan = { updates: [], rules: [], finish: true };
  // v2: whatever the rules say, an answer that shows calls never made is refused.
  if (proposal.answer !== undefined) {
    const reason = requirePart(host.settings.parts, 'answerCheck')(
      proposal.answer,
      host.compiled,
      host.committedCalls,
      host.clock,
      host.settings.limits.maxEchoLength,
    );
    if (reason !== undefined)
      return host.hardRefusal(proposal, recheck, [reason], [], plan, reason.message);
  }
  const answered = answerContext(host, proposal.answer);
  if (answered ? doneWithAnswer(host, answered) : host.done()) {
    host.commit(plan);
    return host.verdict('allow', undefined, [], [], 'The task is done.');
  }
  const roadmap = host.roadmap();
  const context = answered ?? host.currentContext();
  // Every way to finish is shown with what it still lacks: the closest branch alone
  // could be the "do nothing" branch and would mislead the agent.
  const branches = host.compiled.doneRules.slice(0, maxFinishBranches).map((rule) => ({
    rule,
    reasons: explainRule(rule, context).map((unmet) =>
      unmetReason(
        host.compiled,
        rule,
        unmet,
        host.clock,
        () => false,
        host.settings.limits.maxEchoLength,
      ),
    ),
  }));
  const { reasons, feedback } = prematureFinish(branches);
  return host.hardRefusal(proposal, recheck, reasons, [], plan, feedback, roadmap);
}

/**
 * The current state with the built-in `Answer(text)` holding the answer (LANGUAGE.md
 * §7), when a Done rule reads it; undefined otherwise.
 */
function answerContext(
  host: DecisionHost,
  answer: string | undefined,
): EvaluationContext | undefined {
  const predicate = host.compiled.answer;
  if (answer === undefined || !predicate) return undefined;
  const view = host.overlay([
    { predicate, operation: 'set', key: singleKey, assignments: [[0, textValue(answer)]] },
  ]);
  return { view, action: undefined, achieved: host.achieved, clock: host.clock };
}

/** Done with the answer given: the Done rules reading Answer are judged with it. */
function doneWithAnswer(host: DecisionHost, context: EvaluationContext): boolean {
  if (!host.intact()) return false;
  const { compiled } = host;
  const readers = compiled.doneRulesByPredicate[compiled.answer!.index] ?? noRules;
  for (const rule of compiled.doneRules) {
    if (readers.includes(rule) ? ruleFires(rule, context) : host.doneHolding.has(rule)) return true;
  }
  return false;
}
