import { afterAll, describe, expect, it } from 'vitest';
import {
  createSession,
  internalErrorVerdict,
  NoSpecSession,
  type ReasonCode,
  reasonCodes,
  reasonDecisions,
  type Session,
  type SessionOptions,
  type Verdict,
} from '../../src/engine/index.js';
import { checkPolicy, type Schema } from '../../src/language/index.js';
import { loadStateSchema, loadToolSchema } from '../../src/schema/index.js';
import { action, fixedNow, readShared, schemaOf, specOf, state } from './fixtures.js';

/**
 * One or more test cases for every verdict reason code (STYLE.md §2: a test fails if a
 * code has no test case). Each case is registered under its code; the last test checks
 * that the catalog and the cases agree.
 */
const cases = new Map<ReasonCode, string[]>();

function caseFor(code: ReasonCode, name: string, body: () => void): void {
  const names = cases.get(code) ?? [];
  names.push(name);
  cases.set(code, names);
  it(`${code}: ${name}`, body);
}

/** The verdict is decided by `code`: its first reason, and the decision the catalog gives it. */
function expectDecidedBy(verdict: Verdict, code: ReasonCode): void {
  expect(verdict.reasons[0]?.code, verdict.feedback).toBe(code);
  const { decision, severity } = reasonDecisions[code];
  expect(verdict.decision).toBe(decision);
  expect(verdict.severity).toBe(severity);
}

function unwrapSchema(result: {
  ok: boolean;
  value?: Schema | undefined;
  diagnostics: readonly unknown[];
}): Schema {
  if (!result.ok || !result.value) throw new Error(JSON.stringify(result.diagnostics));
  return result.value;
}

const bankTools = unwrapSchema(loadToolSchema(readShared('examples/bank-transfer/tools.json')));
const bankSchema = schemaOf(
  [...bankTools.predicates.values()],
  action('DeleteAccount', {}, { critical: true, description: 'Closes the account for good.' }),
  action('SendMessage', { to: 'text', body: 'text' }),
  state('Account', { status: 'enum[open, frozen, closed]', note: 'text' }),
);
const bankText = readShared('examples/bank-transfer/spec.intent');
const bankSpec = specOf(bankText, bankSchema);

const restaurantSchema = unwrapSchema(
  loadStateSchema(readShared('examples/restaurant/states.json')),
);
const restaurantSpec = specOf(readShared('examples/restaurant/spec.intent'), restaurantSchema);

function bank(options: SessionOptions = {}): Session {
  return createSession(bankSpec, { now: fixedNow, ...options });
}

function restaurant(options: SessionOptions = {}): Session {
  return createSession(restaurantSpec, { now: fixedNow, ...options });
}

const checkBalance = { action: { name: 'BankCheckBalance', args: {} } };
const transfer = (to: string, amount: number) => ({
  action: { name: 'BankTransfer', args: { to, amount } },
});

function bankWithBalance(balance: number, options: SessionOptions = {}): Session {
  const session = bank(options);
  expect(session.propose(checkBalance).decision).toBe('allow');
  expect(session.observe({ updates: { BankCheckBalanceResult: { balance } } }).ok).toBe(true);
  return session;
}

function restaurantReady(time: string, available: boolean): Session {
  const session = restaurant();
  session.observe({
    updates: {
      RestaurantInfo: { name: 'R' },
      ReserveInfo: { date: '2025-03-14', time, available },
    },
  });
  return session;
}

