import { argumentError, specProblem } from '../language/arguments.js';
import { type Schema, type Spec, statesGivens } from '../language/index.js';
import { errorMessage } from '../support/error-message.js';
import { BoundedMemo } from './bounded-memo.js';
import { createClock, type SessionClock } from './clock.js';
import { noRules } from './compile-rules.js';
import {
  type CompiledPredicate,
  type CompiledRule,
  type CompiledSpec,
  compileSpec,
} from './compiled-spec.js';
import { type EngineParts, requirePart } from './engine-parts.js';
import {
  compareCount,
  type EvaluationContext,
  type ProposedAction,
  ruleFires,
} from './evaluation.js';
import type { CommittedCall } from './fabricated-action.js';
import { internalErrorVerdict } from './fail-closed.js';
import { repeatedViolationReason } from './feedback.js';
import { appendBounded, ProposeEntry } from './history.js';
import type { IntentSession } from './intent-session.js';
import { NoSpecSession } from './no-spec-session.js';
import { callIdOf, PendingApprovals } from './pending-approvals.js';
import { keptSize } from './plain-data.js';
import type { PolicyComposition } from './policy-composition.js';
import type { PolicyJudge } from './policy-judge.js';
import {
  type NormalizedProposal,
  type ProposalProblem,
  proposalFingerprint,
  proposalLabel,
  readObservation,
  readProposal,
} from './proposal.js';
import { renderRoadmap, ruleDescriber } from './roadmap.js';
import {
  countAchieved,
  countPerformance,
  countPerValue,
  hasBudget,
  type RuleCounts,
} from './rule-budget.js';
import { decide, invalidProposal } from './session/decide.js';
import { guardRejection, matchingGuard } from './session/decide-guards.js';
import {
  achievedCounts,
  type CommitPlan,
  type DecisionHost,
  performedHeads,
  type Recheck,
} from './session/decision.js';
import { type SessionSettings, sessionSettings } from './session-settings.js';
import type {
  HistoryEntry,
  ObservationResult,
  ResolutionResult,
  SessionOptions,
  SessionStatus,
} from './session-types.js';
import { missingSimilarity } from './similarity.js';
import { type Instance, Overlay, StateStore, type StateUpdate } from './state.js';
import {
  type Decision,
  PlainVerdict,
  type Reason,
  type Severity,
  sessionFinishedReason,
  type Verdict,
} from './verdict.js';

export type { HistoryEntry, ObservationResult, ResolutionResult, SessionOptions, SessionStatus };
export { internalErrorVerdict, NoSpecSession };

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

/** Per spec, per the parts it is compiled with, per threshold. */
const compiledCache = new WeakMap<Spec, WeakMap<EngineParts, Map<number, CompiledSpec>>>();

/**
 * Compiled specs are shared by every session over the same spec, parts and similarity
 * settings (the Node entry points give every session the same parts).
 */
