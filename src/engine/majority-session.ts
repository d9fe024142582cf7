import { canonicalSpecText, meaningKey, type Schema, type Spec } from '../language/index.js';
import { withAllParts } from './all-parts.js';
import { createClock, type SessionClock } from './clock.js';
import { appendBounded, ProposeEntry } from './history.js';
import type { IntentSession } from './intent-session.js';
import { callIdOf, PendingApprovals } from './pending-approvals.js';
import {
  type HistoryEntry,
  NoSpecSession,
  type ObservationResult,
  type ResolutionResult,
  Session,
  type SessionOptions,
  type SessionStatus,
} from './session.js';
import { sessionSettings } from './session-settings.js';
import { type Decision, sessionFinishedReason, type Verdict } from './verdict.js';

/** The decisions from the most permissive to the most conservative. */
const conservativeness: Readonly<Record<Decision, number>> = {
  allow: 0,
  confirm: 1,
  revise: 2,
  reject: 3,
};

/** A verdict decided by vote, with each decision's share of the votes. */
export interface MajorityVerdict extends Verdict {
  readonly votes: Readonly<Record<Decision, number>>;
}

/** One distinct spec (or the failed samples) with its vote weight. */
export interface MajorityGroup {
  /**
   * Canonical text of the group's earliest spec (`canonicalSpecText`); `undefined` for
   * samples that produced no valid spec.
   */
  readonly text: string | undefined;
  readonly weight: number;
}

/** One step applied to a member, tagged with the vote it belongs to (to undo it with that vote). */
type Operation = { readonly vote?: number } & (
  | { readonly kind: 'propose'; readonly input: unknown; readonly id: string | undefined }
  | { readonly kind: 'observe'; readonly input: unknown }
  | { readonly kind: 'resolve'; readonly approved: boolean; readonly id: string | undefined }
);

interface Member {
  readonly spec: Spec | undefined;
  readonly text: string | undefined;
  readonly weight: number;
  session: IntentSession;
  /** Everything applied to this member, so that it can be rebuilt without one step. */
  operations: Operation[];
}

interface PendingVote {
  /** The vote's number: its operations carry it, and it is the commit's number when it commits. */
  readonly number: number;
  /** The call id the proposal came with. */
  readonly id: string | undefined;
  /** Per member: its decision. */
  readonly decisions: readonly Decision[];
  readonly input: unknown;
  readonly finish: boolean;
}

/** Proposals are kept for rebuilding members; a copy protects them from later mutation by the caller. */
function snapshot(input: unknown): unknown {
  try {
    if (typeof structuredClone === 'function') return structuredClone(input);
    return JSON.parse(JSON.stringify(input)) as unknown;
  } catch {
    return input;
  }
}

function field(input: unknown, name: string): unknown {
  return typeof input === 'object' && input !== null
    ? (input as Record<string, unknown>)[name]
    : undefined;
}

/**
 * Majority-at-N over several specs formalized from one instruction: every proposal
 * goes to one session per distinct spec, and the decision with the most votes wins.
 * Specs that mean the same (`meaningKey`: labels, rule order and spelling aside) share
 * one session and keep their weight;
 * samples that produced no spec vote `reject`. Ties go to the more conservative
 * decision (reject > revise > confirm > allow).
 *
 * After each decision every member is brought in line with what actually happens:
 * a member that refused a proposal the majority allowed takes its anticipated updates
 * as an observation (in its view no objective was achieved), and a member that
 * allowed a proposal the majority refused is rebuilt from its own history without
 * that proposal. Pure and synchronous, like `Session`, with the same public methods.
 *
 * @example
 * const session = new MajoritySession([specA, specB, specC], { now: '2025-03-14T12:00' });
 * const verdict = session.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } });
 * verdict.votes; // { allow: 2, confirm: 0, revise: 1, reject: 0 }
 */
