import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dataUrl } from '../../test/support/project-data.js';
import { analyzeSpec } from '../language/analyze.js';
import { checkSpec, createSchema } from '../language/index.js';
import type { Schema } from '../language/schema-model.js';
import { schemaFromToolemu } from '../schema/from-toolemu.js';
import { createSession } from './session-all-parts.js';

const schema = schemaFromToolemu(readFileSync(dataUrl('toolemu/toolkits.json'), 'utf8'))
  .value as Schema;
const now = '2025-03-14T12:00';

function session(text: string) {
  const checked = checkSpec(text, schema);
  if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
  return createSession(checked.value, { now });
}

const people = [
  { unique_id: 'a1b2', name: 'Mike Johnson', location: 'Austin' },
  { unique_id: 'c3d4', name: 'Michael Johnson', location: 'Boston' },
];

const check = (id: string) => ({
  action: { name: 'SpokeoBackgroundCheck', args: { unique_id: id } },
});

describe('bindings with join semantics (LANGUAGE.md §7)', () => {
  const spec = `
    SpokeoSearchPeopleResult(results[name = "Mike Johnson"].unique_id = $id) & SpokeoBackgroundCheck(unique_id = $id) -> Checked
    Checked -> Done`;

  it('allows only the id the search returned for the person named', () => {
    const s = session(spec);
    s.observe({ updates: { SpokeoSearchPeopleResult: { results: people } } });
    const refused = s.propose(check('c3d4'));
    expect(refused.decision).toBe('revise');
    expect(refused.feedback).toContain('unique_id equal to $id');
    expect(refused.feedback).toContain(
      'results[name = "Mike Johnson"].unique_id of SpokeoSearchPeopleResult ("a1b2")',
    );
    expect(refused.feedback).toContain('"c3d4"');
    expect(s.propose(check('A1B2')).decision).toBe('allow');
  });

  it('binds each element of a projection in turn: any of several matches will do', () => {
    const s = session(spec);
    s.observe({
      updates: {
        SpokeoSearchPeopleResult: {
          results: [...people, { unique_id: 'e5f6', name: 'Mike Johnson', location: 'Denver' }],
        },
      },
    });
    expect(s.propose(check('e5f6')).decision).toBe('allow');
  });

  it('is false before anything is bound, and for a result without the field', () => {
    const s = session(spec);
    expect(s.propose(check('a1b2')).decision).toBe('revise');
    const t = session(spec);
    t.observe({ updates: { SpokeoSearchPeopleResult: { results: [{ name: 'Mike Johnson' }] } } });
    expect(t.propose(check('a1b2')).decision).toBe('revise');
  });

  it('compares numbers and orders with bindings; a guard may use them', () => {
    const transfer = `
      reject BankManagerTransferFunds(from_account_number = $a, to_account_number = $a) because "no transfer to itself"
      BankManagerTransferFunds() -> Sent
      Sent -> Done`;
    const s = session(transfer);
    const send = (from: string, to: string) =>
      s.propose({
        action: {
          name: 'BankManagerTransferFunds',
          args: { from_account_number: from, to_account_number: to, amount: 5 },
        },
      }).decision;
    expect(send('111-2222', '111-2222')).toBe('reject');
    expect(send('111-2222', '333-4444')).toBe('allow');
  });

  it('binds in whichever alternative of a disjunction fires', () => {
    const s = session(`
      (SpokeoSearchPeopleResult(results[name = "Nobody"].unique_id = $id) | SpokeoSearchPeopleResult(results[location = "Boston"].unique_id = $id)) & SpokeoBackgroundCheck(unique_id = $id) -> Checked
      Checked -> Done`);
    s.observe({ updates: { SpokeoSearchPeopleResult: { results: people } } });
    expect(s.propose(check('a1b2')).decision).toBe('revise');
    expect(s.propose(check('c3d4')).decision).toBe('allow');
  });

  it('reports unbound uses, type mismatches and bindings inside filters', () => {
    const codes = (text: string) => analyzeSpec(text, schema).map((diagnostic) => diagnostic.code);
    expect(codes('SpokeoBackgroundCheck(unique_id = $id) -> X\nX -> Done')).toEqual([]);
    expect(codes('SpokeoBackgroundCheck(unique_id != $id) -> X\nX -> Done')).toContain(
      'unbound-variable',
    );
    expect(
      codes(
        'SpokeoSearchPeople(max_results = $n) & SpokeoSearchPeopleResult(results[name = "M"].unique_id = $n) -> X\nX -> Done',
      ),
    ).toEqual([]);
    expect(
      codes('SpokeoSearchPeople(max_results = $n, search_term = $n) -> X\nX -> Done'),
    ).toContain('binding-type-mismatch');
    expect(
      codes('SpokeoSearchPeopleResult(count(results[name = $n]) = 1) -> X\nX -> Done'),
    ).toContain('binding-in-filter');
  });
});

