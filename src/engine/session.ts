import { argumentError, specProblem } from '../language/arguments.js';
import type { Spec } from '../language/index.js';
import { answerCheck } from './answer-check.js';
import { BoundedMemo } from './bounded-memo.js';
import { createClock, type SessionClock } from './clock.js';
import {
  type CompiledGuard,
  type CompiledPredicate,
  type CompiledRule,
  type CompiledSpec,
  compileSpec,
} from './compiled-spec.js';
import { perValueReadings } from './deny-list-reading.js';
import {
  actionMatches,
  closestRule,
  type EvaluationContext,
  explainRule,
  type ProposedAction,
  ruleFires,
} from './evaluation.js';
import type { CommittedCall } from './fabricated-action.js';
import { errorMessage, internalErrorVerdict } from './fail-closed.js';
import {
  alreadyAchievedReason,
  brokenDoneReason,
  guardReason,
  invalidProposalReasons,
  repeatedViolationReason,
  ruleConfirmReason,
  softDeviationReason,
  softFeedbackTail,
  unmetFeedback,
  unmetReason,
  unplannedReason,
} from './feedback.js';
import { appendBounded } from './history.js';
import type { IntentSession } from './intent-session.js';
import { NoSpecSession } from './no-spec-session.js';
import { keptSize } from './plain-data.js';
import {
  type NormalizedProposal,
  type ProposalProblem,
  proposalFingerprint,
  proposalLabel,
  readObservation,
  readProposal,
} from './proposal.js';
import { renderRoadmap, ruleDescriber } from './roadmap.js';
import { type SessionSettings, sessionSettings } from './session-settings.js';
import type {
  HistoryEntry,
  ObservationResult,
  ResolutionResult,
  SessionOptions,
  SessionStatus,
} from './session-types.js';
import { defaultSimilarity, type SimilarityFunction } from './similarity.js';
import {
  type Instance,
  Overlay,
  StateStore,
  type StateUpdate,
  type StateView,
  singleKey,
} from './state.js';
import { formatValue, isTextValue, textValue, type Value, valueKey } from './values.js';
import {
  type Decision,
  type Reason,
  type Severity,
  sessionFinishedReason,
  type Verdict,
} from './verdict.js';

export type { HistoryEntry, ObservationResult, ResolutionResult, SessionOptions, SessionStatus };
export { internalErrorVerdict, NoSpecSession };

/** What a proposal commits when it is allowed, or approved after `confirm`. */
interface CommitPlan {
  readonly updates: readonly StateUpdate[];
  readonly rules: readonly CompiledRule[];
  /** The proposal's action: what `@repeat(per: arg)` budgets count by. */
  readonly action?: ProposedAction | undefined;
  readonly finish: boolean;
  /** Set when the plan comes from an escalation, to reset its refusal count on approval. */
  readonly escalated?: string;
}

/** A `confirm` waiting for `resolve`: what approval commits, and what to re-check first. */
interface PendingApproval {
  readonly plan: CommitPlan;
  readonly proposal: NormalizedProposal;
  /** The commit count when the approval was asked; an observation since means a re-check. */
  readonly version: number;
}

interface Refusals {
  count: number;
  reasons: readonly Reason[];
}

/** What one committed proposal changed, to undo it if the tool call it allowed fails. */
interface UndoRecord {
  readonly updates: readonly {
    readonly predicate: CompiledPredicate;
    readonly key: string;
    readonly before: Instance | undefined;
    readonly after: Instance | undefined;
  }[];
  readonly rules: readonly CompiledRule[];
  readonly action: ProposedAction | undefined;
}

/** Set while an approved proposal is re-checked at `resolve`: no memo changes, and approval commits. */
interface Recheck {
  readonly approved: true;
}

const allowFeedback = 'Allowed.';
/** Ways to finish listed in premature-finish feedback. */
const maxFinishBranches = 5;

const compiledCache = new WeakMap<Spec, Map<string, CompiledSpec>>();

/** Compiled specs are shared by every session over the same spec and similarity settings. */
function compiledFor(spec: Spec, similarity: SimilarityFunction, threshold: number): CompiledSpec {
  let bySettings = compiledCache.get(spec);
  if (!bySettings) {
    bySettings = new Map();
    compiledCache.set(spec, bySettings);
  }
  // Custom similarity functions are not cached by identity across sessions: they may be stateful.
  if (similarity !== defaultSimilarity) return compileSpec(spec, { similarity, threshold });
  const key = String(threshold);
  let compiled = bySettings.get(key);
  if (!compiled) {
    compiled = compileSpec(spec, { similarity, threshold });
    bySettings.set(key, compiled);
  }
  return compiled;
}

/**
 * One guarded agent run over one spec: it decides each proposal before it runs
 * (LANGUAGE.md §6), takes observations, and waits for the user when it asks.
 * Synchronous, deterministic for a given clock, and fail-closed: an internal error
 * is a `reject`, never an `allow`.
 *
 * @example
 * const session = createSession(spec, { now: '2025-03-14T12:00' });
 * const verdict = session.propose({ action: { name: 'BankCheckBalance', args: {} } });
 * if (verdict.decision === 'allow') runTool();
 */
