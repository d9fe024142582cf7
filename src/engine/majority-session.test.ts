import { describe, expect, it } from 'vitest';
import {
  canonicalSpecText,
  checkSpec,
  createSchema,
  type PredicateDeclaration,
  type Spec,
  type VariableType,
} from '../language/index.js';
import { MajoritySession } from './majority-session.js';
import { createSession } from './session-all-parts.js';

const now = '2025-03-14T12:00';

function state(name: string, variables: [string, VariableType][]): PredicateDeclaration {
  return {
    name,
    kind: 'state',
    description: name,
    keys: [],
    critical: false,
    variables: variables.map(([variable, type]) => ({ name: variable, type })),
  };
}

const restaurant = createSchema('restaurant', [
  state('RestaurantInfo', [['name', { kind: 'text' }]]),
  state('ReserveInfo', [
    ['date', { kind: 'date' }],
    ['time', { kind: 'time' }],
    ['available', { kind: 'boolean' }],
  ]),
  state('ReserveResult', [['success', { kind: 'boolean' }]]),
]);

const bank = createSchema('bank', [
  {
    name: 'BankTransfer',
    kind: 'action',
    description: 'Send money.',
    keys: [],
    critical: true,
    resultPredicate: 'BankTransferResult',
    variables: [
      { name: 'to', type: { kind: 'text' } },
      { name: 'amount', type: { kind: 'number' } },
    ],
  },
  { ...state('BankTransferResult', [['success', { kind: 'boolean' }]]), resultOf: 'BankTransfer' },
]);

function spec(text: string, schema = restaurant): Spec {
  const result = checkSpec(text, schema);
  if (!result.ok)
    throw new Error(result.diagnostics.map((diagnostic) => diagnostic.message).join('; '));
  return result.value;
}

const reserveBefore = (time: string) =>
  spec(
    [
      `RestaurantInfo(name = "R") & ReserveInfo(date = today, time < ${time}, available = true) -> Reserve`,
      'Reserve & ReserveResult(success = true) -> Done',
    ].join('\n'),
  );

const reserveAt = (time: string) => ({
  objective: 'Reserve',
  updates: {
    RestaurantInfo: { name: 'R' },
    ReserveInfo: { date: '2025-03-14', time, available: true },
  },
});