describe('unmet-conditions', () => {
  caseFor(
    'unmet-conditions',
    'lists each unmet precondition with expected and actual values and candidate actions',
    () => {
      const verdict = bank().propose(transfer('Alice', 500));
      expectDecidedBy(verdict, 'unmet-conditions');
      expect(verdict.performs).toEqual(['Transferred']);
      expect(verdict.achieved).toEqual({ Transferred: 0 });
      expect(verdict.reasons).toEqual([
        {
          code: 'unmet-conditions',
          rule: 'R2',
          objective: 'BalanceKnown',
          expected: '>= 1',
          actual: '0',
          candidates: ['call BankCheckBalance'],
          message:
            'BalanceKnown must be achieved first; it has not been. To achieve it: call BankCheckBalance.',
        },
        {
          code: 'unmet-conditions',
          rule: 'R2',
          predicate: 'BankCheckBalanceResult',
          variable: 'balance',
          expected: '> 1000',
          actual: 'unobserved',
          candidates: ['call BankCheckBalance'],
          message:
            'BankCheckBalanceResult (the result of the last BankCheckBalance call) must have balance greater than 1000; it has not been observed yet. To observe it: call BankCheckBalance.',
        },
      ]);
      expect(verdict.feedback).toBe(
        [
          'To perform Transferred (rule R2):',
          '- BalanceKnown must be achieved first; it has not been. To achieve it: call BankCheckBalance.',
          '- BankCheckBalanceResult (the result of the last BankCheckBalance call) must have balance greater than 1000; it has not been observed yet. To observe it: call BankCheckBalance.',
        ].join('\n'),
      );
      expect(verdict.roadmap).toContain('Roadmap:');
    },
  );

  caseFor(
    'unmet-conditions',
    'names the action argument that does not match, with its value',
    () => {
      const verdict = bankWithBalance(1500).propose(transfer('Bob', 500));
      expectDecidedBy(verdict, 'unmet-conditions');
      expect(verdict.reasons).toEqual([
        {
          code: 'unmet-conditions',
          rule: 'R2',
          predicate: 'BankTransfer',
          variable: 'to',
          expected: '= "Alice"',
          actual: '"Bob"',
          message: 'BankTransfer must be called with to equal to "Alice"; it is "Bob".',
        },
      ]);
    },
  );

  caseFor(
    'unmet-conditions',
    'reports a state value that is too large, with the schema description',
    () => {
      const verdict = bankWithBalance(800).propose(transfer('Alice', 500));
      expectDecidedBy(verdict, 'unmet-conditions');
      expect(verdict.reasons[0]).toMatchObject({
        predicate: 'BankCheckBalanceResult',
        expected: '> 1000',
        actual: '800',
      });
      expect(verdict.feedback).toContain('must have balance greater than 1000; it is 800.');
    },
  );

  caseFor('unmet-conditions', 'says "would be" for a value the proposal itself would set', () => {
    const session = restaurant();
    session.observe({
      updates: {
        RestaurantInfo: { name: 'R' },
        ReserveInfo: { date: '2025-03-14', available: true },
      },
    });
    const verdict = session.propose({
      objective: 'Reserve',
      updates: { ReserveInfo: { time: '20:00' } },
    });
    expectDecidedBy(verdict, 'unmet-conditions');
    expect(verdict.reasons).toHaveLength(1);
    expect(verdict.reasons[0]).toMatchObject({
      rule: 'R1',
      predicate: 'ReserveInfo',
      variable: 'time',
      expected: '< 19:00',
      actual: '20:00',
    });
    expect(verdict.feedback).toBe(
      'To perform Reserve (rule R1):\n- ReserveInfo (reservation details selected on the booking screen) must have time earlier than 19:00; it would be 20:00.',
    );
    // Nothing was committed: the time is still unobserved.
    expect(session.propose({ objective: 'Reserve' }).feedback).toContain(
      'must have time earlier than 19:00; it has not been observed yet.',
    );
  });

  caseFor(
    'unmet-conditions',
    'includes the variable description from the schema and resolves relative dates',
    () => {
      const schema = schemaOf(
        state('Booking', {
          day: { type: 'date', description: 'The day the table is booked for.' },
        }),
        action('Book'),
      );
      const session = createSession(
        specOf('Booking(day = today) & Book() -> Booked\nBooked -> Done', schema),
        { now: fixedNow },
      );
      session.observe({ updates: { Booking: { day: '2025-03-15' } } });
      const verdict = session.propose({ action: { name: 'Book' } });
      expectDecidedBy(verdict, 'unmet-conditions');
      expect(verdict.reasons[0]).toMatchObject({
        expected: '= 2025-03-14 (today)',
        actual: '2025-03-15',
      });
      expect(verdict.reasons[0]?.message).toBe(
        'Booking (the Booking state) must have day equal to 2025-03-14 (today) (day: The day the table is booked for); it is 2025-03-15.',
      );
    },
  );

  caseFor('unmet-conditions', 'reports the closest of several rules for the objective', () => {
    const schema = schemaOf(state('A', { x: 'number', y: 'number' }));
    const session = createSession(
      specOf('A(x = 1, y = 1) -> Goal\nA(x = 2) -> Goal\nGoal -> Done', schema),
      { now: fixedNow },
    );
    session.observe({ updates: { A: { x: 1, y: 2 } } });
    const verdict = session.propose({ objective: 'Goal' });
    expectDecidedBy(verdict, 'unmet-conditions');
    // R1 misses one constraint (y), R2 misses one too (x); the first on ties is reported.
    expect(verdict.reasons.map((reason) => [reason.rule, reason.variable])).toEqual([['R1', 'y']]);
    session.observe({ updates: { A: { x: 3, y: 3 } } });
    expect(
      session
        .propose({ objective: 'Goal' })
        .reasons.map((reason) => [reason.rule, reason.variable]),
    ).toEqual([['R2', 'x']]);
  });

  caseFor(
    'unmet-conditions',
    'tells an agent that declares an objective which action performs it',
    () => {
      const verdict = bankWithBalance(1500).propose({ objective: 'Transferred' });
      expectDecidedBy(verdict, 'unmet-conditions');
      expect(verdict.reasons[0]).toMatchObject({
        predicate: 'BankTransfer',
        expected: 'BankTransfer',
        actual: 'no action',
      });
      expect(verdict.reasons[0]?.message).toBe(
        'This step is done by the action: call BankTransfer with to equal to "Alice" and amount equal to 500; the proposal carries no action.',
      );
    },
  );
});

