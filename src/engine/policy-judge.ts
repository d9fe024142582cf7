import { argumentError, specProblem } from '../language/arguments.js';
import type { Spec } from '../language/index.js';
import { BoundedMemo } from './bounded-memo.js';
import type { SessionClock } from './clock.js';
import type { CompiledRule, CompiledSpec } from './compiled-spec.js';
import type { EvaluationContext, ProposedAction } from './evaluation.js';
import { guardReason, ruleConfirmReason } from './feedback.js';
import type { NormalizedProposal } from './proposal.js';
import {
  countAchieved,
  countPerformance,
  countPerValue,
  hasBudget,
  type RuleCounts,
} from './rule-budget.js';
import { matchingGuard } from './session/decide-guards.js';
import { actionRulesOf, decidingRules } from './session/decide-performed.js';
import { type DecisionHost, headsOf, isVerdict, noRules } from './session/decision.js';
import type { SessionSettings } from './session-settings.js';
import type { StateView } from './state.js';
import type { Decision, Reason, Severity } from './verdict.js';

/**
 * What the policy says of one proposal (LANGUAGE.md §8): its decision, its reasons (each
 * with `source: "policy"`), and the permissions that decide it — counted on commit.
 */
export interface PolicyJudgment {
  readonly decision: Decision;
  readonly severity?: Severity;
  readonly reasons: readonly Reason[];
  readonly feedback: string;
  /** The policy rules the proposal performs when it commits (one per source rule). */
  readonly rules: readonly CompiledRule[];
  /** The policy refused the action (a reject guard or `policy-violation`): `refused A(…)` records it. */
  readonly refusesAction: boolean;
}

const allowed: PolicyJudgment = Object.freeze({
  decision: 'allow',
  reasons: Object.freeze([]) as readonly Reason[],
  feedback: '',
  rules: noRules,
  refusesAction: false,
});

/** What one commit counted for the policy, to take back when the call it allowed fails. */
interface PolicyUndo {
  readonly rules: readonly CompiledRule[];
  readonly action: ProposedAction | undefined;
}

/**
 * The policy's half of a composed session (LANGUAGE.md §8): its guards and its
 * permissions judge every proposal against the one state the session holds, and it
 * counts its own objectives. It decides nothing about finish, unplanned actions, soft
 * deviations, ask or escalation — those stay the intent's. Pure until `count`.
 */