describe('arithmetic and durations on bindings (LANGUAGE.md §7)', () => {
  const local = createSchema('arithmetic', [
    {
      name: 'Flight',
      kind: 'state',
      description: 'The booked flight.',
      variables: [
        { name: 'departure', type: { kind: 'datetime' } },
        { name: 'departure_text', type: { kind: 'text' } },
      ],
      keys: [],
      critical: false,
      observed: true,
    },
    {
      name: 'Blocked',
      kind: 'state',
      description: 'Texts that are blocked.',
      variables: [{ name: 'who', type: { kind: 'text' } }],
      keys: ['who'],
      critical: false,
      observed: true,
    },
    {
      name: 'Balance',
      kind: 'state',
      description: 'The account balance.',
      variables: [{ name: 'amount', type: { kind: 'number' } }],
      keys: [],
      critical: false,
      observed: true,
    },
    {
      name: 'SetReminder',
      kind: 'action',
      description: 'Sets a reminder.',
      variables: [{ name: 'reminder_time', type: { kind: 'text' }, required: true }],
      keys: [],
      critical: false,
    },
    {
      name: 'Transfer',
      kind: 'action',
      description: 'Moves money.',
      variables: [{ name: 'amount', type: { kind: 'number' }, required: true }],
      keys: [],
      critical: true,
    },
  ]);
  const localSession = (text: string) => {
    const checked = checkSpec(text, local);
    if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
    const s = createSession(checked.value, { now });
    s.observe({
      updates: {
        Flight: { departure: '2025-03-15T09:00', departure_text: '2025-03-15 09:00:00' },
        Balance: { amount: '1000.00000000000000001' },
      },
    });
    return s;
  };

  it('a reminder at least 3 hours before the departure', () => {
    for (const spec of [
      'Flight(departure = $d) & SetReminder(reminder_time as datetime <= $d - 3h) -> R\nR -> Done',
      'Flight(departure_text as datetime = $d) & SetReminder(reminder_time as datetime <= $d - 3h) -> R\nR -> Done',
    ]) {
      const remind = (time: string) =>
        localSession(spec).propose({
          action: { name: 'SetReminder', args: { reminder_time: time } },
        }).decision;
      expect(remind('2025-03-15 06:00:00')).toBe('allow');
      expect(remind('2025-03-15 06:00:01')).toBe('revise');
      expect(remind('the day before')).toBe('revise');
    }
  });

  it('at most half the balance, exactly', () => {
    const s = localSession('Balance(amount = $b) & Transfer(amount <= $b * 0.5) -> T\nT -> Done');
    const send = (amount: string) =>
      localSession('Balance(amount = $b) & Transfer(amount <= $b * 0.5) -> T\nT -> Done').propose({
        action: { name: 'Transfer', args: { amount } },
      }).decision;
    expect(send('500.000000000000000005')).toBe('allow');
    expect(send('500.000000000000000006')).toBe('revise');
    expect(s.propose({ action: { name: 'Transfer', args: { amount: 499 } } }).decision).toBe(
      'allow',
    );
  });

  it('not P(x = $a) is judged for the bound value; not never binds', () => {
    const spec =
      'Flight(departure_text = $t) & not Blocked(who = $t) & SetReminder() -> R\nR -> Done';
    const remind = (blocked: string) => {
      const s = localSession(spec);
      s.observe({ updates: [{ predicate: 'Blocked', op: 'add', values: { who: blocked } }] });
      return s.propose({ action: { name: 'SetReminder', args: { reminder_time: 'x' } } }).decision;
    };
    expect(remind('someone else')).toBe('allow');
    expect(remind('2025-03-15 09:00:00')).toBe('revise');
    const codes = analyzeSpec('not Blocked(who = $t) & SetReminder() -> R\nR -> Done', local).map(
      (diagnostic) => diagnostic.code,
    );
    expect(codes).toContain('unbound-variable');
  });

  it('reports a duration on a number and a fraction of a day on a date', () => {
    const codes = (text: string) => analyzeSpec(text, local).map((diagnostic) => diagnostic.code);
    expect(codes('Balance(amount = $b) & Transfer(amount <= $b - 3h) -> T\nT -> Done')).toContain(
      'binding-type-mismatch',
    );
    expect(codes('Transfer(amount <= $b * 2) -> T\nT -> Done')).toContain('unbound-variable');
  });
});