describe('MajoritySession', () => {
  it("de-duplicates identical specs and keeps their weight, shown by the earliest one's canonical text", () => {
    const a = reserveBefore('19:00');
    const commented = spec(`# the same spec, with comments\n${a.source}\n# and a trailing one`);
    expect(canonicalSpecText(commented)).toBe(canonicalSpecText(a));
    const session = new MajoritySession([a, reserveBefore('18:00'), commented, undefined]);
    expect(session.groups).toEqual([
      { text: canonicalSpecText(a), weight: 2 },
      { text: canonicalSpecText(reserveBefore('18:00')), weight: 1 },
      { text: undefined, weight: 1 },
    ]);
  });

  it('puts specs that differ only in labels and rule order in one group, which votes with their weight', () => {
    const a = reserveBefore('19:00');
    const relabelled = spec(
      [
        'Booked: Reserve & ReserveResult(success = true) -> Done',
        'Booking: ReserveInfo(available = true, time < 19:00, date = today) & RestaurantInfo(name = "R") -> Reserve',
      ].join('\n'),
    );
    expect(canonicalSpecText(relabelled)).not.toBe(canonicalSpecText(a));
    const session = new MajoritySession([a, reserveBefore('18:00'), relabelled], { now });
    expect(session.groups).toEqual([
      { text: canonicalSpecText(a), weight: 2 },
      { text: canonicalSpecText(reserveBefore('18:00')), weight: 1 },
    ]);
    expect(session.propose(reserveAt('18:30')).votes).toEqual({
      allow: 2,
      confirm: 0,
      revise: 1,
      reject: 0,
    });
  });

  it('writes objective references the same with or without parentheses', () => {
    const bare = spec('RestaurantInfo() -> Seen\nSeen -> Done');
    const parenthesized = spec('RestaurantInfo() -> Seen\nSeen() -> Done()');
    expect(canonicalSpecText(parenthesized)).toBe(canonicalSpecText(bare));
    expect(canonicalSpecText(parenthesized)).toContain('RestaurantInfo()');
  });

  it('decides by weighted majority and reports the votes', () => {
    const session = new MajoritySession(
      [reserveBefore('19:00'), reserveBefore('19:00'), reserveBefore('18:00')],
      {
        now,
      },
    );
    const verdict = session.propose(reserveAt('18:30'));
    expect(verdict.decision).toBe('allow');
    expect(verdict.votes).toEqual({ allow: 2, confirm: 0, revise: 1, reject: 0 });
    expect(verdict.performs).toEqual(['Reserve']);
  });

  it('allows a question to the user by every member, a spec-less one too, and ends as asked', () => {
    const session = new MajoritySession([reserveBefore('19:00'), undefined], { now });
    const verdict = session.propose({ ask: 'Which restaurant do you mean?' });
    expect(verdict.decision).toBe('allow');
    expect(verdict.votes).toEqual({ allow: 2, confirm: 0, revise: 0, reject: 0 });
    expect(session.status()).toMatchObject({ finished: true, asked: true, done: false });
    expect(session.propose(reserveAt('18:30')).reasons[0]?.code).toBe('session-finished');
  });

  it('refuses a finish whose answer shows a call no member saw run', () => {
    const transfer = spec('BankTransfer(to = "Alice") -> Sent\ntrue -> Done', bank);
    const session = new MajoritySession([transfer, transfer], { now });
    const verdict = session.propose({
      finish: true,
      answer: 'Action: BankTransfer\nAction Input: {"to": "Alice", "amount": 5}',
    });
    expect(verdict.decision).toBe('revise');
    expect(verdict.reasons[0]?.code).toBe('fabricated-action');
    expect(session.status().finished).toBe(false);
  });

  it('breaks ties conservatively', () => {
    const session = new MajoritySession([reserveBefore('19:00'), reserveBefore('18:00')], { now });
    const verdict = session.propose(reserveAt('18:30'));
    expect(verdict.votes).toEqual({ allow: 1, confirm: 0, revise: 1, reject: 0 });
    expect(verdict.decision).toBe('revise');
    expect(verdict.severity).toBe('hard');
    expect(verdict.reasons[0]?.code).toBe('unmet-conditions');
  });

  it('counts samples without a spec as votes to reject', () => {
    const session = new MajoritySession([reserveBefore('19:00'), undefined, undefined], { now });
    const verdict = session.propose(reserveAt('18:00'));
    expect(verdict.decision).toBe('reject');
    expect(verdict.reasons[0]?.code).toBe('no-spec');
    expect(new MajoritySession([], { now }).propose(reserveAt('18:00')).decision).toBe('reject');
  });

  it('shows the effects of an action the majority allowed to a member that refused it, without crediting it', () => {
    const session = new MajoritySession(
      [reserveBefore('19:00'), reserveBefore('19:00'), reserveBefore('18:00')],
      {
        now,
      },
    );
    expect(session.propose(reserveAt('18:30')).decision).toBe('allow');
    session.observe({ updates: { ReserveResult: { success: true } } });
    // Two of three members achieved Reserve and see success: done by majority.
    expect(session.status()).toMatchObject({ done: true, achieved: { Reserve: 1 }, proposals: 1 });
    expect(session.propose({ finish: true }).decision).toBe('allow');
    expect(session.status().finished).toBe(true);
  });

  it('rebuilds a member that allowed what the majority refused, so it can allow it later', () => {
    // The lenient spec leads (weight 2), but two failed samples vote reject.
    const lenient = reserveBefore('21:00');
    const session = new MajoritySession(
      [lenient, lenient, reserveBefore('19:00'), undefined, undefined],
      {
        now,
      },
    );
    const late = session.propose(reserveAt('20:00'));
    expect(late.votes).toEqual({ allow: 2, confirm: 0, revise: 1, reject: 2 });
    expect(late.decision).toBe('reject');
    expect(session.status().achieved).toEqual({});
    const early = session.propose(reserveAt('18:00'));
    expect(early.votes).toEqual({ allow: 3, confirm: 0, revise: 0, reject: 2 });
    expect(early.decision).toBe('allow');
    expect(session.status().achieved).toEqual({ Reserve: 1 });
  });

  it('waits for approval when the majority asks for it; denial undoes what permissive members committed', () => {
    const guarded = spec(
      '@confirm(financial, "approve the transfer")\nBankTransfer(to = "Alice", amount = 500) -> Sent\nSent -> Done',
      bank,
    );
    const open = spec('BankTransfer(to = "Alice", amount = 500) -> Sent\nSent -> Done', bank);
    const session = new MajoritySession([guarded, guarded, open], { now });
    const transfer = { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } };

    const first = session.propose(transfer);
    expect(first.decision).toBe('confirm');
    expect(first.votes).toEqual({ allow: 1, confirm: 2, revise: 0, reject: 0 });
    expect(session.status().pending).toBe(true);
    expect(session.resolve(false)).toMatchObject({ ok: true, committed: false });
    expect(session.status().pending).toBe(false);

    // Had the open member kept its commit, it would now refuse a duplicate transfer.
    const second = session.propose(transfer);
    expect(second.votes).toEqual({ allow: 1, confirm: 2, revise: 0, reject: 0 });
    expect(session.resolve(true)).toMatchObject({ ok: true, committed: true });
    expect(session.status()).toMatchObject({ done: true, achieved: { Sent: 1 } });
    expect(session.resolve(true).ok).toBe(false);

    const again = session.propose(transfer);
    expect(again.decision).toBe('revise');
    expect(again.reasons[0]?.code).toBe('already-achieved');
  });

  it('treats a new proposal while approval is pending as a denial', () => {
    const guarded = spec('@confirm\nBankTransfer(amount = 500) -> Sent\nSent -> Done', bank);
    const open = spec('BankTransfer(amount = 500) -> Sent\nSent -> Done', bank);
    const session = new MajoritySession([guarded, guarded, open], { now });
    expect(
      session.propose({ action: { name: 'BankTransfer', args: { amount: 500 } } }).decision,
    ).toBe('confirm');
    session.propose({});
    expect(session.status()).toMatchObject({ pending: false, achieved: {} });
    expect(
      session.propose({ action: { name: 'BankTransfer', args: { amount: 500 } } }).votes.allow,
    ).toBe(1);
  });

  it('agrees with a plain session when all specs are the same', () => {
    const single = reserveBefore('19:00');
    const majority = new MajoritySession([single, single, single], { now });
    const plain = createSession(single, { now });
    const events = [reserveAt('20:00'), reserveAt('18:00'), reserveAt('18:00'), { finish: true }];
    for (const event of events) {
      const expected = plain.propose(event);
      const actual = majority.propose(event);
      expect(actual.decision).toBe(expected.decision);
      expect(actual.reasons).toEqual(expected.reasons);
      expect(actual.feedback).toBe(expected.feedback);
    }
    expect(majority.roadmap()).toBe(plain.roadmap());
    expect(majority.history).toHaveLength(4);
  });

  it('is not changed by a caller mutating a proposal afterwards', () => {
    const session = new MajoritySession(
      [reserveBefore('21:00'), reserveBefore('19:00'), reserveBefore('19:00')],
      {
        now,
      },
    );
    const name = { updates: { RestaurantInfo: { name: 'R' } } };
    expect(session.propose(name).decision).toBe('allow');
    name.updates.RestaurantInfo.name = 'X';
    const at = (time: string) => ({
      objective: 'Reserve',
      updates: { ReserveInfo: { date: '2025-03-14', time, available: true } },
    });
    // Refused by the majority: the lenient member is rebuilt, replaying its copy of the first proposal.
    expect(session.propose(at('20:00')).votes).toEqual({
      allow: 1,
      confirm: 0,
      revise: 2,
      reject: 0,
    });
    expect(session.propose(at('18:00')).votes.allow).toBe(3);
  });

  it('never throws on malformed input', () => {
    const session = new MajoritySession([reserveBefore('19:00')], { now });
    for (const input of [null, 42, 'text', { action: 5 }, { updates: { Nope: { x: 1 } } }]) {
      expect(() => session.propose(input)).not.toThrow();
      expect(() => session.observe(input)).not.toThrow();
    }
    expect(session.propose({ updates: { Nope: { x: 1 } } }).decision).toBe('revise');
    expect(new MajoritySession([undefined]).roadmap()).toBe(
      'There is no valid spec for this task.',
    );
  });
});