export class Session implements IntentSession {
  readonly #compiled: CompiledSpec;
  readonly #clock: SessionClock;
  readonly #store = new StateStore();
  readonly #achieved = new Map<string, number>();
  /**
   * How often each rule has been performed, by its budget (`rule.budget`: the alternatives
   * of one rule share it, E5); sparse, so sessions stay small on large specs.
   */
  readonly #performances = new Map<number, number>();
  /** `@repeat(per: arg)` rules (by budget): performances per value of the argument. */
  readonly #perValue = new Map<number, Map<string, number>>();
  readonly #doneHolding = new Set<CompiledRule>();
  readonly #softRefused: BoundedMemo<true>;
  readonly #hardRefusals: BoundedMemo<Refusals>;
  readonly #history: HistoryEntry[] = [];
  readonly #settings: SessionSettings;
  readonly #describe: (rule: CompiledRule) => string;
  #pending: PendingApproval | undefined;
  /**
   * Why the state is no longer known, if it is not: a commit failed half-way (updates
   * applied while Done was not re-evaluated), or an observation could not be kept. The
   * session fails closed from then on.
   */
  #broken: string | undefined;
  /** Characters of observations taken in (`limits.maxObservedText`). */
  #observedText = 0;
  #finished = false;
  /** Set when the session ended by a question to the user (`ask`), not by a finish. */
  #asked = false;
  /** Calls committed (allowed or approved), for the fabricated-action check; bounded. */
  readonly #committedCalls: CommittedCall[] = [];
  /** Counts commits, so that what depends only on committed state can be cached. */
  #version = 0;
  #roadmapCache: { readonly version: number; readonly text: string } | undefined;
  #context: EvaluationContext | undefined;
  #proposals = 0;
  /** Undo records by commit number, when rollback is on; the oldest are dropped past maxHistory. */
  readonly #undo: Map<number, UndoRecord> | undefined;
  /** The commit of the latest proposal or approval, if it committed. */
  #lastCommit: number | undefined;

  constructor(spec: Spec, options: SessionOptions = {}) {
    assertSpec(spec);
    const settings = sessionSettings(options);
    this.#settings = settings;
    this.#clock = createClock(options.now, settings.timeZone);
    this.#compiled = compiledFor(spec, settings.similarity, settings.threshold);
    const { maxRefusalMemo, maxRefusalMemoCharacters } = settings.limits;
    this.#softRefused = new BoundedMemo(maxRefusalMemo, maxRefusalMemoCharacters);
    this.#hardRefusals = new BoundedMemo(maxRefusalMemo, maxRefusalMemoCharacters);
    this.#describe = ruleDescriber(this.#clock);
    this.#undo = settings.rollback ? new Map() : undefined;
    for (const rule of this.#compiled.doneRules) this.#refreshDone(rule);
  }

  get spec(): Spec {
    return this.#compiled.spec;
  }

  get clock(): SessionClock {
    return this.#clock;
  }

  get history(): readonly HistoryEntry[] {
    return this.#history;
  }

  #record(entry: HistoryEntry): void {
    appendBounded(this.#history, entry, this.#settings.historyLimit);
  }

  /** Decides a proposal. Never throws: an internal error becomes a `reject`. */
  propose(input: unknown): Verdict {
    this.#lastCommit = undefined;
    let verdict: Verdict;
    try {
      verdict = this.#propose(input);
    } catch (error) {
      this.#pending = undefined;
      verdict = internalErrorVerdict(error);
    }
    this.#proposals++;
    this.#record({
      kind: 'propose',
      label: proposalLabel(input, this.#settings.limits),
      verdict,
    });
    return verdict;
  }

  /** Applies a post-action observation (a tool result, an app callback). All or nothing. */
  observe(input: unknown): ObservationResult {
    try {
      this.#assertIntact();
      // Counted before it is read: a guard's journal keeps every observation, read or not.
      const beyond = this.#beyondObservedText(input);
      if (beyond) {
        this.#broken = `an observation could not be kept: ${beyond.message}`;
        this.#record({ kind: 'observe', ok: false });
        return { ok: false, problems: [beyond], ignored: [], status: this.status() };
      }
      const read = readObservation(
        input,
        this.#compiled,
        this.#clock,
        this.#store,
        this.#settings.limits,
      );
      if (!read.ok) {
        // A fact that happened but cannot be kept leaves the state unknown: a `not`
        // or a guard reading it could otherwise allow what it forbids. Fail closed.
        const lost = read.problems.find((problem) => problem.limit !== undefined);
        if (lost) this.#broken = `an observation could not be kept: ${lost.message}`;
        // A tool result that came but cannot be read is kept as such, keyed by its call
        // (E1): a `not` over it must not hold as if it had never come.
        else if (read.kept !== undefined && read.kept.length > 0)
          this.#commit({ updates: read.kept, rules: [], finish: false });
        this.#record({ kind: 'observe', ok: false });
        return { ok: false, problems: read.problems, ignored: [], status: this.status() };
      }
      this.#commit({ updates: read.value, rules: [], finish: false });
      this.#record({ kind: 'observe', ok: true });
      return { ok: true, problems: [], ignored: read.ignored, status: this.status() };
    } catch (error) {
      return {
        ok: false,
        problems: [{ message: `internal error: ${errorMessage(error)}` }],
        ignored: [],
        status: this.status(),
      };
    }
  }