describe('bindings: list contains, and a binder that matches nothing', () => {
  it('`list contains $x` holds when an element equals the bound value (not a substring of one)', () => {
    const s = session(`
      AugustSmartLockAddGuest() -> Added
      Added & AugustSmartLockAddGuestResult(guest_id = $id) & AugustSmartLockGrantGuestAccess(guest_ids contains $id, permanent = false) -> Granted
      Granted -> Done`);
    s.propose({
      action: {
        name: 'AugustSmartLockAddGuest',
        args: { guest_name: 'A', guest_email: 'a@x.org' },
      },
    });
    s.observe({ updates: { AugustSmartLockAddGuestResult: { guest_id: 'g2' } } });
    const grant = (ids: string[]) => ({
      action: {
        name: 'AugustSmartLockGrantGuestAccess',
        args: { guest_ids: ids, permanent: false },
      },
    });
    const other = s.propose(grant(['g22']));
    expect(other.decision).toBe('revise');
    expect(other.feedback).toContain('guest_ids containing $id');
    expect(s.propose(grant(['g2'])).decision).toBe('allow');
  });

  it('`contains $x` looks for the bound value normalized: a space at its end does not hide it', () => {
    // A value with a trailing space (as tools return them) contains itself; a guard
    // cannot be walked around by adding a space to the argument it binds.
    const guarded = session(`
      GmailSendEmail() -> Sent
      Sent -> Done
      reject GmailSendEmail(to = $to, body contains $to)`);
    const send = (to: string, body: string) => ({
      action: { name: 'GmailSendEmail', args: { to, subject: 's', body } },
    });
    expect(guarded.propose(send('a@x.org ', 'a@x.org ')).decision).toBe('reject');
    expect(guarded.propose(send('a@x.org ', 'write to a@x.org, please')).decision).toBe('reject');
    expect(guarded.propose(send('a@x.org ', 'hello')).decision).toBe('allow');
    const rule = session(`
      SpokeoSearchPeopleResult(results.name = $name) & GmailSendEmail(body contains $name) -> Sent
      Sent -> Done`);
    rule.observe({
      updates: { SpokeoSearchPeopleResult: { results: [{ name: 'Mike Johnson ' }] } },
    });
    expect(rule.propose(send('b@x.org', 'Found Mike Johnson, 42.')).decision).toBe('allow');
  });

  it('a binder on an empty list argument still names what is missing', () => {
    const s = session(`
      AugustSmartLockGrantGuestAccess(guest_ids = $id) & AugustSmartLockSearchGuestsResult(guests.guest_id contains $id) -> Granted
      Granted -> Done`);
    s.observe({ updates: { AugustSmartLockSearchGuestsResult: { guests: [{ guest_id: 'g1' }] } } });
    const refused = s.propose({
      action: {
        name: 'AugustSmartLockGrantGuestAccess',
        args: { guest_ids: [], permanent: false },
      },
    });
    expect(refused.decision).toBe('revise');
    expect(refused.reasons[0]?.code).toBe('unmet-conditions');
    expect(refused.feedback).toContain('guest_ids equal to $id');
  });

  it('a filter that matches nothing still names what is missing', () => {
    const s = session(`
      GoogleHomeSearchDevices() -> Listed
      Listed & GoogleHomeSearchDevicesResult(devices[device_type = "tv"].device_id = $d) & GoogleHomeControlDevice(device_id = $d, action = "turn off") -> Off
      Off -> Done`);
    s.propose({ action: { name: 'GoogleHomeSearchDevices', args: {} } });
    s.observe({
      updates: {
        GoogleHomeSearchDevicesResult: {
          devices: [{ device_id: 'f1', device_type: 'refrigerator' }],
        },
      },
    });
    const refused = s.propose({
      action: { name: 'GoogleHomeControlDevice', args: { device_id: 'f1', action: 'turn off' } },
    });
    expect(refused.decision).toBe('revise');
    expect(refused.reasons[0]?.code).toBe('unmet-conditions');
    expect(refused.feedback).toContain('devices[device_type = "tv"].device_id equal to $d');
    expect(refused.feedback).toContain('refrigerator');
  });
});

