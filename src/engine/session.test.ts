import { describe, expect, it } from 'vitest';
import {
  action,
  fixedNow,
  readShared,
  schemaOf,
  specOf,
  state,
  tool,
} from '../../test/engine/fixtures.js';
import type { PredicateDeclaration } from '../language/index.js';
import { loadStateSchema, loadToolSchema } from '../schema/index.js';
import { explainSpec } from './explain.js';
import type { SessionOptions } from './session.js';
import { createSession, type Session } from './session-all-parts.js';

const restaurantSchema = loadStateSchema(readShared('examples/restaurant/states.json')).value!;
const restaurantSpec = specOf(readShared('examples/restaurant/spec.intent'), restaurantSchema);
const bankSchema = loadToolSchema(readShared('examples/bank-transfer/tools.json')).value!;
const bankSpec = specOf(readShared('examples/bank-transfer/spec.intent'), bankSchema);

function session(
  text: string,
  predicates: readonly (PredicateDeclaration | readonly PredicateDeclaration[])[],
  options: SessionOptions = {},
): Session {
  return createSession(specOf(text, schemaOf(...predicates)), { now: fixedNow, ...options });
}

describe('status and history', () => {
  it('bounds the history to the newest entries, keeping the proposal count', () => {
    const bank = createSession(bankSpec, { now: fixedNow, historyLimit: 10 });
    for (let index = 0; index < 3000; index++) {
      bank.propose({ action: { name: 'BankCheckBalance' }, label: `look ${index}` });
    }
    expect(bank.history.length).toBeGreaterThanOrEqual(10);
    expect(bank.history.length).toBeLessThan(10 + 1024);
    const last = bank.history[bank.history.length - 1];
    expect(last).toMatchObject({ kind: 'propose', label: 'look 2999' });
    expect(bank.status().proposals).toBe(3000);
  });

  it('gives verdicts and history entries as plain objects, their fields in the documented order', () => {
    const bank = createSession(bankSpec, { now: fixedNow });
    const allowed = bank.propose({ action: { name: 'BankCheckBalance' } });
    const refused = bank.propose({ finish: true });
    for (const verdict of [allowed, refused]) {
      expect(Object.getPrototypeOf(verdict)).toBe(Object.prototype);
      expect(verdict.constructor).toBe(Object);
    }
    expect(Object.keys(allowed)).toEqual([
      'decision',
      'reasons',
      'performs',
      'achieved',
      'done',
      'feedback',
    ]);
    expect(Object.keys(refused)).toEqual([
      'decision',
      'severity',
      'reasons',
      'performs',
      'achieved',
      'done',
      'feedback',
      'roadmap',
    ]);
    const entry = bank.history[0]!;
    expect(Object.getPrototypeOf(entry)).toBe(Object.prototype);
    expect(entry).toStrictEqual({ kind: 'propose', label: undefined, verdict: allowed });
  });

  it('records every event and counts proposals', () => {
    const bank = createSession(bankSpec, { now: fixedNow });
    expect(bank.status()).toEqual({
      done: false,
      finished: false,
      achieved: {},
      pending: false,
      proposals: 0,
    });
    bank.propose({ action: { name: 'BankCheckBalance' }, label: 'look' });
    bank.observe({ updates: { BankCheckBalanceResult: { balance: 1500 } } });
    bank.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } });
    bank.resolve(false);
    bank.observe('not an observation');
    expect(bank.history.map((entry) => entry.kind)).toEqual([
      'propose',
      'observe',
      'propose',
      'resolve',
      'observe',
    ]);
    expect(bank.history[0]).toMatchObject({
      kind: 'propose',
      label: 'look',
      verdict: { decision: 'allow' },
    });
    expect(bank.history[3]).toEqual({ kind: 'resolve', approved: false, committed: false });
    expect(bank.history[4]).toEqual({ kind: 'observe', ok: false });
    expect(bank.status()).toEqual({
      done: false,
      finished: false,
      achieved: { BalanceKnown: 1 },
      pending: false,
      proposals: 2,
    });
  });

  it('answers an allowed proposal with the objectives it performed and their counts', () => {
    const bank = createSession(bankSpec, { now: fixedNow });
    expect(bank.propose({ action: { name: 'BankCheckBalance' } })).toEqual({
      decision: 'allow',
      reasons: [],
      performs: ['BalanceKnown'],
      achieved: { BalanceKnown: 1 },
      done: false,
      feedback: 'Allowed.',
    });
    expect(bank.propose({})).toEqual({
      decision: 'allow',
      reasons: [],
      performs: [],
      achieved: {},
      done: false,
      feedback: 'Allowed.',
    });
  });

  it('keeps sessions over the same spec independent', () => {
    const first = createSession(bankSpec, { now: fixedNow });
    const second = createSession(bankSpec, { now: fixedNow });
    first.propose({ action: { name: 'BankCheckBalance' } });
    expect(first.status().achieved).toEqual({ BalanceKnown: 1 });
    expect(second.status().achieved).toEqual({});
    expect(second.propose({ action: { name: 'BankCheckBalance' } }).decision).toBe('allow');
  });
});