describe('soft-deviation', () => {
  caseFor(
    'soft-deviation',
    'refuses softly an update that fits no live pattern, and accepts the identical step again',
    () => {
      const session = restaurant();
      session.propose({ updates: { RestaurantInfo: { name: 'R' } } });
      const first = session.propose({
        updates: { ReserveInfo: { date: '2025-03-14', time: '20:00' } },
        label: 'pick 20:00',
      });
      expectDecidedBy(first, 'soft-deviation');
      expect(first.reasons).toEqual([
        {
          code: 'soft-deviation',
          predicate: 'ReserveInfo',
          variable: 'time',
          expected: '< 19:00',
          actual: '20:00',
          rule: 'R1',
          message:
            'ReserveInfo (reservation details selected on the booking screen) would get time = 20:00, but the task needs time earlier than 19:00.',
        },
      ]);
      expect(first.feedback).toContain('propose the same step again and it will be accepted');
      // Nothing was committed by the soft refusal.
      expect(
        session.propose({ objective: 'Reserve' }).reasons.map((reason) => reason.variable),
      ).toContain('date');
      // The identical step (labels are ignored) is then accepted as an intermediate step.
      expect(
        session.propose({
          updates: { ReserveInfo: { time: '8:00 PM', date: 'today' } },
          label: 'again',
        }).decision,
      ).toBe('allow');
    },
  );

  caseFor('soft-deviation', 'lists every alternative the value could have taken', () => {
    const schema = schemaOf(state('A', { x: 'number' }));
    const session = createSession(
      specOf('A(x = 1) -> One\nA(x >= 5) -> Five\nOne & Five -> Done', schema),
      { now: fixedNow },
    );
    const verdict = session.propose({ updates: { A: { x: 3 } } });
    expectDecidedBy(verdict, 'soft-deviation');
    expect(verdict.reasons[0]?.message).toBe(
      'A (the A state) would get x = 3, but the task needs x equal to 1 or x at least 5.',
    );
    expect(session.propose({ updates: { A: { x: 5 } } }).decision).toBe('allow');
    expect(session.propose({ updates: { A: { x: 1 } } }).decision).toBe('allow');
  });

  caseFor(
    'soft-deviation',
    'ignores patterns of achieved objectives, and refuses an update that would undo a holding Done',
    () => {
      const schema = schemaOf(state('A', { x: 'number' }), state('B', { y: 'number' }));
      const session = createSession(specOf('A(x = 1) -> One\nOne & B(y = 2) -> Done', schema), {
        now: fixedNow,
      });
      expectDecidedBy(session.propose({ updates: { A: { x: 2 } } }), 'soft-deviation');
      expect(session.propose({ updates: { A: { x: 1 } } }).decision).toBe('allow');
      expect(session.propose({ objective: 'One' }).decision).toBe('allow');
      // One is achieved (no @repeat), so A.x is no longer constrained by a live rule.
      expect(session.propose({ updates: { A: { x: 7 } } }).decision).toBe('allow');
      expectDecidedBy(session.propose({ updates: { B: { y: 3 } } }), 'soft-deviation');
      expect(session.propose({ updates: { B: { y: 2 } } }).decision).toBe('allow');
      expect(session.status().done).toBe(true);
      const undoing = session.propose({ updates: { B: { y: 9 } } });
      expectDecidedBy(undoing, 'soft-deviation');
      expect(session.status().done).toBe(true);
      // The identical step again passes (it may be intermediate), like every soft refusal.
      expect(session.propose({ updates: { B: { y: 9 } } }).decision).toBe('allow');
      expect(session.status().done).toBe(false);
    },
  );

  caseFor(
    'soft-deviation',
    'refuses an update that fits some Done branch but leaves none holding',
    () => {
      const schema = schemaOf(state('A', { x: 'number' }), state('B', { y: 'number' }));
      const session = createSession(
        specOf('A(x = 1) -> Done\nA(x = 2) & B(y = 5) -> Done', schema),
        { now: fixedNow },
      );
      expect(session.propose({ updates: { A: { x: 1 } } }).decision).toBe('allow');
      expect(session.status().done).toBe(true);
      const verdict = session.propose({ updates: { A: { x: 2 } } });
      expectDecidedBy(verdict, 'soft-deviation');
      expect(verdict.reasons[0]).toMatchObject({ rule: 'R1', variable: 'x', actual: '2' });
      expect(verdict.reasons[0]?.message).toContain('would undo it');
      // Moving to the other branch whole keeps Done holding.
      expect(session.propose({ updates: { A: { x: 2 }, B: { y: 5 } } }).decision).toBe('allow');
      expect(session.status().done).toBe(true);
    },
  );

  caseFor('soft-deviation', 'does not refuse an update that leaves a value as it is', () => {
    const session = restaurantReady('20:00', true);
    expect(
      session.propose({ updates: { ReserveInfo: { time: '20:00', available: true } } }).decision,
    ).toBe('allow');
  });
});

describe('unplanned-change', () => {
  caseFor(
    'unplanned-change',
    'names a setting no rule constrains with its value before and after; a repeat passes',
    () => {
      const schema = schemaOf(
        state('Display', { seconds: 'boolean' }),
        state('Call', { muted: { type: 'boolean', setting: true } }),
      );
      const session = createSession(specOf('Display(seconds = true) -> Done', schema), {
        now: fixedNow,
      });
      expect(session.observe({ updates: { Call: { muted: false } } }).ok).toBe(true);
      const step = { updates: { Display: { seconds: true }, Call: { muted: true } } };
      const verdict = session.propose(step);
      expectDecidedBy(verdict, 'unplanned-change');
      expect(verdict.reasons[0]).toMatchObject({
        predicate: 'Call',
        variable: 'muted',
        expected: 'false',
        actual: 'true',
        message:
          'This step would change the setting muted of Call (the Call state) from false to true, which the task does not ask for; leave it as it is.',
      });
      expect(session.propose(step).decision).toBe('allow');
    },
  );
});

describe('premature-finish', () => {
  caseFor(
    'premature-finish',
    'refuses finish until Done holds, with what each way to finish lacks and the roadmap',
    () => {
      const session = bank();
      const verdict = session.propose({ finish: true });
      expectDecidedBy(verdict, 'premature-finish');
      expect(verdict.reasons[0]).toMatchObject({
        code: 'premature-finish',
        message: 'The task is not done yet.',
      });
      expect(
        verdict.reasons
          .slice(1)
          .map((reason) => [reason.code, reason.rule, reason.objective ?? reason.variable]),
      ).toEqual([
        ['unmet-conditions', 'R3', 'Transferred'],
        ['unmet-conditions', 'R4', 'BalanceKnown'],
        ['unmet-conditions', 'R4', 'balance'],
      ]);
      expect(verdict.feedback.startsWith('The task is not done yet.')).toBe(true);
      expect(verdict.feedback).toContain('Transferred must be achieved first; it has not been.');
      expect(verdict.feedback).toContain(
        'must have balance at most 1000; it has not been observed yet.',
      );
      expect(verdict.roadmap).toContain('So far nothing has been achieved.');
      expect(verdict.performs).toEqual([]);
      expect(session.status().finished).toBe(false);
    },
  );

  caseFor(
    'premature-finish',
    'shows progress in the roadmap: "So far you have achieved step 1"',
    () => {
      const session = bankWithBalance(1500);
      const verdict = session.propose({ finish: true });
      expectDecidedBy(verdict, 'premature-finish');
      expect(verdict.roadmap).toContain('So far you have achieved step 1 (BalanceKnown).');
      expect(verdict.roadmap).toContain('1. BalanceKnown (R1): call BankCheckBalance — achieved.');
    },
  );
});