function compiledFor(spec: Spec, settings: SessionSettings): CompiledSpec {
  const { similarity, threshold, parts } = settings;
  // Custom similarity functions are not cached by identity across sessions: they may be stateful.
  if (similarity !== parts.lexicalSimilarity && similarity !== missingSimilarity)
    return compileSpec(spec, { similarity, threshold, parts });
  let byParts = compiledCache.get(spec);
  if (!byParts) {
    byParts = new WeakMap();
    compiledCache.set(spec, byParts);
  }
  let byThreshold = byParts.get(parts);
  if (!byThreshold) {
    byThreshold = new Map();
    byParts.set(parts, byThreshold);
  }
  let compiled = byThreshold.get(threshold);
  if (!compiled) {
    compiled = compileSpec(spec, { similarity, threshold, parts });
    byThreshold.set(threshold, compiled);
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
  /** The counts above, as the shared budget steps read them (rule-budget.ts). */
  readonly #counts: RuleCounts = {
    achieved: this.#achieved,
    performances: this.#performances,
    perValue: this.#perValue,
  };
  readonly #doneHolding = new Set<CompiledRule>();
  readonly #softRefused: BoundedMemo<true>;
  readonly #hardRefusals: BoundedMemo<Refusals>;
  readonly #history: HistoryEntry[] = [];
  readonly #settings: SessionSettings;
  readonly #describe: (rule: CompiledRule) => string;
  /** The confirmation the proposal being decided asks, until `propose` files it under its call id. */
  #pending: PendingApproval | undefined;
  readonly #waiting: PendingApprovals<PendingApproval>;
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
  #host: DecisionHost | undefined;
  /** The operator's policy (LANGUAGE.md §8), judging every proposal with the intent. */
  readonly #policy: PolicyJudge | undefined;
  /** The composition part (engine-parts.ts), given with a policy. */
  readonly #composition: PolicyComposition | undefined;

  constructor(spec: Spec, options: SessionOptions = {}) {
    assertSpec(spec);
    const settings = sessionSettings(options);
    this.#settings = settings;
    this.#clock = createClock(options.now, settings.timeZone);
    this.#compiled = compiledFor(spec, settings);
    const { maxRefusalMemo, maxRefusalMemoCharacters } = settings.limits;
    this.#softRefused = new BoundedMemo(maxRefusalMemo, maxRefusalMemoCharacters);
    this.#hardRefusals = new BoundedMemo(maxRefusalMemo, maxRefusalMemoCharacters);
    this.#describe = ruleDescriber(this.#clock);
    this.#undo = settings.rollback ? new Map() : undefined;
    this.#waiting = new PendingApprovals(settings.limits.maxHistory);
    if (options.policy !== undefined) {
      const composition: PolicyComposition = requirePart(settings.parts, 'policy');
      composition.assertPolicy(options.policy);
      const policy = compiledFor(options.policy, settings);
      this.#composition = composition;
      this.#policy = new composition.PolicyJudge(
        policy,
        this.#compiled,
        this.#clock,
        settings,
        this.#store,
      );
    }
    // What the user said holds from the start (LANGUAGE.md §8).
    // Read by an engine part: few intents state facts, and every page would carry the reader.
    if (statesGivens(this.#compiled.spec)) {
      const givens = requirePart(settings.parts, 'givens')(
        this.#compiled,
        this.#clock,
        settings.limits,
      );
      this.#apply({ updates: givens, rules: [], finish: false });
    }
    for (const rule of this.#compiled.doneRules) this.#refreshDone(rule);
  }

  get spec(): Spec {
    return this.#compiled.spec;
  }

  get clock(): SessionClock {
    return this.#clock;
  }

  get schema(): Schema {
    return this.#compiled.spec.schema;
  }

  get history(): readonly HistoryEntry[] {
    return this.#history;
  }

  #record(entry: HistoryEntry): void {
    appendBounded(this.#history, entry, this.#settings.historyLimit);
  }

  /** Decides a proposal. Never throws: an internal error becomes a `reject`. */
  propose(input: unknown, callId?: string): Verdict {
    this.#lastCommit = undefined;
    const id = callIdOf(callId);
    this.#waiting.proposing(id);
    let verdict: Verdict;
    try {
      verdict = this.#propose(input);
    } catch (error) {
      this.#pending = undefined;
      verdict = internalErrorVerdict(error);
    }
    if (this.#pending !== undefined) {
      this.#waiting.ask(id, this.#pending);
      this.#pending = undefined;
    }
    this.#proposals++;
    this.#record(new ProposeEntry(proposalLabel(input, this.#settings.limits), verdict));
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
        problems: [{ code: 'internal-error', message: `internal error: ${errorMessage(error)}` }],
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
      code: 'too-large',
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
  resolve(approved: boolean, callId?: string): ResolutionResult {
    this.#lastCommit = undefined;
    const pending = this.#waiting.take(callIdOf(callId));
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
    if (approved === true && this.#finished) {
      // A call still waiting when the task ended (finish or ask) runs no more.
      this.#record({ kind: 'resolve', approved: true, committed: false });
      const refused = this.#verdict(
        'reject',
        undefined,
        [sessionFinishedReason],
        [],
        sessionFinishedReason.message,
      );
      return {
        ok: false,
        committed: false,
        message: `The session is over; nothing was committed. ${refused.feedback}`,
        verdict: refused,
        status: this.status(),
      };
    }
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
      ...(this.#policy ? { policyAchieved: Object.fromEntries(this.#policy.achieved) } : {}),
      pending: this.#waiting.size > 0,
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
      const view = proposal.updates.length > 0 ? this.#overlay(proposal.updates) : this.#store;
      const host = this.#decision();
      const guard = matchingGuard(host, proposal.action, proposal.updates, view);
      if (guard?.source.mode === 'reject') return guardRejection(host, guard);
      // The policy is no one's to overrule: it judges the approved call again in full.
      const refused =
        this.#policy && this.#composition
          ? this.#composition.policyRecheck(host, this.#policy, proposal)
          : undefined;
      if (refused) return refused;
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
    if (!read.ok) return invalidProposal(this.#decision(), read.problems);
    return this.#decide(read.value, undefined);
  }

  /** §6 by the intent, and with a policy by both judges (LANGUAGE.md §8). */
  #decide(proposal: NormalizedProposal, recheck: Recheck | undefined): Verdict {
    const host = this.#decision();
    return this.#policy && this.#composition
      ? this.#composition.decideComposed(host, this.#policy, proposal, recheck)
      : decide(host, proposal, recheck);
  }

  /** What the steps of the decision procedure read and ask of this session; made once. */
  #decision(): DecisionHost {
    return this.#host ?? this.#makeHost();
  }

  /**
   * Apart from `#decision`: the closures capture the session, and a method that makes
   * closures allocates their scope at every call, even when it makes none.
   */
  #makeHost(): DecisionHost {
    this.#host = {
      compiled: this.#compiled,
      clock: this.#clock,
      settings: this.#settings,
      achieved: this.#achieved,
      store: this.#store,
      doneHolding: this.#doneHolding,
      committedCalls: this.#committedCalls,
      softRefused: this.#softRefused,
      intact: () => this.#broken === undefined,
      done: () => this.#done(),
      roadmap: () => this.roadmap(),
      currentContext: () => this.#currentContext(),
      overlay: (updates) => this.#overlay(updates),
      hasBudget: (rule, action) => hasBudget(this.#counts, this.#settings.parts, rule, action),
      verdict: (decision, severity, reasons, performed, feedback, roadmap) =>
        this.#verdict(decision, severity, reasons, performed, feedback, roadmap),
      hardRefusal: (proposal, recheck, reasons, performed, plan, feedback, roadmap) =>
        this.#hardRefusal(proposal, recheck, reasons, performed, plan, feedback, roadmap),
      commit: (plan, undoable) => this.#commit(plan, undoable),
      awaitApproval: (plan, proposal) => {
        this.#pending = { plan, proposal, version: this.#version };
      },
      endAsked: () => {
        this.#asked = true;
      },
      amendApproval: (change) => {
        if (this.#pending === undefined) return;
        const plan = change(this.#pending.plan);
        this.#pending = plan === undefined ? undefined : { ...this.#pending, plan };
      },
    };
    return this.#host;
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
    // One lookup of the performed rules' heads for both `performs` and `achieved`.
    const heads = performed.length === 0 ? undefined : performedHeads(performed);
    const performs = heads === undefined ? [] : heads.heads;
    const achieved = achievedCounts(heads, this.#achieved);
    const done = this.#done();
    const { maxFeedbackLength } = this.#settings.limits;
    // Feedback goes into an agent's prompt: whatever the spec's size, it stays bounded.
    if (feedback.length > maxFeedbackLength) feedback = cutFeedback(feedback, maxFeedbackLength);
    if (roadmap !== undefined && roadmap.length > maxFeedbackLength)
      roadmap = cutFeedback(roadmap, maxFeedbackLength);
    return new PlainVerdict(
      decision,
      severity,
      reasons,
      performs,
      achieved,
      done,
      feedback,
      roadmap,
    );
  }

  #done(): boolean {
    return this.#broken === undefined && this.#doneHolding.size > 0;
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

  #overlay(updates: readonly StateUpdate[]): Overlay {
    const overlay = new Overlay(this.#store);
    for (const update of updates) overlay.add(update);
    return overlay;
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
    this.#policy?.rollback(commit);
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
        if (rule.per && record.action)
          countPerValue(this.#perValue, this.#settings.parts, rule, record.action, -1);
        countPerformance(this.#performances, rule, -1);
        countAchieved(this.#achieved, rule.head, -1);
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
    // Indexed loops: these lists are often frozen shared ones (no updates, one rule), and
    // V8 iterates a frozen array with `for…of` through its generic, allocating protocol.
    const { updates, rules } = plan;
    for (let index = 0; index < updates.length; index++) this.#store.apply(updates[index]!);
    // The Done rules whose count conditions on an objective this commit achieves judge
    // otherwise after it (`Paid >= 2` at the second payment, not at the third).
    let turned: CompiledRule[] | undefined;
    for (let index = 0; index < rules.length; index++) {
      const rule = rules[index]!;
      if (rule.per && plan.action)
        countPerValue(this.#perValue, this.#settings.parts, rule, plan.action, 1);
      countPerformance(this.#performances, rule, 1);
      const before = countAchieved(this.#achieved, rule.head, 1);
      const { countedBy } = rule;
      for (let done = 0; done < countedBy.length; done++) {
        if (!countTurns(countedBy[done]!, rule.head, before, before + 1)) continue;
        turned ??= [];
        turned.push(countedBy[done]!);
      }
    }
    if (plan.policyRules !== undefined && plan.policyRules.length > 0)
      this.#policy?.count(plan.policyRules, plan.action, 1, this.#version);
    if (plan.finish) this.#finished = true;
    // Re-judge only the Done rules that read what changed, each once after every update is
    // in (an observation of 400 instances is one judgement, not 400 of up to maxJoinWork):
    // the state of a predicate they mention, or a count condition that judges otherwise.
    // A Done rule reads nothing else (the clock is fixed), so the others judge as before.
    // Most commits change no state a Done rule reads: no set is made for them.
    let stale: Set<CompiledRule> | undefined = turned && new Set(turned);
    for (let index = 0; index < updates.length; index++)
      for (const rule of this.#compiled.doneRulesByPredicate[updates[index]!.predicate.index] ??
        noRules) {
        stale ??= new Set();
        stale.add(rule);
      }
    if (stale !== undefined) for (const rule of stale) this.#refreshDone(rule);
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

  #refreshDone(rule: CompiledRule): void {
    if (ruleFires(rule, this.#currentContext())) this.#doneHolding.add(rule);
    else this.#doneHolding.delete(rule);
  }
}

/** Whether some count condition of the rule on the objective judges `after` otherwise than `before`. */
function countTurns(rule: CompiledRule, objective: string, before: number, after: number): boolean {
  for (const condition of rule.objectives) {
    if (
      condition.name === objective &&
      compareCount(before, condition) !== compareCount(after, condition)
    )
      return true;
  }
  return false;
}

/**
 * A host that passes something other than a checked spec gets a clear error rather
 * than a TypeError from deep inside compilation (or, worse, a session over garbage).
 */
function assertSpec(spec: unknown): asserts spec is Spec {
  const problem = specProblem(spec);
  if (problem) throw argumentError('createSession', problem);
}

/** Text cut to at most `limit` characters, saying so. */
function cutFeedback(text: string, limit: number): string {
  const note = '\n… (cut: the feedback was longer than the limit)';
  return `${text.slice(0, Math.max(0, limit - note.length))}${note}`;
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
    return new NoSpecSession(undefined, {
      historyLimit: settings.historyLimit,
      now: options.now,
      timeZone: settings.timeZone,
    });
  }
  return new Session(spec, options);
}