describe('observations', () => {
  it('can make Done hold (the "do nothing" branch)', () => {
    const restaurant = createSession(restaurantSpec, { now: fixedNow });
    restaurant.observe({
      updates: { RestaurantInfo: { name: 'R' }, ReserveInfo: { date: 'today', time: '18:30' } },
    });
    expect(restaurant.status().done).toBe(false);
    const result = restaurant.observe({ updates: { ReserveInfo: { available: false } } });
    expect(result).toMatchObject({ ok: true, problems: [], ignored: [], status: { done: true } });
    expect(restaurant.propose({ finish: true })).toMatchObject({
      decision: 'allow',
      done: true,
      feedback: 'The task is done.',
    });
    expect(restaurant.status().finished).toBe(true);
  });

  it('applies all or nothing, and lists what it ignored', () => {
    const restaurant = createSession(restaurantSpec, { now: fixedNow });
    const bad = restaurant.observe({
      updates: { RestaurantInfo: { name: 'R' }, ReserveInfo: { time: 'late' } },
    });
    expect(bad.ok).toBe(false);
    expect(bad.problems.map((problem) => problem.message)).toEqual([
      'ReserveInfo.time: "late" is not a time (expected HH:MM)',
    ]);
    // RestaurantInfo was not applied either.
    expect(
      restaurant
        .propose({ objective: 'Reserve' })
        .reasons.map((reason) => [reason.predicate, reason.variable, reason.actual]),
    ).toContainEqual(['RestaurantInfo', 'name', 'unobserved']);
    const lenient = restaurant.observe({
      updates: { RestaurantInfo: { name: 'R', rating: 5 }, Weather: { sunny: true } },
    });
    expect(lenient.ok).toBe(true);
    expect(lenient.ignored.map((problem) => problem.message)).toEqual([
      "RestaurantInfo has no variable 'rating'",
      "unknown predicate 'Weather'",
    ]);
  });

  it('replaces a tool result as a whole: a field the new result lacks is no longer observed', () => {
    const search = session(
      'Search() -> Searched\nSearched & SearchResult(count >= 1, first != "") -> Done',
      [tool('Search', {}, { count: 'number', first: 'text' })],
    );
    search.propose({ action: { name: 'Search' } });
    search.observe({ updates: { SearchResult: { count: 2, first: 'a' } } });
    expect(search.status().done).toBe(true);
    search.observe({ updates: { SearchResult: { count: 3 } } });
    expect(search.status().done).toBe(false);
    const finish = search.propose({ finish: true });
    expect(finish.reasons).toContainEqual(
      expect.objectContaining({ variable: 'first', actual: 'unobserved' }),
    );
  });

  it('does not cancel a pending confirmation', () => {
    const bank = createSession(bankSpec, { now: fixedNow });
    bank.propose({ action: { name: 'BankCheckBalance' } });
    bank.observe({ updates: { BankCheckBalanceResult: { balance: 2000 } } });
    expect(
      bank.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } })
        .decision,
    ).toBe('confirm');
    bank.observe({ updates: { BankCheckBalanceResult: { balance: 1999 } } });
    expect(bank.status().pending).toBe(true);
    expect(bank.resolve(true).committed).toBe(true);
  });
});