describe('already-achieved', () => {
  caseFor(
    'already-achieved',
    'refuses performing a non-repeatable objective again (no duplicate payment)',
    () => {
      const session = bankWithBalance(1500);
      expect(session.propose(transfer('Alice', 500)).decision).toBe('confirm');
      expect(session.resolve(true).committed).toBe(true);
      const verdict = session.propose(transfer('Alice', 500));
      expectDecidedBy(verdict, 'already-achieved');
      expect(verdict.reasons).toEqual([
        {
          code: 'already-achieved',
          rule: 'R2',
          objective: 'Transferred',
          expected: '< 1',
          actual: '1',
          message:
            'Transferred has already been achieved once; doing it again is not part of the task.',
        },
      ]);
      expect(verdict.achieved).toEqual({ Transferred: 1 });
    },
  );

  caseFor('already-achieved', 'counts @repeat(n) performances and refuses the n+1-th', () => {
    const schema = schemaOf(action('Upvote', { post: 'text' }));
    const session = createSession(
      specOf('@repeat(2)\nUpvote() -> Voted\nVoted >= 2 -> Done', schema),
      { now: fixedNow },
    );
    const vote = (post: string) => session.propose({ action: { name: 'Upvote', args: { post } } });
    expect(vote('a').achieved).toEqual({ Voted: 1 });
    expect(vote('b').achieved).toEqual({ Voted: 2 });
    const third = vote('c');
    expectDecidedBy(third, 'already-achieved');
    expect(third.reasons[0]?.message).toBe(
      'Voted has already been achieved 2 times (at most 2 times are part of the task); doing it again is not part of the task.',
    );
    expect(third.reasons[0]?.expected).toBe('< 2');
  });
});

describe('unplanned-critical', () => {
  caseFor(
    'unplanned-critical',
    'refuses a critical action that no rule or guard mentions, and allows a harmless one',
    () => {
      const session = bank();
      const verdict = session.propose({ action: { name: 'DeleteAccount', args: {} } });
      expectDecidedBy(verdict, 'unplanned-critical');
      expect(verdict.reasons[0]).toMatchObject({ predicate: 'DeleteAccount' });
      expect(verdict.feedback).toBe(
        'DeleteAccount is not part of the plan for this task and is irreversible or sensitive, so it is not allowed. Take the steps the task needs instead.',
      );
      expect(verdict.roadmap).toContain('Roadmap:');
      expect(
        session.propose({ action: { name: 'SendMessage', args: { to: 'a', body: 'hi' } } })
          .decision,
      ).toBe('allow');
    },
  );

  caseFor('unplanned-critical', "asks the user instead with unplannedCritical: 'confirm'", () => {
    const session = bank({ unplannedCritical: 'confirm' });
    const verdict = session.propose({
      action: { name: 'DeleteAccount', args: {} },
      updates: { Account: { status: 'closed' } },
    });
    expect(verdict.reasons.map((reason) => reason.code)).toEqual(['unplanned-critical']);
    expect(verdict.decision).toBe('confirm');
    expect(verdict.severity).toBeUndefined();
    expect(verdict.feedback).toContain('the user must approve it');
    expect(session.resolve(true).committed).toBe(true);
    expect(session.status().achieved).toEqual({});
  });

  caseFor(
    'unplanned-critical',
    'does not let a critical action ride along with a declared objective',
    () => {
      const schema = schemaOf(
        state('Form', { ok: 'boolean' }),
        action('Wipe', {}, { critical: true }),
      );
      const form = createSession(specOf('Form(ok = true) -> Filled\nFilled -> Done', schema), {
        now: fixedNow,
      });
      form.observe({ updates: { Form: { ok: true } } });
      expectDecidedBy(form.propose({ action: { name: 'Wipe' } }), 'unplanned-critical');
      // A declared objective must be performed by the action itself (LANGUAGE.md §5.2).
      const riding = form.propose({ objective: 'Filled', action: { name: 'Wipe' } });
      expectDecidedBy(riding, 'invalid-proposal');
      expect(riding.feedback).toContain('Wipe performs no objective');
      expect(form.status().achieved).toEqual({});
      expect(form.propose({ objective: 'Filled' }).decision).toBe('allow');
    },
  );
});

describe('guard-reject', () => {
  caseFor(
    'guard-reject',
    'rejects an action matching a reject guard, whatever the rules say',
    () => {
      const verdict = bankWithBalance(5000).propose(transfer('Alice', 900));
      expectDecidedBy(verdict, 'guard-reject');
      expect(verdict.reasons).toEqual([
        {
          code: 'guard-reject',
          predicate: 'BankTransfer',
          expected: 'amount > 500',
          message:
            'The spec refuses BankTransfer with amount greater than 500: never move more than the user asked for.',
        },
      ]);
      expect(verdict.performs).toEqual([]);
    },
  );

  caseFor('guard-reject', 'wins over a confirm guard and over a @confirm rule', () => {
    const text = `${bankText}\nconfirm BankTransfer(to = "Alice") because "ask first"`;
    const session = createSession(specOf(text, bankSchema), { now: fixedNow });
    session.propose(checkBalance);
    session.observe({ updates: { BankCheckBalanceResult: { balance: 5000 } } });
    expectDecidedBy(session.propose(transfer('Alice', 501)), 'guard-reject');
    const allowed = session.propose(transfer('Alice', 500));
    expect(allowed.reasons.map((reason) => reason.code)).toEqual(['rule-confirm', 'guard-confirm']);
  });

  caseFor(
    'guard-reject',
    'applies to a state predicate whose anticipated update makes the pattern hold',
    () => {
      const text = `${bankText}\nreject Account(status = closed) because "the account stays open"`;
      const session = createSession(specOf(text, bankSchema), { now: fixedNow });
      const verdict = session.propose({ updates: { Account: { status: 'Closed' } } });
      expectDecidedBy(verdict, 'guard-reject');
      expect(verdict.reasons[0]?.message).toBe(
        'The spec refuses Account with status equal to closed: the account stays open.',
      );
      expect(session.propose({ updates: { Account: { status: 'frozen' } } }).decision).toBe(
        'allow',
      );
      // Observations are facts, not proposals: no guard applies to them.
      expect(session.observe({ updates: { Account: { status: 'closed' } } }).ok).toBe(true);
    },
  );
});