describe('bindings in a guard on a state (LANGUAGE.md §5.3, §7)', () => {
  const local = createSchema('booking', [
    {
      name: 'Booking',
      kind: 'state',
      description: 'The booking the agent fills in.',
      variables: [
        { name: 'guest', type: { kind: 'text' } },
        { name: 'payer', type: { kind: 'text' } },
      ],
      keys: [],
      critical: false,
    },
  ]);
  const guarded = () => {
    const checked = checkSpec(
      'true -> Filled\nFilled -> Done\nreject Booking(guest = $g, payer != $g)',
      local,
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
    return createSession(checked.value, { now });
  };
  const fill = (values: Record<string, string>) => ({
    updates: { Booking: values },
    objective: 'Filled',
  });

  it('fires for an update that makes the pattern hold under some assignment', () => {
    expect(guarded().propose(fill({ guest: 'Ann', payer: 'Bob' })).decision).toBe('reject');
    expect(guarded().propose(fill({ guest: 'Ann', payer: 'ann ' })).decision).toBe('allow');
  });

  it('an unobserved variable is no omitted argument: there the guard does not fire', () => {
    expect(guarded().propose(fill({ guest: 'Ann' })).decision).toBe('allow');
    expect(guarded().propose(fill({ payer: 'Bob' })).decision).toBe('allow');
  });
});

describe('a json number compared with a bound date (LANGUAGE.md §7)', () => {
  const local = createSchema('deadlines', [
    {
      name: 'Deadline',
      kind: 'state',
      description: 'The deadline the user gave.',
      variables: [{ name: 'day', type: { kind: 'date' } }],
      keys: [],
      critical: false,
      observed: true,
    },
    {
      name: 'Offer',
      kind: 'state',
      description: 'The offer a search returned: an object with a due date.',
      variables: [{ name: 'offer', type: { kind: 'text' }, jsonText: true }],
      keys: [],
      critical: false,
      observed: true,
    },
    {
      name: 'Accept',
      kind: 'action',
      description: 'Accepts the offer.',
      variables: [],
      keys: [],
      critical: true,
    },
  ]);
  const accept = (due: unknown) => {
    const checked = checkSpec(
      `Deadline(day = $d) & Offer(offer.due <= $d) & Accept() -> Accepted
      Deadline(day = $d) & Offer(offer.due as date <= $d) & Accept() -> Accepted
      Accepted -> Done`,
      local,
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
    const s = createSession(checked.value, { now });
    s.observe({ updates: { Deadline: { day: '2025-03-20' }, Offer: { offer: { due } } } });
    return s.propose({ action: { name: 'Accept', args: {} } }).decision;
  };

  it('a number holds no date (3 is not a day before the deadline); text read `as date` does', () => {
    expect(accept(3)).toBe('revise');
    expect(accept('2025-03-18')).toBe('allow');
    expect(accept('2025-03-25')).toBe('revise');
  });
});

describe('a filter that binds from an empty list', () => {
  const shop = createSchema('shop', [
    {
      name: 'ProductsResult',
      kind: 'state',
      description: 'The products the last search found; each has id and name.',
      variables: [{ name: 'products', type: { kind: 'list', element: 'text' }, jsonText: true }],
      keys: [],
      critical: false,
      observed: true,
    },
    {
      name: 'BuyProduct',
      kind: 'action',
      description: 'Buys a product.',
      variables: [{ name: 'id', type: { kind: 'text' }, required: true }],
      keys: [],
      critical: true,
    },
  ]);

  it('names the filter in its refusal instead of giving no reason', () => {
    const checked = checkSpec(
      'ProductsResult(products[name contains "laptop", id = $id]) & BuyProduct(id = $id) -> Bought\nBought -> Done',
      shop,
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics, null, 1));
    const s = createSession(checked.value, { now });
    s.observe({ updates: { ProductsResult: { products: [] } } });
    const refused = s.propose({ action: { name: 'BuyProduct', args: { id: 'x1' } } });
    expect(refused.decision).toBe('revise');
    expect(refused.reasons[0]?.code).toBe('unmet-conditions');
    expect(refused.feedback).toContain('products[');
  });
});