describe('Done', () => {
  it('holds whenever some Done rule fires now, and stops holding when the state changes', () => {
    const form = session('Form(ok = true) -> Done', [state('Form', { ok: 'boolean' })]);
    form.observe({ updates: { Form: { ok: true } } });
    expect(form.status().done).toBe(true);
    form.observe({ updates: { Form: { ok: false } } });
    expect(form.status().done).toBe(false);
    expect(form.propose({ finish: true }).decision).toBe('revise');
  });

  it('holds from the start for an empty body', () => {
    const trivial = session('true -> Done', [state('Form', { ok: 'boolean' })]);
    expect(trivial.status().done).toBe(true);
    expect(trivial.propose({ finish: true }).decision).toBe('allow');
  });

  it('needs every part of a conjunctive goal, in one branch', () => {
    const clock = session(
      'Timer(on = true) -> Started\nAlarm(hour = 3) -> AlarmSet\nStarted & AlarmSet -> Done',
      [state('Timer', { on: 'boolean' }), state('Alarm', { hour: 'number' })],
    );
    clock.propose({ updates: { Alarm: { hour: 3 } }, objective: 'AlarmSet' });
    expect(clock.status().done).toBe(false);
    expect(clock.propose({ updates: { Timer: { on: true } }, objective: 'Started' }).done).toBe(
      true,
    );
  });

  it('is never inferred from state alone: objectives need a committed proposal', () => {
    const form = session('Form(ok = true) -> Filled\nFilled -> Done', [
      state('Form', { ok: 'boolean' }),
    ]);
    form.observe({ updates: { Form: { ok: true } } });
    expect(form.status()).toMatchObject({ done: false, achieved: {} });
    expect(form.propose({ objective: 'Filled' })).toMatchObject({
      decision: 'allow',
      achieved: { Filled: 1 },
      done: true,
    });
  });

  it('is judged again when a count condition turns, at every count and in both directions', () => {
    // Each Done rule's condition turns at another count; between turns a commit leaves it as it was.
    const cases: readonly [string, readonly boolean[]][] = [
      ['Paid = 1', [false, true, false, false]],
      ['Paid != 1', [true, false, true, true]],
      ['Paid < 2', [true, true, false, false]],
      ['Paid >= 2', [false, false, true, true]],
      ['not Paid', [true, false, false, false]],
      ['Paid & Form(ok = true)', [false, false, false, true]],
    ];
    for (const [body, expected] of cases) {
      const shop = session(`@repeat\nPay(amount > 0) -> Paid\n${body} -> Done`, [
        action('Pay', { amount: 'number' }),
        state('Form', { ok: 'boolean' }),
      ]);
      const seen = [shop.status().done];
      for (const amount of [1, 2]) {
        seen.push(shop.propose({ action: { name: 'Pay', args: { amount } } }).done);
      }
      shop.observe({ updates: { Form: { ok: true } } });
      seen.push(shop.status().done);
      expect({ body, seen }).toEqual({ body, seen: expected });
    }
  });
});

describe('constraints on the state', () => {
  it('are false on an unobserved variable, even when negated', () => {
    const form = session('Form(name != "x") -> Done', [
      state('Form', { name: 'text', size: 'number' }),
    ]);
    form.observe({ updates: { Form: { size: 1 } } });
    expect(form.status().done).toBe(false);
    form.observe({ updates: { Form: { name: 'y' } } });
    expect(form.status().done).toBe(true);
    form.observe({ updates: { Form: { name: null } } });
    expect(form.status().done).toBe(false);
  });

  it('P() holds once P has been observed at all', () => {
    const form = session('Form() -> Done', [state('Form', { name: 'text' })]);
    expect(form.status().done).toBe(false);
    form.observe({ updates: { Form: {} } });
    expect(form.status().done).toBe(true);
    form.observe({ updates: [{ predicate: 'Form', op: 'delete' }] });
    expect(form.status().done).toBe(false);
  });

  it('resolve today against the session clock when it starts', () => {
    const tomorrow = createSession(restaurantSpec, { now: '2025-03-15T09:00' });
    tomorrow.observe({
      updates: {
        RestaurantInfo: { name: 'R' },
        ReserveInfo: { date: '2025-03-14', time: '18:00', available: false },
      },
    });
    expect(tomorrow.status().done).toBe(false);
    tomorrow.observe({ updates: { ReserveInfo: { date: 'today' } } });
    expect(tomorrow.status().done).toBe(true);
  });

  it('read observed instants in the session time zone, and refuse other offsets in proposals', () => {
    const restaurant = createSession(restaurantSpec, {
      now: '2025-03-14T12:00',
      timeZone: 'America/New_York',
    });
    // A proposal's argument is what the tool reads: 22:30Z could be read as 22:30.
    const proposed = restaurant.propose({
      updates: { ReserveInfo: { date: '2025-03-14', time: '2025-03-14T22:30:00Z' } },
    });
    expect(proposed.reasons[0]?.code).toBe('invalid-proposal');
    expect(proposed.feedback).toContain('has the offset Z');
    // An observation reports an instant: 22:30 UTC is 18:30 in New York, before 19:00.
    restaurant.observe({
      updates: {
        RestaurantInfo: { name: 'R' },
        ReserveInfo: { date: '2025-03-14', time: '2025-03-14T22:30:00Z', available: false },
      },
    });
    expect(restaurant.status().done).toBe(true);
  });
});