export class MajoritySession implements IntentSession {
  readonly #members: Member[];
  readonly #options: SessionOptions;
  readonly #historyLimit: number;
  readonly #history: HistoryEntry[] = [];
  readonly #waiting: PendingApprovals<PendingVote>;
  readonly #maxCommits: number;
  /** The votes that committed and are not undone, oldest first; bounded like a session's undo records. */
  readonly #commits = new Set<number>();
  #votes = 0;
  #lastCommit: number | undefined;
  #finished = false;
  #asked = false;
  #proposals = 0;
  readonly clock: SessionClock;

  constructor(specs: readonly (Spec | undefined)[], options: SessionOptions = {}) {
    // Members may be rebuilt later; they must all see the same "now".
    // Every engine part unless the options say which (all-parts.ts).
    this.#options = withAllParts({ ...options, now: options.now ?? new Date() });
    // Validated once here, so that a bad option fails at construction like createSession.
    const settings = sessionSettings(this.#options);
    this.#historyLimit = settings.historyLimit;
    this.#maxCommits = settings.limits.maxHistory;
    this.#waiting = new PendingApprovals(settings.limits.maxHistory);
    this.clock = createClock(this.#options.now, settings.timeZone);
    const groups = new Map<
      string,
      { spec: Spec | undefined; text: string | undefined; weight: number }
    >();
    const failedKey = '\u0000failed';
    for (const spec of specs.length > 0 ? specs : [undefined]) {
      // Specs that mean the same vote together, as the formalizer's samples do.
      const key = spec === undefined ? failedKey : meaningKey(spec);
      const group = groups.get(key);
      if (group) group.weight++;
      else
        groups.set(key, {
          spec,
          text: spec === undefined ? undefined : canonicalSpecText(spec),
          weight: 1,
        });
    }
    this.#members = [...groups.values()].map((group) => ({
      ...group,
      session: this.#createSession(group.spec),
      operations: [],
    }));
  }

  /** The distinct specs and their weights, in the order of the samples. */
  get groups(): readonly MajorityGroup[] {
    return this.#members.map((member) => ({ text: member.text, weight: member.weight }));
  }

  get history(): readonly HistoryEntry[] {
    return this.#history;
  }

  /** The schema of the valid specs (one schema: they were formalized against it). */
  get schema(): Schema | undefined {
    return this.#members.find((member) => member.spec !== undefined)?.spec?.schema;
  }

  /** Decides a proposal by weighted majority. Never throws. */
  propose(input: unknown, callId?: string): MajorityVerdict {
    this.#lastCommit = undefined;
    const id = callIdOf(callId);
    // A confirmation this proposal replaces was never approved.
    for (const replaced of this.#waiting.proposing(id)) this.#settle(replaced, false);
    if (this.#finished) return this.#record(input, finishedVerdict());
    const copy = snapshot(input);
    const number = ++this.#votes;
    const verdicts = this.#members.map((member) => {
      member.operations.push({ kind: 'propose', input: copy, id, vote: number });
      return member.session.propose(copy, id);
    });
    const votes: Record<Decision, number> = { allow: 0, confirm: 0, revise: 0, reject: 0 };
    verdicts.forEach((verdict, index) => {
      votes[verdict.decision] += this.#members[index]?.weight ?? 0;
    });
    const decision = (Object.keys(votes) as Decision[]).reduce((best, candidate) =>
      votes[candidate] > votes[best] ||
      (votes[candidate] === votes[best] && conservativeness[candidate] > conservativeness[best])
        ? candidate
        : best,
    );
    // A question to the user (v2 `ask`) ends the session like a finish.
    const finish = field(copy, 'finish') === true || typeof field(copy, 'ask') === 'string';
    const decisions = verdicts.map((verdict): Decision => verdict.decision);
    const vote: PendingVote = { number, id, decisions, input: copy, finish };
    if (decision === 'confirm') this.#waiting.ask(id, vote);
    else this.#settle(vote, decision === 'allow');
    this.#forgetRefusals(vote);

    // The verdict of the heaviest member that voted for the decision speaks for all.
    let representative: Verdict | undefined;
    let representativeWeight = -1;
    verdicts.forEach((verdict, index) => {
      const weight = this.#members[index]?.weight ?? 0;
      if (verdict.decision === decision && weight > representativeWeight) {
        representative = verdict;
        representativeWeight = weight;
      }
    });
    const base = representative ?? verdicts[0];
    const status = this.status();
    const verdict: MajorityVerdict = {
      decision,
      ...(decision === 'revise' ? { severity: base?.severity ?? 'hard' } : {}),
      reasons: base?.reasons ?? [],
      performs: base?.performs ?? [],
      achieved: base?.achieved ?? {},
      done: status.done,
      feedback: base?.feedback ?? '',
      ...(base?.roadmap !== undefined ? { roadmap: base.roadmap } : {}),
      votes,
    };
    return this.#record(input, verdict);
  }

  #record(input: unknown, verdict: MajorityVerdict): MajorityVerdict {
    this.#proposals++;
    const label = field(input, 'label');
    this.#push(new ProposeEntry(typeof label === 'string' ? label : undefined, verdict));
    return verdict;
  }

  /** History is capped like a session's (trimmed in batches so the cost per entry stays constant). */
  #push(entry: HistoryEntry): void {
    appendBounded(this.#history, entry, this.#historyLimit);
  }

  /** Applies an observation to every member. */
  observe(input: unknown): ObservationResult {
    const copy = snapshot(input);
    const results = this.#members.map((member) => {
      member.operations.push({ kind: 'observe', input: copy });
      return member.session.observe(copy);
    });
    const valid =
      results.find((_, index) => this.#members[index]?.spec !== undefined) ?? results[0];
    this.#push({ kind: 'observe', ok: valid?.ok ?? true });
    return {
      ok: valid?.ok ?? true,
      problems: valid?.problems ?? [],
      ignored: valid?.ignored ?? [],
      status: this.status(),
    };
  }

  /**
   * Answers the `confirm` of call `callId`, or the latest proposal's: approval applies the
   * proposal to every member, denial to none.
   */
  resolve(approved: boolean, callId?: string): ResolutionResult {
    this.#lastCommit = undefined;
    const vote = this.#waiting.take(callIdOf(callId));
    if (!vote) {
      return {
        ok: false,
        committed: false,
        message: 'No proposal is waiting for approval.',
        status: this.status(),
      };
    }
    if (approved === true && this.#finished) {
      // A call still waiting when the task ended runs no more.
      this.#settle(vote, false);
      this.#push({ kind: 'resolve', approved: true, committed: false });
      const refused = finishedVerdict();
      return {
        ok: false,
        committed: false,
        message: `The session is over; nothing was committed. ${refused.feedback}`,
        verdict: refused,
        status: this.status(),
      };
    }
    const committed = approved === true;
    this.#settle(vote, committed);
    this.#push({ kind: 'resolve', approved: committed, committed });
    return {
      ok: true,
      committed,
      message: committed ? 'Approved and committed.' : 'Denied; nothing was committed.',
      status: this.status(),
    };
  }

  /**
   * `done` when members holding a strict majority of the votes say so; objectives
   * achieved as the heaviest valid spec counts them.
   */
  status(): SessionStatus {
    const total = this.#members.reduce((sum, member) => sum + member.weight, 0);
    const doneWeight = this.#members.reduce(
      (sum, member) => sum + (member.session.status().done ? member.weight : 0),
      0,
    );
    const leader = this.#leader();
    return {
      done: doneWeight * 2 > total,
      finished: this.#finished,
      ...(this.#asked ? { asked: true } : {}),
      achieved: leader ? leader.session.status().achieved : {},
      pending: this.#waiting.size > 0,
      proposals: this.#proposals,
    };
  }

  /** The roadmap of the heaviest valid spec. */
  roadmap(): string {
    return this.#leader()?.session.roadmap() ?? 'There is no valid spec for this task.';
  }

  #leader(): Member | undefined {
    let leader: Member | undefined;
    for (const member of this.#members) {
      if (member.spec !== undefined && (!leader || member.weight > leader.weight)) leader = member;
    }
    return leader;
  }

  #createSession(spec: Spec | undefined): IntentSession {
    return spec === undefined
      ? new NoSpecSession(undefined, { historyLimit: this.#historyLimit })
      : new Session(spec, this.#options);
  }

  /** The number of the vote the latest `propose` or `resolve` committed, if it did. */
  lastCommit(): number | undefined {
    return this.#lastCommit;
  }

  /**
   * Undoes a committed vote whose tool call failed: every member is rebuilt from its own
   * operations without that vote's (the proposal it allowed or approved, or the updates it
   * took as an observation). The operations are kept anyway, so this needs no option.
   */
  rollback(commit: number): boolean {
    if (!this.#commits.delete(commit)) return false;
    for (const member of this.#members) {
      const kept = member.operations.filter((operation) => operation.vote !== commit);
      if (kept.length === member.operations.length) continue;
      member.operations = kept;
      this.#rebuild(member);
    }
    return true;
  }

  /** Brings every member in line with the outcome of a vote: applied (`commit`) or not. */
  #settle(vote: PendingVote, commit: boolean): void {
    if (commit) {
      this.#lastCommit = vote.number;
      this.#commits.add(vote.number);
      if (this.#commits.size > this.#maxCommits) {
        const oldest = this.#commits.values().next();
        if (!oldest.done) this.#commits.delete(oldest.value);
      }
    }
    if (commit && vote.finish) {
      this.#finished = true;
      if (typeof field(vote.input, 'ask') === 'string') this.#asked = true;
    }
    this.#members.forEach((member, index) => {
      const own = vote.decisions[index];
      if (!own || member.spec === undefined) return;
      if (own === 'confirm') {
        member.operations.push({
          kind: 'resolve',
          approved: commit,
          id: vote.id,
          vote: vote.number,
        });
        member.session.resolve(commit, vote.id);
      } else if (own === 'allow' && !commit) {
        this.#drop(member, vote.number);
        this.#rebuild(member);
      } else if ((own === 'revise' || own === 'reject') && commit) {
        // The action runs anyway: this member sees its effects, but achieves nothing by it.
        const updates = field(vote.input, 'updates');
        if (updates !== undefined) {
          const observation = { updates };
          member.operations.push({ kind: 'observe', input: observation, vote: vote.number });
          member.session.observe(observation);
        }
      }
    });
  }

  /** Removes a vote's proposal from a member's operations. */
  #drop(member: Member, vote: number): void {
    const index = member.operations.findIndex(
      (operation) => operation.kind === 'propose' && operation.vote === vote,
    );
    if (index >= 0) member.operations.splice(index, 1);
  }

  /**
   * Drops the proposals a member refused and that stay refused: they committed nothing,
   * so a rebuild does not need them, and an agent that sends a million refused
   * proposals must not grow every member's log (a rebuilt member only forgets their
   * refusal memos, which errs toward refusing again).
   */
  #forgetRefusals(vote: PendingVote): void {
    this.#members.forEach((member, index) => {
      const own = vote.decisions[index];
      if (own === 'revise' || own === 'reject') this.#drop(member, vote.number);
    });
  }

  /** Replays a member's own operations on a fresh session: deterministic, so the state is exact. */
  #rebuild(member: Member): void {
    const session = this.#createSession(member.spec);
    for (const operation of member.operations) {
      if (operation.kind === 'propose') session.propose(operation.input, operation.id);
      else if (operation.kind === 'observe') session.observe(operation.input);
      else session.resolve(operation.approved, operation.id);
    }
    member.session = session;
  }
}

function finishedVerdict(): MajorityVerdict {
  return {
    decision: 'reject',
    reasons: [sessionFinishedReason],
    performs: [],
    achieved: {},
    done: true,
    feedback: sessionFinishedReason.message,
    votes: { allow: 0, confirm: 0, revise: 0, reject: 1 },
  };
}

/** Creates a `MajoritySession`; see there. */
export function createMajoritySession(
  specs: readonly (Spec | undefined)[],
  options: SessionOptions = {},
): MajoritySession {
  return new MajoritySession(specs, options);
}