export class PolicyJudge {
  readonly #compiled: CompiledSpec;
  readonly #clock: SessionClock;
  readonly #settings: SessionSettings;
  readonly #achieved = new Map<string, number>();
  readonly #performances = new Map<number, number>();
  readonly #perValue = new Map<number, Map<string, number>>();
  /** The counts above, as the shared budget steps read them (rule-budget.ts). */
  readonly #counts: RuleCounts = {
    achieved: this.#achieved,
    performances: this.#performances,
    perValue: this.#perValue,
  };
  readonly #undo = new Map<number, PolicyUndo>();
  readonly #host: DecisionHost;

  constructor(
    compiled: CompiledSpec,
    intent: CompiledSpec,
    clock: SessionClock,
    settings: SessionSettings,
    store: StateView,
  ) {
    this.#compiled = compiled;
    this.#clock = clock;
    this.#settings = settings;
    assertSameSchema(compiled, intent);
    this.#host = this.#judgeHost(store);
  }

  get compiled(): CompiledSpec {
    return this.#compiled;
  }

  /** The policy's objectives with their counts. */
  get achieved(): ReadonlyMap<string, number> {
    return this.#achieved;
  }

  /**
   * Judges a proposal read by the intent's session: its action and updates are read as
   * the policy's (the same schema, so the same predicates by index), its declared
   * objective is the intent's and plays no part. `view` is the tentative state.
   */
  judge(proposal: NormalizedProposal, view: StateView): PolicyJudgment {
    const own = this.#translate(proposal);
    const host = this.#host;
    const guard = matchingGuard(host, own.action, own.updates, view);
    if (guard?.source.mode === 'reject') {
      const reason = policyReason(guardReason(guard, this.#clock));
      return {
        decision: 'reject',
        reasons: [reason],
        feedback: reason.message,
        rules: noRules,
        refusesAction: own.action !== undefined,
      };
    }
    const action = own.action;
    const governing = action ? actionRulesOf(this.#compiled, action) : noRules;
    let deciding: readonly CompiledRule[] = noRules;
    if (governing.length > 0) {
      const context: EvaluationContext = {
        view,
        action,
        achieved: this.#achieved,
        clock: this.#clock,
      };
      const decided = decidingRules(host, own, undefined, governing, context);
      if (isVerdict(decided)) {
        const reasons = decided.reasons.map(violation);
        return {
          decision: 'revise',
          severity: 'hard',
          reasons,
          feedback: [
            `The operator's policy does not permit this ${action!.predicate.name} call:`,
            ...reasons.map((reason) => `- ${reason.message}`),
          ].join('\n'),
          rules: noRules,
          refusesAction: true,
        };
      }
      deciding = decided;
    }
    const confirming = deciding.filter((rule) => rule.source.confirm !== undefined);
    if (confirming.length === 0 && guard === undefined)
      return deciding.length === 0 ? allowed : { ...allowed, rules: deciding };
    const { maxEchoLength } = this.#settings.limits;
    const reasons = [
      ...confirming.map((rule) => policyReason(ruleConfirmReason(rule))),
      ...(guard ? [policyReason(guardReason(guard, this.#clock, action, maxEchoLength))] : []),
    ];
    return {
      decision: 'confirm',
      reasons,
      feedback: reasons.map((reason) => reason.message).join('\n'),
      rules: deciding,
      refusesAction: false,
    };
  }

  /** The heads of the policy rules a judgment performs. */
  performs(judgment: PolicyJudgment): readonly string[] {
    return headsOf(judgment.rules);
  }

  /**
   * Counts the permissions a committed proposal performed (`change` -1 takes them back).
   * With `commit`, keeps them for `rollback(commit)`.
   */
  count(
    rules: readonly CompiledRule[],
    action: ProposedAction | undefined,
    change: 1 | -1,
    commit?: number,
  ): void {
    const own = action ? this.#translateAction(action) : undefined;
    for (const rule of rules) {
      if (rule.per && own) countPerValue(this.#perValue, this.#settings.parts, rule, own, change);
      countPerformance(this.#performances, rule, change);
      countAchieved(this.#achieved, rule.head, change);
    }
    if (commit !== undefined && rules.length > 0) {
      this.#undo.set(commit, { rules, action });
      if (this.#undo.size > this.#settings.limits.maxHistory) {
        const oldest = this.#undo.keys().next();
        if (!oldest.done) this.#undo.delete(oldest.value);
      }
    }
  }

  /** Takes back what commit `commit` counted, when its call failed. */
  rollback(commit: number): void {
    const undo = this.#undo.get(commit);
    if (!undo) return;
    this.#undo.delete(commit);
    this.count(undo.rules, undo.action, -1);
  }

  #translateAction(action: ProposedAction): ProposedAction {
    const predicate = this.#compiled.predicateList[action.predicate.index];
    return predicate === action.predicate || !predicate
      ? action
      : { predicate, values: action.values };
  }

  #translate(proposal: NormalizedProposal): NormalizedProposal {
    const list = this.#compiled.predicateList;
    return {
      action: proposal.action ? this.#translateAction(proposal.action) : undefined,
      updates:
        proposal.updates.length === 0
          ? proposal.updates
          : proposal.updates.map((update) => ({
              ...update,
              predicate: list[update.predicate.index] ?? update.predicate,
            })),
      // The objective a proposal declares is the intent's (LANGUAGE.md §8): no permission is narrowed by it.
      objective: undefined,
      finish: false,
      label: proposal.label,
    };
  }

  /**
   * What the shared steps of the decision procedure (guards, the rule-level check) read
   * of the policy. A refusal is only data here: the policy never escalates, never asks
   * and never commits by itself — the composed session does.
   */
  #judgeHost(store: StateView): DecisionHost {
    const never = (what: string) => () => {
      throw new Error(`internal: the policy's judge does not ${what}`);
    };
    const verdict: DecisionHost['verdict'] = (
      decision,
      severity,
      reasons,
      performed,
      feedback,
      roadmap,
    ) => ({
      decision,
      ...(severity ? { severity } : {}),
      reasons,
      performs: headsOf(performed),
      achieved: {},
      done: false,
      feedback,
      ...(roadmap !== undefined ? { roadmap } : {}),
    });
    return {
      compiled: this.#compiled,
      clock: this.#clock,
      settings: this.#settings,
      achieved: this.#achieved,
      store,
      doneHolding: new Set(),
      committedCalls: [],
      softRefused: new BoundedMemo(1, 1),
      intact: () => true,
      done: () => false,
      roadmap: () => '',
      currentContext: () => ({
        view: store,
        action: undefined,
        achieved: this.#achieved,
        clock: this.#clock,
      }),
      overlay: never('lay updates over the state'),
      hasBudget: (rule, action) => hasBudget(this.#counts, this.#settings.parts, rule, action),
      verdict,
      hardRefusal: (_proposal, _recheck, reasons, performed, _plan, feedback, roadmap) =>
        verdict('revise', 'hard', reasons, performed, feedback, roadmap),
      commit: never('commit'),
      awaitApproval: never('ask for approval'),
      endAsked: never('end the session'),
      amendApproval: never('ask for approval'),
    };
  }
}

/** A reason of the policy: marked with its source, and said as the policy's. */
export function policyReason(reason: Reason): Reason {
  return {
    ...reason,
    message: reason.message.replace(/^The spec /, 'The policy '),
    source: 'policy',
  };
}

/**
 * A permission's refusal (`unmet-conditions`, `already-achieved`) as `policy-violation`
 * (LANGUAGE.md §8), keeping what the closest permission lacks.
 */
function violation(reason: Reason): Reason {
  return policyReason({ ...reason, code: 'policy-violation' });
}

/**
 * The policy reads the intent's state by predicate index: both must be compiled over one
 * schema, so that every predicate has the same index in both.
 */
function assertSameSchema(policy: CompiledSpec, intent: CompiledSpec): void {
  const mismatch = [...policy.predicates.values()].find(
    (predicate) => intent.predicateList[predicate.index]?.declaration !== predicate.declaration,
  );
  if (mismatch || policy.predicates.size !== intent.predicates.size)
    throw new TypeError(
      "createSession: 'options.policy' must be checked against the intent's schema (the same Schema object)",
    );
}

/** A checked policy: a spec whose role is `policy` (from `checkPolicy`). */
export function assertPolicy(policy: unknown): asserts policy is Spec {
  const problem = specProblem(policy, 'options.policy');
  if (problem) throw argumentError('createSession', problem);
  if ((policy as Spec).role !== 'policy')
    throw new TypeError(
      "createSession: 'options.policy' must be a checked policy (from checkPolicy), not an intent",
    );
}