describe('keyed multi-instance predicates', () => {
  const alarms = () =>
    session('Alarm(hour = 7, on = true) -> Done', [
      state('Alarm', { id: 'text', hour: 'number', on: 'boolean' }, { keys: ['id'] }),
    ]);

  it('need a single instance that satisfies every constraint of the pattern', () => {
    const clock = alarms();
    clock.observe({
      updates: {
        Alarm: [
          { id: 'a', hour: 7, on: false },
          { id: 'b', hour: 8, on: true },
        ],
      },
    });
    expect(clock.status().done).toBe(false);
    clock.propose({
      updates: [{ predicate: 'Alarm', op: 'update', values: { id: 'b', hour: 7 } }],
    });
    expect(clock.status().done).toBe(true);
  });

  it('keep instances apart by key, and forget a deleted one', () => {
    const clock = alarms();
    clock.observe({
      updates: {
        Alarm: [
          { id: 'a', hour: 7, on: true },
          { id: 'b', hour: 9 },
        ],
      },
    });
    expect(clock.status().done).toBe(true);
    clock.observe({ updates: [{ predicate: 'Alarm', op: 'delete', values: { id: 'A' } }] });
    expect(clock.status().done).toBe(false);
    const missing = clock.propose({
      updates: [{ predicate: 'Alarm', op: 'update', values: { id: 'a', on: true } }],
    });
    expect(missing.reasons[0]).toMatchObject({
      code: 'invalid-proposal',
      message: 'Alarm has no instance with that key to update.',
    });
  });
});