describe('guard-confirm', () => {
  const text = `${bankText}
BalanceKnown & SendMessage() -> Informed
confirm SendMessage(to matches /@external\\.com$/) because "messages leave the company"
confirm Account(status = frozen)`;
  const spec = specOf(text, bankSchema);

  caseFor(
    'guard-confirm',
    'asks the user for an action matching a confirm guard; approval commits it',
    () => {
      const session = createSession(spec, { now: fixedNow });
      // The guard is remembered, but the rule-level check comes first (LANGUAGE.md §6).
      const early = session.propose({
        action: { name: 'SendMessage', args: { to: 'eve@external.com', body: 'hi' } },
      });
      expectDecidedBy(early, 'unmet-conditions');
      session.propose(checkBalance);
      const verdict = session.propose({
        action: { name: 'SendMessage', args: { to: 'eve@external.com', body: 'hi' } },
      });
      expectDecidedBy(verdict, 'guard-confirm');
      expect(verdict.reasons[0]).toMatchObject({
        predicate: 'SendMessage',
        expected: 'to matches /@external\\.com$/',
      });
      expect(verdict.feedback).toBe(
        'Ask the user first:\nThe spec asks the user to approve SendMessage with to matching /@external\\.com$/: messages leave the company.',
      );
      expect(session.status().pending).toBe(true);
      const resolution = session.resolve(true);
      expect(resolution).toMatchObject({
        ok: true,
        committed: true,
        message: 'Approved and committed.',
      });
      expect(session.status()).toMatchObject({
        pending: false,
        achieved: { BalanceKnown: 1, Informed: 1 },
      });
      expect(
        session.propose({
          action: { name: 'SendMessage', args: { to: 'bob@company.com', body: 'x' } },
        }).reasons[0]?.code,
      ).toBe('already-achieved');
    },
  );

  caseFor('guard-confirm', 'applies to state predicates through anticipated updates', () => {
    const session = createSession(spec, { now: fixedNow });
    expectDecidedBy(
      session.propose({ updates: { Account: { status: 'frozen' } } }),
      'guard-confirm',
    );
    expect(session.resolve(false).committed).toBe(false);
    expect(session.propose({ updates: { Account: { status: 'open' } } }).decision).toBe('allow');
  });

  caseFor(
    'guard-confirm',
    'turns an unplanned critical action into a question instead of a refusal',
    () => {
      const session = createSession(specOf(`${bankText}\nconfirm DeleteAccount()`, bankSchema), {
        now: fixedNow,
      });
      const verdict = session.propose({ action: { name: 'DeleteAccount' } });
      expectDecidedBy(verdict, 'guard-confirm');
      expect(verdict.reasons).toHaveLength(1);
    },
  );
});

describe('rule-confirm', () => {
  caseFor(
    'rule-confirm',
    'asks for approval of a @confirm rule, scoped to that exact proposal',
    () => {
      const session = bankWithBalance(1500);
      const verdict = session.propose(transfer('Alice', 500));
      expectDecidedBy(verdict, 'rule-confirm');
      expect(verdict.reasons).toEqual([
        {
          code: 'rule-confirm',
          rule: 'R2',
          objective: 'Transferred',
          // The arguments its action pattern constrains: a person sees these first (C1).
          arguments: ['to', 'amount'],
          category: 'financial',
          message: 'Confirm the transfer details with the user. (financial)',
        },
      ]);
      expect(verdict.achieved).toEqual({ Transferred: 0 });
      expect(session.status()).toMatchObject({ pending: true, done: false });
      expect(session.resolve(true)).toMatchObject({ ok: true, committed: true });
      expect(session.status()).toMatchObject({
        pending: false,
        done: true,
        achieved: { BalanceKnown: 1, Transferred: 1 },
      });
    },
  );

  caseFor('rule-confirm', 'resolve(false) commits nothing', () => {
    const session = bankWithBalance(1500);
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'rule-confirm');
    expect(session.resolve(false)).toMatchObject({
      ok: true,
      committed: false,
      message: 'Denied; nothing was committed.',
    });
    expect(session.status()).toMatchObject({
      pending: false,
      done: false,
      achieved: { BalanceKnown: 1 },
    });
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'rule-confirm');
  });

  caseFor(
    'rule-confirm',
    'approval commits the proposal’s updates too, and only that proposal',
    () => {
      const schema = schemaOf(state('Draft', { text: 'text' }), action('Send'));
      const session = createSession(
        specOf('@confirm(privacy)\nSend() -> Sent\nSent & Draft(text = "hi") -> Done', schema),
        { now: fixedNow },
      );
      const verdict = session.propose({
        action: { name: 'Send' },
        updates: { Draft: { text: 'hi' } },
      });
      expectDecidedBy(verdict, 'rule-confirm');
      expect(verdict.reasons[0]?.message).toBe(
        "Performing Sent needs the user's approval. (privacy)",
      );
      session.resolve(true);
      expect(session.status()).toMatchObject({ done: true, achieved: { Sent: 1 } });
    },
  );

  caseFor('rule-confirm', 'a new proposal supersedes a pending one', () => {
    const session = bankWithBalance(1500);
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'rule-confirm');
    expect(
      session.propose({ action: { name: 'SendMessage', args: { to: 'a', body: 'b' } } }).decision,
    ).toBe('allow');
    expect(session.status().pending).toBe(false);
    expect(session.resolve(true)).toMatchObject({
      ok: false,
      committed: false,
      message: 'No proposal is waiting for approval.',
    });
    expect(session.status().achieved).toEqual({ BalanceKnown: 1 });
  });

  caseFor('rule-confirm', 'is not asked for when a soft deviation comes first', () => {
    const schema = schemaOf(state('Draft', { text: 'text' }), action('Send'));
    const session = createSession(
      specOf('@confirm\nSend() & Draft(text = "hi") -> Sent\nSent -> Done', schema),
      { now: fixedNow },
    );
    expect(
      session.propose({ updates: { Draft: { text: 'hi' } }, action: { name: 'Send' } }).decision,
    ).toBe('confirm');
    session.resolve(false);
    const drifting = session.propose({ updates: { Draft: { text: 'hello' } } });
    expectDecidedBy(drifting, 'soft-deviation');
  });
});