  /**
   * Counts an observation toward `maxObservedText` (S1), or names the limit when it
   * would go beyond: memory per session stays in proportion to what it takes in.
   */
  #beyondObservedText(input: unknown): ProposalProblem | undefined {
    const size = keptSize(input);
    const { maxObservedText } = this.#settings.limits;
    if (this.#observedText + size <= maxObservedText) {
      this.#observedText += size;
      return undefined;
    }
    return {
      message: `the session has taken in ${this.#observedText} characters of observations and this one brings ${size} more, beyond the ${maxObservedText} a session keeps (maxObservedText)`,
      limit: 'maxObservedText',
    };
  }

  /**
   * Answers the latest `confirm`: approval commits exactly that proposal, denial
   * commits nothing. If an observation changed the state since the approval was
   * asked, the proposal is checked again first (LANGUAGE.md §6, session life): when
   * it no longer passes, nothing is committed and the new verdict is returned.
   */
  resolve(approved: boolean): ResolutionResult {
    this.#lastCommit = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (!pending) {
      return {
        ok: false,
        committed: false,
        message: 'No proposal is waiting for approval.',
        status: this.status(),
      };
    }
    const { plan } = pending;
    if (plan.escalated !== undefined) this.#hardRefusals.delete(plan.escalated);
    if (approved === true) {
      try {
        this.#assertIntact();
        const refused = this.#commitApproved(pending);
        if (refused) {
          this.#record({ kind: 'resolve', approved: true, committed: false });
          return {
            ok: false,
            committed: false,
            message: `The state changed since the approval was asked, and the proposal no longer passes; nothing was committed. ${refused.feedback}`,
            verdict: refused,
            status: this.status(),
          };
        }
      } catch (error) {
        this.#record({ kind: 'resolve', approved: true, committed: false });
        return {
          ok: false,
          committed: false,
          message: `The verifier failed (${errorMessage(error)}); nothing was committed.`,
          status: this.status(),
        };
      }
    }
    this.#record({
      kind: 'resolve',
      approved: approved === true,
      committed: approved === true,
    });
    return {
      ok: true,
      committed: approved === true,
      message: approved === true ? 'Approved and committed.' : 'Denied; nothing was committed.',
      status: this.status(),
    };
  }

  status(): SessionStatus {
    return {
      done: this.#done(),
      finished: this.#finished,
      ...(this.#asked ? { asked: true } : {}),
      achieved: Object.fromEntries(this.#achieved),
      pending: this.#pending !== undefined,
      proposals: this.#proposals,
    };
  }

  /** The roadmap of the task in the current state. */
  roadmap(): string {
    // The roadmap depends only on committed state, so refusals (which commit nothing)
    // reuse it until the next commit.
    if (this.#roadmapCache?.version !== this.#version) {
      this.#roadmapCache = {
        version: this.#version,
        text: renderRoadmap(this.#compiled, this.#currentContext(), this.#describe),
      };
    }
    return this.#roadmapCache.text;
  }

  /**
   * Commits an approved proposal, re-checking it first when the state changed since it
   * was asked. Returns the refusal when it no longer passes, else undefined.
   */
  #commitApproved(pending: PendingApproval): Verdict | undefined {
    if (pending.version === this.#version) {
      this.#commit(pending.plan, true);
      return undefined;
    }
    if (pending.plan.escalated !== undefined) {
      // A person overrules a repeated refusal of the rules, so only a reject guard,
      // which no person can overrule, is checked again.
      const { proposal } = pending;
      const guard = this.#matchingGuard(proposal.action, proposal.updates, this.#viewOf(proposal));
      if (guard?.source.mode === 'reject') return this.#guardRejection(guard);
      this.#commit(pending.plan, true);
      return undefined;
    }
    const verdict = this.#decide(pending.proposal, { approved: true });
    return verdict.decision === 'allow' ? undefined : verdict;
  }

  // ---- the decision procedure (LANGUAGE.md §6) ------------------------------------

  #propose(input: unknown): Verdict {
    this.#pending = undefined;
    this.#assertIntact();
    // After an allowed finish the task is over: nothing the agent proposes runs.
    if (this.#finished)
      return this.#verdict(
        'reject',
        undefined,
        [sessionFinishedReason],
        [],
        sessionFinishedReason.message,
      );
    const read = readProposal(
      input,
      this.#compiled,
      this.#clock,
      this.#store,
      this.#settings.limits,
    );
    if (!read.ok) {
      const reasons = invalidProposalReasons(read.problems);
      return this.#verdict(
        'revise',
        'hard',
        reasons,
        [],
        joinFeedback('The proposal cannot be checked:', reasons),
      );
    }
    return this.#decide(read.value, undefined);
  }

  /**
   * Steps 1–8 for a read proposal. With `recheck` (an approved proposal checked again at
   * `resolve`), nothing is remembered, nothing escalates, and a confirmation commits.
   */
  #decide(proposal: NormalizedProposal, recheck: Recheck | undefined): Verdict {
    // v2: a question to the user is always allowed, and ends the session as `asked`.
    if (proposal.ask !== undefined) {
      this.#commit({ updates: [], rules: [], finish: true });
      this.#asked = true;
      return this.#verdict(
        'allow',
        undefined,
        noReasons,
        [],
        'The question goes to the user; this session is over.',
      );
    }

    // 1. finish
    if (proposal.finish) {
      // v2: whatever the rules say, an answer that shows calls never made is refused.
      if (proposal.answer !== undefined) {
        const reason = answerCheck()(
          proposal.answer,
          this.#compiled,
          this.#committedCalls,
          this.#clock,
          this.#settings.limits.maxEchoLength,
        );
        if (reason !== undefined) {
          return this.#hardRefusal(
            proposal,
            recheck,
            [reason],
            [],
            { updates: [], rules: [], finish: true },
            reason.message,
          );
        }
      }
      const answered = this.#answerContext(proposal.answer);
      if (answered ? this.#doneWithAnswer(answered) : this.#done()) {
        this.#commit({ updates: [], rules: [], finish: true });
        return this.#verdict('allow', undefined, [], [], 'The task is done.');
      }
      const roadmap = this.roadmap();
      const context = answered ?? this.#currentContext();
      // Every way to finish is shown with what it still lacks: the closest branch alone
      // could be the "do nothing" branch and would mislead the agent.
      const branches = this.#compiled.doneRules.slice(0, maxFinishBranches).map((rule) => ({
        rule,
        reasons: explainRule(rule, context).map((unmet) =>
          unmetReason(
            this.#compiled,
            rule,
            unmet,
            this.#clock,
            () => false,
            this.#settings.limits.maxEchoLength,
          ),
        ),
      }));
      const reasons: Reason[] = [
        { code: 'premature-finish', message: 'The task is not done yet.' },
        ...branches.flatMap((branch) => branch.reasons),
      ];
      const lines = ['The task is not done yet.'];
      if (branches.length === 1) lines.push(unmetFeedback(branches[0]!.rule, branches[0]!.reasons));
      else {
        lines.push('It is done when any of these holds:');
        branches.forEach((branch, index) => {
          lines.push(
            `${String.fromCharCode(97 + (index % 26))}) rule ${branch.rule.id}, which still needs:`,
          );
          for (const reason of branch.reasons) lines.push(`   - ${reason.message}`);
        });
      }
      const feedback = lines.join('\n');
      return this.#hardRefusal(
        proposal,
        recheck,
        reasons,
        [],
        { updates: [], rules: [], finish: true },
        feedback,
        roadmap,
      );
    }

    const view = this.#viewOf(proposal);
    const action = proposal.action;

    // 2. guards: reject wins over confirm
    const guard = this.#matchingGuard(action, proposal.updates, view);
    if (guard?.source.mode === 'reject') return this.#guardRejection(guard);
    const confirmGuard = guard;

    // 3–4. performed rules and the rule-level (hard) check
    const performed = this.#performedRules(proposal);
    if (typeof performed === 'string') {
      const reasons = invalidProposalReasons([{ message: performed }]);
      return this.#verdict(
        'revise',
        'hard',
        reasons,
        [],
        joinFeedback('The proposal cannot be checked:', reasons),
      );
    }
    const context: EvaluationContext = {
      view,
      action,
      achieved: this.#achieved,
      clock: this.#clock,
    };
    let deciding: readonly CompiledRule[] = [];
    let unplanned: Reason | undefined;
    if (performed.length > 0) {
      const firing = firingRules(this.#firingCandidates(proposal, performed), context);
      if (firing.length === 0) {
        const closest = closestRule(performed, context);
        const rule = closest?.rule ?? performed[0]!;
        const changed = new Set(proposal.updates.map((update) => update.predicate.index));
        const reasons = (closest?.unmet ?? []).map((unmet) =>
          unmetReason(
            this.#compiled,
            rule,
            unmet,
            this.#clock,
            (index) => changed.has(index),
            this.#settings.limits.maxEchoLength,
          ),
        );
        const plan = {
          updates: proposal.updates,
          rules: onePerSourceRule(
            performed.filter((candidate) => this.#hasBudget(candidate, action)),
          ),
          finish: false,
          action,
        };
        return this.#hardRefusal(
          proposal,
          recheck,
          reasons,
          performed,
          plan,
          unmetFeedback(rule, reasons),
          this.roadmap(),
        );
      }
      deciding =
        firing.length === 1 && this.#hasBudget(firing[0]!, action)
          ? firing
          : onePerSourceRule(firing.filter((rule) => this.#hasBudget(rule, action)));
      if (deciding.length === 0) {
        const reasons = uniqueByHead(firing).map((rule) =>
          alreadyAchievedReason(
            rule,
            this.#achieved.get(rule.head) ?? 0,
            rule.per && action ? this.#perValueText(rule, action) : undefined,
          ),
        );
        const plan = {
          updates: proposal.updates,
          rules: onePerSourceRule(firing),
          finish: false,
          action,
        };
        return this.#hardRefusal(
          proposal,
          recheck,
          reasons,
          performed,
          plan,
          joinFeedback('', reasons),
        );
      }
    }
    // 5. unplanned critical action: its action matches no rule by name and no guard (a
    // declared objective cannot plan it: see #performedRules).
    if (
      action &&
      confirmGuard === undefined &&
      action.predicate.declaration.critical &&
      !this.#compiled.rulesByAction.has(action.predicate.name)
    ) {
      const asConfirm = this.#settings.unplannedCritical === 'confirm';
      unplanned = unplannedReason(action.predicate.name, asConfirm);
      if (!asConfirm) {
        const plan = { updates: proposal.updates, rules: deciding, finish: false, action };
        return this.#hardRefusal(
          proposal,
          recheck,
          [unplanned],
          performed,
          plan,
          unplanned.message,
          this.roadmap(),
        );
      }
    }

    // 6. predicate-level (soft) check of the anticipated updates
    if (proposal.updates.length > 0) {
      const deviations = this.#softCheck(proposal.updates, view);
      if (deviations.length > 0) {
        const key = proposalFingerprint(proposal);
        // An identical repeat passes (it may be an intermediate step); a re-check at
        // resolve never counts as the repeat.
        if (!this.#softRefused.has(key)) {
          if (!recheck) this.#softRefused.set(key, true);
          return this.#verdict(
            'revise',
            'soft',
            deviations,
            performed,
            joinFeedback('', deviations, softFeedbackTail),
          );
        }
      }
    }

    const plan: CommitPlan = { updates: proposal.updates, rules: deciding, finish: false, action };

    // 7. user approval from @confirm rules, confirm guards, or unplanned critical actions.
    // A declared objective narrows what is achieved, never what is confirmed: a firing
    // @confirm rule of the same action still asks (LANGUAGE.md §5.2).
    const confirming = [
      ...deciding.filter((rule) => rule.source.confirm !== undefined),
      ...this.#narrowedAwayConfirms(proposal, context, deciding),
    ];
    if (confirmGuard !== undefined || unplanned !== undefined || confirming.length > 0) {
      const confirmations: Reason[] = [
        ...uniqueByHead(confirming).map(ruleConfirmReason),
        ...(confirmGuard
          ? [guardReason(confirmGuard, this.#clock, action, this.#settings.limits.maxEchoLength)]
          : []),
        ...(unplanned ? [unplanned] : []),
      ];
      if (recheck) {
        this.#commit(plan, true);
        return this.#verdict('allow', undefined, noReasons, performed, allowFeedback);
      }
      this.#pending = { plan, proposal, version: this.#version };
      return this.#verdict(
        'confirm',
        undefined,
        confirmations,
        performed,
        joinFeedback('Ask the user first:', confirmations),
      );
    }

    // 8. allow and commit
    this.#commit(plan, true);
    return this.#verdict('allow', undefined, noReasons, performed, allowFeedback);
  }

  /** 9. A hard refusal, or — after N identical ones — a question to a person. */
  #hardRefusal(
    proposal: NormalizedProposal,
    recheck: Recheck | undefined,
    reasons: readonly Reason[],
    performed: readonly CompiledRule[],
    plan: CommitPlan,
    feedback: string,
    roadmap?: string,
  ): Verdict {
    if (recheck) return this.#verdict('revise', 'hard', reasons, performed, feedback, roadmap);
    const key = proposalFingerprint(proposal);
    const refusals = this.#hardRefusals.get(key);
    const { escalateAfter } = this.#settings;
    if (escalateAfter > 0 && refusals && refusals.count >= escalateAfter) {
      this.#pending = {
        plan: { ...plan, escalated: key },
        proposal,
        version: this.#version,
      };
      const reason = repeatedViolationReason(
        refusals.count,
        refusals.reasons,
        plan.action?.predicate.name,
      );
      return this.#verdict('confirm', undefined, [reason], performed, reason.message, roadmap);
    }
    if (refusals) {
      refusals.count++;
      refusals.reasons = reasons;
    } else this.#hardRefusals.set(key, { count: 1, reasons });
    return this.#verdict('revise', 'hard', reasons, performed, feedback, roadmap);
  }

  #verdict(
    decision: Decision,
    severity: Severity | undefined,
    reasons: readonly Reason[],
    performed: readonly CompiledRule[],
    feedback: string,
    roadmap?: string,
  ): Verdict {
    const performs = headsOf(performed);
    const achieved: Record<string, number> = {};
    for (const head of performs) {
      const count = this.#achieved.get(head) ?? 0;
      // An objective may be called `__proto__`: assignment would set the prototype instead.
      if (head === '__proto__')
        Object.defineProperty(achieved, head, {
          value: count,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else achieved[head] = count;
    }
    const done = this.#done();
    const { maxFeedbackLength } = this.#settings.limits;
    // Feedback goes into an agent's prompt: whatever the spec's size, it stays bounded.
    if (feedback.length > maxFeedbackLength) feedback = cutFeedback(feedback, maxFeedbackLength);
    if (roadmap !== undefined && roadmap.length > maxFeedbackLength)
      roadmap = cutFeedback(roadmap, maxFeedbackLength);
    // Literal shapes rather than spreads: this runs for every proposal.
    if (severity === undefined) {
      return roadmap === undefined
        ? { decision, reasons, performs, achieved, done, feedback }
        : { decision, reasons, performs, achieved, done, feedback, roadmap };
    }
    return roadmap === undefined
      ? { decision, severity, reasons, performs, achieved, done, feedback }
      : { decision, severity, reasons, performs, achieved, done, feedback, roadmap };
  }

  #done(): boolean {
    return this.#broken === undefined && this.#doneHolding.size > 0;
  }

  /**
   * The current state with the built-in `Answer(text)` holding the answer (LANGUAGE.md
   * §7), when a Done rule reads it; undefined otherwise.
   */
  #answerContext(answer: string | undefined): EvaluationContext | undefined {
    const predicate = this.#compiled.answer;
    if (answer === undefined || !predicate) return undefined;
    const view = this.#overlay([
      { predicate, operation: 'set', key: singleKey, assignments: [[0, textValue(answer)]] },
    ]);
    return { view, action: undefined, achieved: this.#achieved, clock: this.#clock };
  }

  /** Done with the answer given: the Done rules reading Answer are judged with it. */
  #doneWithAnswer(context: EvaluationContext): boolean {
    if (this.#broken !== undefined) return false;
    const readers = this.#compiled.doneRulesByPredicate[this.#compiled.answer!.index] ?? noRules;
    for (const rule of this.#compiled.doneRules) {
      if (readers.includes(rule) ? ruleFires(rule, context) : this.#doneHolding.has(rule))
        return true;
    }
    return false;
  }

  #assertIntact(): void {
    if (this.#broken !== undefined) {
      throw new Error(`${this.#broken}, so the session state is unknown`);
    }
  }

  /** The current state as an evaluation context; its parts never change identity, so one object serves. */
  #currentContext(): EvaluationContext {
    this.#context ??= {
      view: this.#store,
      action: undefined,
      achieved: this.#achieved,
      clock: this.#clock,
    };
    return this.#context;
  }

  /** The tentative state of a proposal: its updates laid over the committed state. */
  #viewOf(proposal: NormalizedProposal): StateView {
    return proposal.updates.length > 0 ? this.#overlay(proposal.updates) : this.#store;
  }

  #guardRejection(guard: CompiledGuard): Verdict {
    const reason = guardReason(guard, this.#clock);
    return this.#verdict('reject', undefined, [reason], [], reason.message);
  }

  #overlay(updates: readonly StateUpdate[]): Overlay {
    const overlay = new Overlay(this.#store);
    for (const update of updates) overlay.add(update);
    return overlay;
  }

  /**
   * The rules a proposal performs (LANGUAGE.md §5.2), or why it cannot perform its
   * declared objective. With an action: exactly the rules whose action pattern names it,
   * narrowed to the declared objective's head — an objective can never let an action skip
   * its own rules or their `@confirm`. Without an action: the declared objective's rules
   * that have no action pattern (a UI gesture such as tapping "Reserve"); none can fire
   * when it has no such rule.
   */
  #performedRules(proposal: NormalizedProposal): readonly CompiledRule[] | string {
    const { objective, action } = proposal;
    if (action) {
      const byAction = this.#compiled.rulesByAction.get(action.predicate.name) ?? noRules;
      if (objective === undefined) return byAction;
      const narrowed = rulesWithHead(byAction, objective);
      if (narrowed.length > 0) return narrowed;
      const heads = headsOf(byAction);
      return heads.length === 0
        ? `${action.predicate.name} performs no objective, so it cannot declare '${objective}'; propose it without "objective"`
        : `${action.predicate.name} does not perform '${objective}' (it performs ${heads.join(', ')})`;
    }
    if (objective === undefined) return noRules;
    // Rules with an action pattern cannot fire without that action; when the objective
    // has only such rules they are still "performed", so the refusal names the action.
    return (
      this.#compiled.gestureRulesByHead.get(objective) ??
      this.#compiled.rulesByHead.get(objective) ??
      noRules
    );
  }

  /** Firing, budgeted @confirm rules of the action that a declared objective left out. */
  #narrowedAwayConfirms(
    proposal: NormalizedProposal,
    context: EvaluationContext,
    deciding: readonly CompiledRule[],
  ): readonly CompiledRule[] {
    const { action, objective } = proposal;
    if (!action || objective === undefined) return noRules;
    const own = this.#compiled.rulesByAction.get(action.predicate.name) ?? noRules;
    return own.filter(
      (rule) =>
        rule.source.confirm !== undefined &&
        rule.head !== objective &&
        !deciding.includes(rule) &&
        this.#hasBudget(rule, action) &&
        ruleFires(rule, context),
    );
  }

  /**
   * The performed rules that could fire: through the action's argument index when the
   * proposal names no objective, so a call touches only the rules that can match it.
   */
  #firingCandidates(
    proposal: NormalizedProposal,
    performed: readonly CompiledRule[],
  ): readonly CompiledRule[] {
    const action = proposal.action;
    // A declared objective has already narrowed the rules; the index covers all of them.
    if (proposal.objective !== undefined || !action) return performed;
    const index = this.#compiled.argumentIndexes.get(action.predicate.name);
    if (!index) return performed;
    const value = action.values[index.variable];
    const pinned = value === undefined ? undefined : index.byKey.get(runtimeIndexKey(value));
    if (!pinned) return index.unindexed;
    if (index.unindexed.length === 0) return pinned;
    return [...pinned, ...index.unindexed].sort((a, b) => a.index - b.index);
  }

  /**
   * Whether the rule may still be performed (by this action). `@repeat(per: arg)` counts
   * per value of the argument; without an action (the soft check's liveness) some value
   * may still be new, so such a rule is live.
   */
  #hasBudget(rule: CompiledRule, action?: ProposedAction): boolean {
    if (rule.per !== undefined) {
      if (!action) return true;
      // A value is new only if none of its readings was served (deny-list-reading.ts, E4).
      const counts = this.#perValue.get(rule.budget);
      const limit = rule.per.limit;
      return perValueReadings(action.values[rule.per.variable]).every(
        (key) => (counts?.get(key) ?? 0) < limit,
      );
    }
    if ((this.#achieved.get(rule.head) ?? 0) === 0) return true;
    // @repeat(n) counts this rule's own performances (LANGUAGE.md §5.2) — of all its
    // alternatives (E5) — so even @repeat(1) lets the rule perform a head another rule
    // achieved; without @repeat an achieved head is final.
    return (
      rule.source.repeat !== undefined && (this.#performances.get(rule.budget) ?? 0) < rule.limit
    );
  }

  /**
   * The first matching reject guard, else the first matching confirm guard: guards on
   * the action, and guards on states whose anticipated update makes them hold.
   */
  #matchingGuard(
    action: ProposedAction | undefined,
    updates: readonly StateUpdate[],
    view: StateView,
  ): CompiledGuard | undefined {
    const guards = this.#compiled.guardsByPredicate;
    if (guards.size === 0) return undefined;
    let confirm: CompiledGuard | undefined;
    const consider = (guard: CompiledGuard, candidate: ProposedAction): boolean => {
      if (!actionMatches(guard.pattern, candidate, this.#clock)) return false;
      if (guard.source.mode === 'reject') return true;
      confirm ??= guard;
      return false;
    };
    if (action) {
      for (const guard of guards.get(action.predicate.name) ?? noGuards) {
        if (consider(guard, action)) return guard;
      }
    }
    for (const update of updates) {
      if (update.operation !== 'set') continue;
      const instance = view.instance(update.predicate, update.key);
      if (!instance) continue;
      for (const guard of guards.get(update.predicate.name) ?? noGuards) {
        if (consider(guard, { predicate: update.predicate, values: instance })) return guard;
      }
    }
    return confirm;
  }

  /** `to = "+1 555…"`: the value a `@repeat(per: …)` budget is counted for, for feedback. */
  #perValueText(rule: CompiledRule, action: ProposedAction): string {
    const variable = rule.per!.variable;
    const declaration = action.predicate.variables[variable];
    const value = action.values[variable];
    const text =
      value === undefined || !declaration
        ? 'not given'
        : formatValue(value, declaration.type, this.#settings.limits.maxEchoLength);
    return `${declaration?.name ?? variable} = ${text}`;
  }

  /** Done rules are always live: once Done holds, an update must not undo it (§6 step 6). */
  #isLive(rule: CompiledRule): boolean {
    return rule.isDone || this.#hasBudget(rule);
  }

  /**
   * Step 6: each changed value must fit some live pattern that constrains its variable,
   * and an update must not make a holding Done stop holding (LANGUAGE.md §6 step 6).
   */
  #softCheck(updates: readonly StateUpdate[], view: StateView): Reason[] {
    const deviations = this.#variableDeviations(updates);
    if (deviations.length === 0 && this.#doneHolding.size > 0) {
      const broken = this.#brokenDone(updates, view);
      if (broken) deviations.push(broken);
    }
    return deviations;
  }

  /**
   * When Done holds now and would hold in no way in the tentative state: what the
   * holding Done rule would lack. Only Done rules mentioning an updated predicate can
   * stop holding, so the others are not re-evaluated.
   */
  #brokenDone(updates: readonly StateUpdate[], view: StateView): Reason | undefined {
    const touched = new Set<CompiledRule>();
    for (const update of updates)
      for (const rule of this.#compiled.doneRulesByPredicate[update.predicate.index] ?? noRules)
        touched.add(rule);
    for (const rule of this.#doneHolding) if (!touched.has(rule)) return undefined;
    const context: EvaluationContext = {
      view,
      action: undefined,
      achieved: this.#achieved,
      clock: this.#clock,
    };
    for (const rule of this.#compiled.doneRules) if (ruleFires(rule, context)) return undefined;
    const holding = [...this.#doneHolding][0]!;
    const unmet = explainRule(holding, context).map((condition) =>
      unmetReason(
        this.#compiled,
        holding,
        condition,
        this.#clock,
        () => true,
        this.#settings.limits.maxEchoLength,
      ),
    );
    return brokenDoneReason(holding, unmet);
  }

  #variableDeviations(updates: readonly StateUpdate[]): Reason[] {
    const deviations: Reason[] = [];
    for (const update of updates) {
      if (update.operation !== 'set') continue;
      const byVariable = this.#compiled.patternsByVariable[update.predicate.index];
      if (!byVariable) continue;
      const before = this.#store.instance(update.predicate, update.key);
      for (const [variable, value] of update.assignments) {
        if (value === undefined) continue;
        const patterns = byVariable[variable];
        if (!patterns || patterns.length === 0) continue;
        if (before && valueKey(before[variable]) === valueKey(value)) continue;
        const live = patterns.filter(
          (pattern) => pattern.rule !== undefined && this.#isLive(pattern.rule),
        );
        if (live.length === 0) continue;
        const fits = live.some((pattern) =>
          pattern.constraints.every(
            (constraint) => constraint.variable !== variable || constraint.test(value, this.#clock),
          ),
        );
        if (!fits)
          deviations.push(
            softDeviationReason(
              live[0]!,
              variable,
              value,
              live,
              this.#clock,
              this.#settings.limits.maxEchoLength,
            ),
          );
      }
    }
    return deviations;
  }

  /**
   * The number of the commit the latest `propose` or `resolve` made, or undefined when it
   * committed nothing. With the `rollback` option, `rollback(commit)` undoes it.
   */
  lastCommit(): number | undefined {
    return this.#lastCommit;
  }

  /**
   * Undoes a committed proposal whose tool call failed: the objectives it achieved are
   * no longer achieved, and the values it anticipated go back to what they were — unless
   * something since changed them again, which then stands. Needs the `rollback` option;
   * returns false for an unknown, already undone or forgotten commit.
   */
  rollback(commit: number): boolean {
    const record = this.#undo?.get(commit);
    if (!record || this.#broken !== undefined) return false;
    this.#undo?.delete(commit);
    try {
      this.#version++;
      for (let index = record.updates.length - 1; index >= 0; index--) {
        const { predicate, key, before, after } = record.updates[index]!;
        const current = this.#store.instance(predicate, key);
        if (current === after) this.#store.put(predicate, key, before);
        else if (current !== undefined && after !== undefined) {
          // Changed since: put back only the values that are still the ones this commit set.
          const restored = current.slice();
          for (let variable = 0; variable < restored.length; variable++) {
            if (current[variable] === after[variable] && before?.[variable] !== after[variable])
              restored[variable] = before?.[variable];
          }
          this.#store.put(predicate, key, restored);
        }
      }
      if (record.action) {
        // The call failed: it no longer accounts for an answer that shows it.
        const index = this.#committedCalls.lastIndexOf(record.action);
        if (index >= 0) this.#committedCalls.splice(index, 1);
      }
      for (const rule of record.rules) {
        if (rule.per && record.action) this.#countPerValue(rule, record.action, -1);
        const performed = (this.#performances.get(rule.budget) ?? 1) - 1;
        if (performed > 0) this.#performances.set(rule.budget, performed);
        else this.#performances.delete(rule.budget);
        const achieved = (this.#achieved.get(rule.head) ?? 1) - 1;
        if (achieved > 0) this.#achieved.set(rule.head, achieved);
        else this.#achieved.delete(rule.head);
      }
      for (const rule of this.#compiled.doneRules) this.#refreshDone(rule);
    } catch (error) {
      this.#broken = `an earlier commit failed (${errorMessage(error)})`;
      return false;
    }
    return true;
  }

  #commit(plan: CommitPlan, undoable = false): void {
    try {
      if (undoable && this.#undo) this.#recordUndo(plan);
      else {
        this.#apply(plan);
        if (undoable) this.#lastCommit = this.#version;
      }
    } catch (error) {
      this.#broken = `an earlier commit failed (${errorMessage(error)})`;
      throw error;
    }
  }

  #apply(plan: CommitPlan): void {
    this.#version++;
    if (plan.action)
      appendBounded(this.#committedCalls, plan.action, this.#settings.limits.maxHistory);
    for (const update of plan.updates) this.#store.apply(update);
    for (const rule of plan.rules) {
      if (rule.per && plan.action) this.#countPerValue(rule, plan.action, 1);
      this.#performances.set(rule.budget, (this.#performances.get(rule.budget) ?? 0) + 1);
      this.#achieved.set(rule.head, (this.#achieved.get(rule.head) ?? 0) + 1);
    }
    if (plan.finish) this.#finished = true;
    // Re-judge only the Done rules that mention what changed (a rule may be re-judged twice).
    for (const update of plan.updates) {
      for (const rule of this.#compiled.doneRulesByPredicate[update.predicate.index] ?? noRules) {
        this.#refreshDone(rule);
      }
    }
    for (const rule of plan.rules) {
      for (const done of this.#compiled.doneRulesByObjective.get(rule.head) ?? noRules) {
        this.#refreshDone(done);
      }
    }
  }

  /** Applies a proposal's plan, keeping what it changed under its commit number. */
  #recordUndo(plan: CommitPlan): void {
    const undo = this.#undo!;
    const updates = plan.updates.map((update) => ({
      predicate: update.predicate,
      key: update.key,
      before: this.#store.instance(update.predicate, update.key),
    }));
    this.#apply(plan);
    undo.set(this.#version, {
      updates: updates.map((entry) => ({
        ...entry,
        after: this.#store.instance(entry.predicate, entry.key),
      })),
      rules: plan.rules,
      action: plan.action,
    });
    this.#lastCommit = this.#version;
    if (undo.size > this.#settings.limits.maxHistory) {
      const oldest = undo.keys().next();
      if (!oldest.done) undo.delete(oldest.value);
    }
  }

  #countPerValue(rule: CompiledRule, action: ProposedAction, change: 1 | -1): void {
    let counts = this.#perValue.get(rule.budget);
    if (!counts) {
      counts = new Map();
      this.#perValue.set(rule.budget, counts);
    }
    // Every reading of the value is served (E4): `a, b` serves a and b.
    for (const key of perValueReadings(action.values[rule.per!.variable])) {
      const count = (counts.get(key) ?? 0) + change;
      if (count > 0) counts.set(key, count);
      else counts.delete(key);
    }
  }

  #refreshDone(rule: CompiledRule): void {
    if (ruleFires(rule, this.#currentContext())) this.#doneHolding.add(rule);
    else this.#doneHolding.delete(rule);
  }
}

const noRules: readonly CompiledRule[] = Object.freeze([]);

/**
 * A host that passes something other than a checked spec gets a clear error rather
 * than a TypeError from deep inside compilation (or, worse, a session over garbage).
 */
function assertSpec(spec: unknown): asserts spec is Spec {
  const problem = specProblem(spec);
  if (problem) throw argumentError('createSession', problem);
}
/** Shared by allowed verdicts, which carry no reasons; frozen so no caller can change it. */
const noReasons: readonly Reason[] = Object.freeze([]);
const noGuards: readonly CompiledGuard[] = [];
const headsCache = new WeakMap<readonly CompiledRule[], readonly string[]>();

/** The distinct heads of rules, cached for the shared arrays of the compiled spec's indexes. */
function headsOf(rules: readonly CompiledRule[]): readonly string[] {
  if (rules.length === 0) return [];
  let heads = headsCache.get(rules);
  if (!heads) {
    // Frozen: verdicts of every session share it, so no caller may change it (D12).
    heads = Object.freeze([...new Set(rules.map((rule) => rule.head))]);
    headsCache.set(rules, heads);
  }
  return heads;
}

/** The rules among `rules` with the given head, cached per (rules, head) for the shared index arrays. */
const narrowedCache = new WeakMap<readonly CompiledRule[], Map<string, readonly CompiledRule[]>>();
function rulesWithHead(rules: readonly CompiledRule[], head: string): readonly CompiledRule[] {
  let byHead = narrowedCache.get(rules);
  if (!byHead) {
    byHead = new Map();
    narrowedCache.set(rules, byHead);
  }
  let narrowed = byHead.get(head);
  if (!narrowed) {
    narrowed = Object.freeze(rules.filter((rule) => rule.head === head));
    // Bounded by the spec's heads: only heads some rule has are cached.
    if (narrowed.length > 0) byHead.set(head, narrowed);
  }
  return narrowed;
}

/** Text cut to at most `limit` characters, saying so. */
function cutFeedback(text: string, limit: number): string {
  const note = '\n… (cut: the feedback was longer than the limit)';
  return `${text.slice(0, Math.max(0, limit - note.length))}${note}`;
}

function runtimeIndexKey(value: Value): string | number | boolean {
  return isTextValue(value) ? value.key : (value as number | boolean | string);
}

/** The rules that fire, without allocating when there is one candidate (the common case). */
function firingRules(
  candidates: readonly CompiledRule[],
  context: EvaluationContext,
): readonly CompiledRule[] {
  if (candidates.length === 1) return ruleFires(candidates[0]!, context) ? candidates : noRules;
  return candidates.filter((rule) => ruleFires(rule, context));
}

/**
 * The rules, one per source rule: alternatives of one rule that fire together are one
 * performance of it — its budget spent once, its head achieved once (E5).
 */
function onePerSourceRule(rules: readonly CompiledRule[]): readonly CompiledRule[] {
  if (rules.length < 2) return rules;
  const seen = new Set<number>();
  return rules.filter((rule) => {
    if (seen.has(rule.budget)) return false;
    seen.add(rule.budget);
    return true;
  });
}

function uniqueByHead(rules: readonly CompiledRule[]): CompiledRule[] {
  const seen = new Set<string>();
  return rules.filter((rule) => {
    if (seen.has(rule.head)) return false;
    seen.add(rule.head);
    return true;
  });
}

function joinFeedback(lead: string, reasons: readonly Reason[], tail?: string): string {
  const lines = reasons.map((reason) =>
    reasons.length > 1 ? `- ${reason.message}` : reason.message,
  );
  return [lead, ...lines, tail]
    .filter((line): line is string => line !== undefined && line !== '')
    .join('\n');
}

/**
 * Starts a session. A missing spec (formalization failed) yields a session that
 * refuses every proposal with `no-spec` — fail closed.
 */
export function createSession(spec: Spec, options?: SessionOptions): Session;
export function createSession(
  spec: Spec | undefined | null,
  options?: SessionOptions,
): Session | NoSpecSession;
export function createSession(
  spec: Spec | undefined | null,
  options: SessionOptions = {},
): Session | NoSpecSession {
  if (spec === undefined || spec === null) {
    // Fail closed without a spec, but a misconfigured host still hears about its options.
    const settings = sessionSettings(options);
    return new NoSpecSession(undefined, { historyLimit: settings.historyLimit });
  }
  return new Session(spec, options);
}