describe('performing objectives', () => {
  it('performs by action name, or a gesture by declared objective — never both (S1)', () => {
    const shop = session('Pay(amount <= 10) -> Paid\nForm(ok = true) -> Paid\nPaid -> Done', [
      action('Pay', { amount: 'number' }),
      state('Form', { ok: 'boolean' }),
    ]);
    expect(shop.propose({ action: { name: 'Pay', args: { amount: 20 } } })).toMatchObject({
      decision: 'revise',
      performs: ['Paid'],
      reasons: [{ code: 'unmet-conditions', rule: 'R1', variable: 'amount' }],
    });
    shop.observe({ updates: { Form: { ok: true } } });
    // Declaring the objective narrows the action's own rules; the Form rule cannot carry it.
    expect(
      shop.propose({ objective: 'Paid', action: { name: 'Pay', args: { amount: 20 } } }),
    ).toMatchObject({
      decision: 'revise',
      reasons: [{ code: 'unmet-conditions', rule: 'R1', variable: 'amount' }],
    });
    // Without an action the declared objective performs its action-less rule.
    expect(shop.propose({ objective: 'Paid' })).toMatchObject({
      decision: 'allow',
      performs: ['Paid'],
      achieved: { Paid: 1 },
    });
  });

  it('does not let an action be justified by a rule that does not mention it', () => {
    const shop = session('Pay(amount <= 10) -> Paid\nForm(ok = true) -> Paid\nPaid -> Done', [
      action('Pay', { amount: 'number' }),
      state('Form', { ok: 'boolean' }),
    ]);
    shop.observe({ updates: { Form: { ok: true } } });
    expect(shop.propose({ action: { name: 'Pay', args: { amount: 20 } } }).decision).toBe('revise');
  });

  it('adds one per firing rule of the head on commit (LANGUAGE.md §5.2)', () => {
    const votes = session(
      '@repeat\nVote() -> Voted\n@repeat\nVote(weight >= 2) -> Voted\nVoted >= 3 -> Done',
      [action('Vote', { weight: 'number' })],
    );
    expect(votes.propose({ action: { name: 'Vote', args: { weight: 1 } } }).achieved).toEqual({
      Voted: 1,
    });
    expect(votes.propose({ action: { name: 'Vote', args: { weight: 2 } } }).achieved).toEqual({
      Voted: 3,
    });
    expect(votes.status().done).toBe(true);
  });

  it('counts objectives for count atoms (Upvote >= 3)', () => {
    const forum = session('@repeat\nUpvoteButton() -> Upvote\nUpvote >= 3 -> Done', [
      action('UpvoteButton', { post: 'text' }),
    ]);
    for (const post of ['a', 'b'])
      forum.propose({ action: { name: 'UpvoteButton', args: { post } } });
    const early = forum.propose({ finish: true });
    expect(early.reasons[1]).toMatchObject({
      code: 'unmet-conditions',
      objective: 'Upvote',
      expected: '>= 3',
      actual: '2',
      message:
        'Upvote must have been achieved >= 3 times; so far 2. To achieve it: call UpvoteButton.',
    });
    expect(forum.propose({ action: { name: 'UpvoteButton', args: { post: 'c' } } })).toMatchObject({
      achieved: { Upvote: 3 },
      done: true,
    });
    expect(forum.roadmap()).toContain(
      '1. Upvote (R1, may be repeated): call UpvoteButton — achieved 3 times.',
    );
  });

  it('limits @repeat(n) per rule, and @repeat(1) still lets a rule perform a head another rule achieved', () => {
    const steps = session('Go() -> Moved\n@repeat(1)\nJump() -> Moved\nMoved -> Done', [
      action('Go'),
      action('Jump'),
    ]);
    expect(steps.propose({ action: { name: 'Go' } }).achieved).toEqual({ Moved: 1 });
    expect(steps.propose({ action: { name: 'Go' } }).reasons[0]?.code).toBe('already-achieved');
    expect(steps.propose({ action: { name: 'Jump' } })).toMatchObject({
      decision: 'allow',
      achieved: { Moved: 2 },
    });
    expect(steps.propose({ action: { name: 'Jump' } }).reasons[0]?.code).toBe('already-achieved');
  });

  it('treats an action as an event: it holds only for the proposal that carries it', () => {
    const chain = session(
      'Search(query = "x") -> Found\nFound & Open() -> Opened\nOpened -> Done',
      [action('Search', { query: 'text' }), action('Open')],
    );
    expect(chain.propose({ action: { name: 'Search', args: { query: 'x' } } }).decision).toBe(
      'allow',
    );
    const declared = chain.propose({ objective: 'Opened' });
    expect(declared.reasons[0]).toMatchObject({ expected: 'Open', actual: 'no action' });
    expect(chain.propose({ action: { name: 'Open' } }).decision).toBe('allow');
  });

  it('commits an overruled already-achieved refusal as a further performance', () => {
    const bank = createSession(bankSpec, { now: fixedNow, escalateAfter: 1 });
    bank.propose({ action: { name: 'BankCheckBalance' } });
    bank.propose({ action: { name: 'BankCheckBalance' } });
    expect(bank.propose({ action: { name: 'BankCheckBalance' } }).reasons[0]?.code).toBe(
      'repeated-violation',
    );
    bank.resolve(true);
    expect(bank.status().achieved).toEqual({ BalanceKnown: 2 });
  });
});

describe('candidate actions for a missing precondition', () => {
  it('lists the actions of the rules that achieve a missing objective, or their bodies when they have none', () => {
    const flow = session(
      'Search(query = "x") -> Found\nForm(ok = true) -> Found\nFound & Open() -> Opened\nOpened -> Done',
      [action('Search', { query: 'text' }), action('Open'), state('Form', { ok: 'boolean' })],
    );
    const verdict = flow.propose({ action: { name: 'Open' } });
    expect(verdict.reasons[0]).toMatchObject({
      objective: 'Found',
      candidates: [
        'call Search with query equal to "x"',
        'achieve Found (Form with ok equal to true)',
      ],
    });
    expect(verdict.reasons[0]?.message).toBe(
      'Found must be achieved first; it has not been. To achieve it: call Search with query equal to "x" or achieve Found (Form with ok equal to true).',
    );
  });

  it('lists the tool whose result a missing state holds', () => {
    const search = session(
      'Lookup() -> Looked\nLooked & LookupResult(hits > 0) & Open() -> Opened\nOpened -> Done',
      [tool('Lookup', {}, { hits: 'number' }), action('Open')],
    );
    search.propose({ action: { name: 'Lookup' } });
    const verdict = search.propose({ action: { name: 'Open' } });
    expect(verdict.reasons).toEqual([
      expect.objectContaining({
        predicate: 'LookupResult',
        variable: 'hits',
        actual: 'unobserved',
        candidates: ['call Lookup'],
      }),
    ]);
  });
});