describe('repeated-violation', () => {
  caseFor('repeated-violation', 'escalates to a person after three identical hard refusals', () => {
    const session = bankWithBalance(800);
    for (let attempt = 0; attempt < 3; attempt++) {
      expectDecidedBy(
        session.propose({ ...transfer('Alice', 500), label: `try ${attempt}` }),
        'unmet-conditions',
      );
    }
    const verdict = session.propose(transfer('Alice', 500));
    expectDecidedBy(verdict, 'repeated-violation');
    expect(verdict.reasons[0]).toMatchObject({ rule: 'R2', actual: '3' });
    expect(verdict.feedback).toBe(
      'This exact proposal was refused 3 times (BankCheckBalanceResult (the result of the last BankCheckBalance call) must have balance greater than 1000; it is 800); a person must decide whether to allow it.',
    );
    // A person overrules: the proposal is committed as if it had been allowed.
    expect(session.resolve(true).committed).toBe(true);
    expect(session.status().achieved).toEqual({ BalanceKnown: 1, Transferred: 1 });
  });

  caseFor('repeated-violation', 'counts only identical proposals', () => {
    const session = bankWithBalance(800);
    for (const amount of [500, 499, 498, 497]) {
      expectDecidedBy(
        session.propose({ action: { name: 'BankTransfer', args: { to: 'Alice', amount } } }),
        'unmet-conditions',
      );
    }
    expectDecidedBy(session.propose(transfer('Alice', 499)), 'unmet-conditions');
    expectDecidedBy(session.propose(transfer('Alice', 499)), 'unmet-conditions');
    expectDecidedBy(session.propose(transfer('ALICE', 499)), 'repeated-violation');
  });

  caseFor('repeated-violation', 'honours escalateAfter, and 0 never escalates', () => {
    const once = bankWithBalance(800, { escalateAfter: 1 });
    expectDecidedBy(once.propose(transfer('Alice', 500)), 'unmet-conditions');
    expectDecidedBy(once.propose(transfer('Alice', 500)), 'repeated-violation');
    const never = bankWithBalance(800, { escalateAfter: 0 });
    for (let attempt = 0; attempt < 10; attempt++)
      expectDecidedBy(never.propose(transfer('Alice', 500)), 'unmet-conditions');
  });

  caseFor('repeated-violation', 'resets the count after the person decides', () => {
    const session = bankWithBalance(800, { escalateAfter: 2 });
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'unmet-conditions');
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'unmet-conditions');
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'repeated-violation');
    expect(session.resolve(false).committed).toBe(false);
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'unmet-conditions');
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'unmet-conditions');
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'repeated-violation');
    expect(session.status().achieved).toEqual({ BalanceKnown: 1 });
  });

  caseFor(
    'repeated-violation',
    'escalates premature finishes and already-achieved refusals too',
    () => {
      const session = bank({ escalateAfter: 1 });
      expectDecidedBy(session.propose({ finish: true }), 'premature-finish');
      expectDecidedBy(session.propose({ finish: true }), 'repeated-violation');
      session.resolve(true);
      expect(session.status()).toMatchObject({ finished: true, done: false });
      const other = bank({ escalateAfter: 1 });
      other.propose(checkBalance);
      expectDecidedBy(other.propose(checkBalance), 'already-achieved');
      expectDecidedBy(other.propose(checkBalance), 'repeated-violation');
    },
  );

  caseFor('repeated-violation', 'never escalates a guard rejection', () => {
    const session = bankWithBalance(5000, { escalateAfter: 1 });
    for (let attempt = 0; attempt < 4; attempt++)
      expectDecidedBy(session.propose(transfer('Alice', 900)), 'guard-reject');
  });
});

describe('policy-violation', () => {
  caseFor(
    'policy-violation',
    'refuses a payment the intent plans when no permission of the policy fires for it',
    () => {
      const schema = unwrapSchema(
        loadStateSchema({
          Limit: {
            description: 'The payment limit the host sets.',
            observed: true,
            variables: [{ name: 'max', type: 'Number' }],
          },
          Pay: {
            kind: 'action',
            critical: true,
            description: 'Pays someone.',
            variables: [
              { name: 'to', type: 'Text' },
              { name: 'amount', type: 'Number' },
            ],
          },
        }),
      );
      const intent = specOf('Pay(to = "Alice", amount = 900) -> Paid\nPaid -> Done', schema);
      const policy = checkPolicy('Limit(max = $m) & Pay(amount <= $m) -> Permitted', schema);
      if (!policy.ok) throw new Error('the policy does not check');
      const session = createSession(intent, { now: fixedNow, policy: policy.value });
      session.observe({ updates: { Limit: { max: 500 } } });
      const verdict = session.propose({
        action: { name: 'Pay', args: { to: 'Alice', amount: 900 } },
      });
      expectDecidedBy(verdict, 'policy-violation');
      expect(verdict.reasons[0]).toMatchObject({ source: 'policy', rule: 'R1' });
      session.observe({ updates: { Limit: { max: 1000 } } });
      expect(
        session.propose({ action: { name: 'Pay', args: { to: 'Alice', amount: 900 } } }).decision,
      ).toBe('allow');
    },
  );
});

describe('fabricated-action', () => {
  caseFor(
    'fabricated-action',
    'refuses a finish whose answer shows a transfer that was never made, even when Done holds',
    () => {
      const session = bankWithBalance(500);
      expect(session.status().done).toBe(true);
      const verdict = session.propose({
        finish: true,
        answer:
          'Action: BankTransfer\nAction Input: {"to": "Alice", "amount": 500}\nObservation: {"success": true}\nFinal Answer: I sent Alice $500.',
      });
      expectDecidedBy(verdict, 'fabricated-action');
      expect(verdict.reasons[0]).toMatchObject({ actions: ['BankTransfer'] });
      expect(session.status().finished).toBe(false);
      expect(session.propose({ finish: true, answer: 'Your balance is $500.' }).decision).toBe(
        'allow',
      );
    },
  );
});

describe('session-finished', () => {
  caseFor('session-finished', 'refuses every proposal after an allowed finish', () => {
    const session = bankWithBalance(500);
    expect(session.propose({ finish: true }).decision).toBe('allow');
    const after = session.propose(transfer('Alice', 500));
    expectDecidedBy(after, 'session-finished');
    expect(after.feedback).toBe(
      'The task is finished; no further action is allowed in this session.',
    );
    expectDecidedBy(session.propose({ finish: true }), 'session-finished');
    // Observations are still recorded.
    expect(session.observe({ updates: { BankCheckBalanceResult: { balance: 5000 } } }).ok).toBe(
      true,
    );
    expectDecidedBy(session.propose(transfer('Alice', 500)), 'session-finished');
  });
});

describe('invalid-proposal', () => {
  const invalid: readonly [string, unknown, string][] = [
    [
      'an unknown action',
      { action: { name: 'BankTransferz', args: {} } },
      "Unknown action 'BankTransferz'.",
    ],
    [
      'an unknown predicate',
      { updates: { Acount: { status: 'open' } } },
      "Unknown predicate 'Acount'.",
    ],
    [
      'an unknown variable',
      { action: { name: 'BankTransfer', args: { too: 'Alice', amount: 5 } } },
      "BankTransfer has no variable 'too' (did you mean 'to'?).",
    ],
    [
      'an unknown objective',
      { objective: 'Transfered' },
      "No rule produces the objective 'Transfered'",
    ],
    [
      'a value of the wrong type',
      { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 'five hundred' } } },
      'BankTransfer.amount: "five hundred" is not a number.',
    ],
    [
      'an enum value that is not a member',
      { updates: { Account: { status: 'deleted' } } },
      'Account.status: "deleted" is not one of open, frozen, closed.',
    ],
    ['a malformed proposal', ['BankTransfer'], 'A proposal must be a JSON object.'],
    ['a malformed action', { action: 'BankTransfer' }, '"action" must be an object'],
    [
      'malformed updates',
      { updates: 42 },
      '"updates" must be an object keyed by predicate, or an array.',
    ],
    [
      'finish combined with an action',
      { finish: true, ...checkBalance },
      'A finishing proposal carries nothing else; propose the last step first.',
    ],
    ['Done as an objective', { objective: 'Done' }, 'Done is not performed'],
  ];

  for (const [name, input, message] of invalid) {
    caseFor('invalid-proposal', `refuses ${name} with the problem spelled out`, () => {
      const session = bank();
      const verdict = session.propose(input);
      expectDecidedBy(verdict, 'invalid-proposal');
      expect(verdict.feedback.startsWith('The proposal cannot be checked:')).toBe(true);
      expect(verdict.feedback).toContain(message);
      expect(verdict.performs).toEqual([]);
      expect(session.status().proposals).toBe(1);
    });
  }

  caseFor('invalid-proposal', 'is never escalated and never commits', () => {
    const session = bank({ escalateAfter: 1 });
    for (let attempt = 0; attempt < 4; attempt++) {
      expectDecidedBy(
        session.propose({ action: { name: 'BankTransfer', args: { amount: 'x' } } }),
        'invalid-proposal',
      );
    }
    const mixed = session.propose({ ...checkBalance, updates: { Account: { status: 'nope' } } });
    expectDecidedBy(mixed, 'invalid-proposal');
    expect(session.status().achieved).toEqual({});
  });
});

describe('no-spec', () => {
  caseFor('no-spec', 'refuses every proposal when there is no spec (fail closed)', () => {
    const session = createSession(undefined);
    expect(session).toBeInstanceOf(NoSpecSession);
    for (const proposal of [checkBalance, { finish: true }, {}, 'garbage']) {
      const verdict = session.propose(proposal);
      expectDecidedBy(verdict, 'no-spec');
      expect(verdict).toMatchObject({ performs: [], achieved: {}, done: false });
      expect(verdict.feedback).toContain('There is no valid spec for this task');
    }
    expect(session.observe({ updates: { X: {} } }).ok).toBe(true);
    expect(session.resolve(true)).toMatchObject({ ok: false, committed: false });
    expect(session.status()).toEqual({
      done: false,
      finished: false,
      achieved: {},
      pending: false,
      proposals: 4,
    });
    expect(session.roadmap()).toBe('There is no valid spec for this task.');
    expect(session.history).toHaveLength(4);
  });
});