describe('soft deviations', () => {
  it('accept only the identical step again; a different value is refused softly once more', () => {
    const form = session('Form(size = 30) -> Sized\nSized -> Done', [
      state('Form', { size: 'number' }),
    ]);
    expect(form.propose({ updates: { Form: { size: 3 } } }).severity).toBe('soft');
    expect(form.propose({ updates: { Form: { size: 300 } } }).severity).toBe('soft');
    expect(form.propose({ updates: { Form: { size: '3' } }, label: 'typing' }).decision).toBe(
      'allow',
    );
    expect(form.propose({ updates: { Form: { size: 300 } } }).decision).toBe('allow');
    expect(form.propose({ updates: { Form: { size: 30 } } }).decision).toBe('allow');
  });
});

describe('roadmap', () => {
  it('lists the steps, the ways to finish and the progress', () => {
    const bank = createSession(bankSpec, { now: fixedNow });
    const start = bank.roadmap();
    expect(start.split('\n')[0]).toBe('Roadmap:');
    expect(start).toContain('1. BalanceKnown (R1): call BankCheckBalance — not yet.');
    expect(start).toContain(
      `2. Transferred (R2, needs the user's approval): BalanceKnown; BankCheckBalanceResult with balance greater than 1000; then call BankTransfer with to equal to "Alice" and amount equal to 500 — not yet.`,
    );
    expect(start).toContain('Finish when any of these holds:');
    expect(start).toContain('a) Transferred (R3)');
    expect(start).toContain(
      'b) BalanceKnown; BankCheckBalanceResult with balance at most 1000 (R4)',
    );
    expect(start.endsWith('So far nothing has been achieved.')).toBe(true);
    bank.propose({ action: { name: 'BankCheckBalance' } });
    bank.observe({ updates: { BankCheckBalanceResult: { balance: 100 } } });
    const later = bank.roadmap();
    expect(later).toContain('1. BalanceKnown (R1): call BankCheckBalance — achieved.');
    expect(later).toContain('(R4, holds now)');
    expect(later.endsWith('So far you have achieved step 1 (BalanceKnown).')).toBe(true);
  });
});

describe('determinism', () => {
  it('gives identical verdicts for the same trace', () => {
    const run = () => {
      const bank = createSession(bankSpec, { now: fixedNow });
      const verdicts = [
        bank.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } }),
        bank.propose({ finish: true }),
        bank.propose({ action: { name: 'BankCheckBalance' } }),
      ];
      bank.observe({ updates: { BankCheckBalanceResult: { balance: 1500 } } });
      verdicts.push(
        bank.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount: 900 } } }),
      );
      verdicts.push(
        bank.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } }),
      );
      bank.resolve(true);
      verdicts.push(bank.propose({ finish: true }));
      return JSON.stringify({ verdicts, status: bank.status(), roadmap: bank.roadmap() });
    };
    expect(run()).toBe(run());
  });
});

describe('explainSpec', () => {
  it('states the plan in plain language', () => {
    const explanation = explainSpec(bankSpec, { now: fixedNow });
    expect(explanation.steps.map((step) => [step.id, step.head])).toEqual([
      ['R1', 'BalanceKnown'],
      ['R2', 'Transferred'],
    ]);
    expect(explanation.steps[1]?.confirm).toBe(
      'financial: Confirm the transfer details with the user',
    );
    expect(explanation.finish.map((rule) => rule.id)).toEqual(['R3', 'R4']);
    expect(explanation.refused).toEqual([
      'BankTransfer with amount greater than 500 — never move more than the user asked for',
    ]);
    expect(explanation.approval).toEqual([]);
    expect(explanation.text).toContain(
      'Always refused:\n- BankTransfer with amount greater than 500',
    );
    expect(explanation.text).toContain(
      'Any other action marked critical (irreversible or sensitive) is refused as not part of the plan.',
    );
  });

  it('resolves relative dates against the clock it is given', () => {
    const explanation = explainSpec(restaurantSpec, { now: '2025-03-14T08:00' });
    expect(explanation.steps[0]?.needs).toContain('date equal to 2025-03-14 (today)');
    expect(explanation.finish).toHaveLength(2);
  });
});