describe('internal-error', () => {
  const schema = schemaOf(state('Place', { name: 'text' }), action('Book', {}, { critical: true }));
  const text = 'Place(name ~ "Pizza Hut") & Book() -> Booked\nBooked -> Done';
  const throwing = () => {
    throw new Error('embedding cache miss');
  };

  caseFor('internal-error', 'rejects when the similarity function throws, and never allows', () => {
    const session = createSession(specOf(text, schema), { now: fixedNow, similarity: throwing });
    session.observe({ updates: { Place: { name: 'pizza hut' } } });
    const verdict = session.propose({ action: { name: 'Book' } });
    expectDecidedBy(verdict, 'internal-error');
    expect(verdict.feedback).toBe(
      'The verifier failed (embedding cache miss); nothing is allowed until it works again.',
    );
    expect(session.status()).toMatchObject({ achieved: {}, pending: false, done: false });
    expect(session.propose({ finish: true }).decision).not.toBe('allow');
    expect(session.history.at(-2)).toMatchObject({
      kind: 'propose',
      verdict: { decision: 'reject' },
    });
  });

  caseFor('internal-error', 'fails closed for good when a commit breaks half-way', () => {
    let broken = false;
    const similarity = (left: string, right: string) => {
      if (broken) throw new Error('embedding service down');
      return left.toLowerCase() === right.toLowerCase() ? 1 : 0;
    };
    const doneSchema = schemaOf(state('Place', { name: 'text' }), state('Flag', { on: 'boolean' }));
    const session = createSession(
      specOf('Flag(on = true) -> Done\nPlace(name ~ "x") -> Done', doneSchema),
      {
        now: fixedNow,
        similarity,
      },
    );
    session.observe({ updates: { Flag: { on: true } } });
    expect(session.status().done).toBe(true);
    broken = true;
    // The update is applied before Done is re-evaluated, and re-evaluating throws.
    const observed = session.observe({ updates: { Flag: { on: false }, Place: { name: 'y' } } });
    expect(observed.ok).toBe(false);
    expect(observed.problems[0]?.message).toContain('internal error: embedding service down');
    broken = false;
    // Done may be stale now, so nothing is allowed any more, finish included.
    expect(session.status().done).toBe(false);
    const finish = session.propose({ finish: true });
    expectDecidedBy(finish, 'internal-error');
    expect(finish.feedback).toContain('an earlier commit failed (embedding service down)');
    expectDecidedBy(session.propose({}), 'internal-error');
    expect(session.observe({ updates: {} }).ok).toBe(false);
  });

  caseFor(
    'internal-error',
    'reports a commit that breaks during an allowed proposal as a reject',
    () => {
      // Only Done's rule compares by similarity, and only once Went is achieved.
      const similarity = (): number => {
        throw new Error('flaky');
      };
      const doneSchema = schemaOf(state('Place', { name: 'text' }), action('Go'));
      const flaky = createSession(
        specOf('Go() -> Went\nWent & Place(name ~ "x") -> Done', doneSchema),
        {
          now: fixedNow,
          similarity,
        },
      );
      flaky.observe({ updates: { Place: { name: 'y' } } });
      // Go is allowed by its rule, but re-evaluating Done after the commit throws.
      const verdict = flaky.propose({ action: { name: 'Go' } });
      expectDecidedBy(verdict, 'internal-error');
      expect(verdict.feedback).toContain('flaky');
      expect(flaky.status().done).toBe(false);
      expectDecidedBy(flaky.propose({ finish: true }), 'internal-error');
    },
  );

  caseFor('internal-error', 'builds a reject verdict from any thrown value', () => {
    expect(internalErrorVerdict('boom')).toEqual({
      decision: 'reject',
      reasons: [
        {
          code: 'internal-error',
          message: 'The verifier failed (boom); nothing is allowed until it works again.',
        },
      ],
      performs: [],
      achieved: {},
      done: false,
      feedback: 'The verifier failed (boom); nothing is allowed until it works again.',
    });
  });
});

describe('the reason code catalog', () => {
  afterAll(() => {
    // Runs after every case above has been registered and run.
    const missing = reasonCodes.filter((code) => (cases.get(code) ?? []).length === 0);
    expect(missing, `reason codes without a test case: ${missing.join(', ')}`).toEqual([]);
  });

  it('has a test case for every reason code, and no case for an unknown code', () => {
    const missing = reasonCodes.filter((code) => (cases.get(code) ?? []).length === 0);
    expect(missing).toEqual([]);
    const unknown = [...cases.keys()].filter(
      (code) => !(reasonCodes as readonly string[]).includes(code),
    );
    expect(unknown).toEqual([]);
  });

  it('gives every code a decision, with a severity exactly for revise', () => {
    expect(Object.keys(reasonDecisions).sort()).toEqual([...reasonCodes].sort());
    for (const code of reasonCodes) {
      const { decision, severity } = reasonDecisions[code];
      expect(severity !== undefined).toBe(decision === 'revise');
    }
  });

  it('matches FORMATS.md §2', () => {
    expect(reasonCodes).toEqual([
      'unmet-conditions',
      'soft-deviation',
      'unplanned-change',
      'premature-finish',
      'already-achieved',
      'unplanned-critical',
      'guard-reject',
      'guard-confirm',
      'rule-confirm',
      'repeated-violation',
      'invalid-proposal',
      'no-spec',
      'internal-error',
      'session-finished',
      'fabricated-action',
      'policy-violation',
    ]);
  });
});
