import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { airline, airlineSession } from '../../test/support/airline.js';
import { airlineBooking, airlineUserDetails } from '../../test/support/airline-user.js';
import { checkSpec, type Schema } from '../language/index.js';
import { parse } from '../language/parser.js';
import { print } from '../language/printer.js';
import { schemaFromMcpTools } from '../schema/index.js';
import { explainSpec } from './explain.js';
import { mapEntries, tooLarge } from './map-steps.js';
import { createSession } from './session-all-parts.js';

/**
 * `m.*` and `keys(m)` (LANGUAGE.md §9) on τ-bench's `get_user_details` result, with a real
 * user record of its database (data/taubench/airline/db/users.json).
 */
// sophia_davis_8874: three gift cards (199, 134, 264), two certificates, two credit cards.
const sophiaDetails = { get_user_detailsResult: airlineUserDetails('sophia_davis_8874') };
const booking = (...payments: readonly [string, number][]) =>
  airlineBooking('sophia_davis_8874', ...payments);

function decide(
  spec: string,
  proposal: ReturnType<typeof booking>,
  observed: Record<string, unknown> = sophiaDetails,
) {
  const session = airlineSession(spec);
  session.observe({ updates: observed });
  return session.propose(proposal).decision;
}

describe('maps (LANGUAGE.md §9)', () => {
  it('parses and prints m.* and keys(m) as a fixed point', () => {
    const text =
      'get_user_detailsResult(count(keys(payment_methods)) >= 2, count(payment_methods.*[source = "certificate"]) = 2) -> Done\n';
    const parsed = parse(text);
    if (!parsed.ok) throw new Error('does not parse');
    const printed = print(parsed.value.ast);
    expect(printed).toContain('count(keys(payment_methods))');
    expect(printed).toContain('payment_methods.*[source = "certificate"]');
    const again = parse(printed);
    expect(again.ok && print(again.value.ast)).toBe(printed);
    const checked = checkSpec(text, airline);
    expect(checked.ok ? [] : checked.diagnostics.map((item) => item.code)).toEqual([]);
  });

  it('reads keys(…) nested as deep as the input without recursion', () => {
    const depth = 100_000;
    const text = `get_user_detailsResult(count(${'keys('.repeat(depth)}payment_methods${')'.repeat(depth)}) = 1) -> Done`;
    const parsed = parse(text);
    expect(parsed.ok).toBe(true);
    // keys() of keys(): the keys are a list of texts, no map — one located error.
    const checked = checkSpec(text, airline);
    expect(checked.ok ? [] : checked.diagnostics.map((item) => item.code)).toEqual(['invalid-map']);
  });

  it('reports .* on a value that is not a json object', () => {
    const checked = checkSpec('get_user_detailsResult(email.* = "x") -> Done', airline);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.diagnostics.map((item) => item.code)).toContain('invalid-map');
  });
});

describe('maps on a real τ-bench user record', () => {
  it('binds the id of a gift card in the profile: another method is no gift card', () => {
    const spec = `
      get_user_detailsResult(payment_methods.*[source = "gift_card"].id = $pm) & book_reservation(payment_methods[0].payment_id = $pm) -> Booked
      Booked -> Done`;
    expect(decide(spec, booking(['gift_card_6874494', 100]))).toBe('allow');
    expect(decide(spec, booking(['gift_card_5896248', 100]))).toBe('allow');
    expect(decide(spec, booking(['certificate_1654224', 100]))).toBe('revise');
    expect(decide(spec, booking(['credit_card_4801844', 100]))).toBe('revise');
    // A gift card that is not hers.
    expect(decide(spec, booking(['gift_card_0000000', 100]))).toBe('revise');
  });

  it('sums the gift cards of the map (199 + 134 + 264 = 597)', () => {
    const exactly = (total: number) => `
      get_user_detailsResult(sum(payment_methods.*[source = "gift_card"].amount) = ${total}) & book_reservation() -> Booked
      Booked -> Done`;
    expect(decide(exactly(597), booking(['gift_card_6874494', 100]))).toBe('allow');
    expect(decide(exactly(598), booking(['gift_card_6874494', 100]))).toBe('revise');
  });

  it('counts the keys and finds one among them', () => {
    const spec = (condition: string) => `
      get_user_detailsResult(${condition}) & book_reservation() -> Booked
      Booked -> Done`;
    const any = booking(['credit_card_4801844', 100]);
    expect(decide(spec('count(keys(payment_methods)) = 7'), any)).toBe('allow');
    expect(decide(spec('count(keys(payment_methods)) = 6'), any)).toBe('revise');
    expect(decide(spec('keys(payment_methods) contains "credit_card_3309619"'), any)).toBe('allow');
    expect(decide(spec('keys(payment_methods) contains "credit_card_7815826"'), any)).toBe(
      'revise',
    );
    // The first key in order (by code unit): certificate_1654224, whatever order the
    // database wrote them in.
    expect(decide(spec('keys(payment_methods)[0] = "certificate_1654224"'), any)).toBe('allow');
    expect(decide(spec('payment_methods.*[-1].id = "gift_card_6874494"'), any)).toBe('allow');
  });

  it('binds each key: a payment method must be in the profile', () => {
    const spec = `
      get_user_detailsResult(keys(payment_methods) = $pm) & book_reservation(payment_methods[0].payment_id = $pm) -> Booked
      Booked -> Done`;
    expect(decide(spec, booking(['certificate_9507611', 100]))).toBe('allow');
    expect(decide(spec, booking(['credit_card_7815826', 100]))).toBe('revise');
  });

  it('is a missing value on a value that is not an object: false in a rule', () => {
    const spec = `
      get_user_detailsResult(count(keys(payment_methods)) >= 0) & book_reservation() -> Booked
      Booked -> Done`;
    const proposal = booking(['gift_card_6874494', 100]);
    for (const payment_methods of [['gift_card_6874494'], 'gift_card_6874494', 7, null]) {
      const observed = {
        get_user_detailsResult: { user_id: 'sophia_davis_8874', payment_methods },
      };
      expect(decide(spec, proposal, observed)).toBe('revise');
    }
    expect(decide(spec, proposal)).toBe('allow');
  });
});

/** A tool that takes a json object of payment methods keyed by id, for guards. */
const walletSchema = schemaFromMcpTools({
  tools: [
    {
      name: 'wallet',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: {
        type: 'object',
        properties: { methods: { type: 'object', description: 'keyed by id: source, amount, id' } },
      },
    },
    {
      name: 'pay',
      inputSchema: {
        type: 'object',
        properties: {
          methods: { type: 'object', description: 'keyed by id: source, amount, id' },
        },
        required: ['methods'],
      },
      annotations: { destructiveHint: true },
    },
  ],
}).value as Schema;

function walletSession(text: string) {
  const checked = checkSpec(text, walletSchema);
  if (!checked.ok) throw new Error(checked.diagnostics.map((item) => item.message).join('\n'));
  return createSession(checked.value, { now: '2024-05-15T15:00' });
}

const pay = (methods: unknown) => ({ action: { name: 'pay', args: { methods } } });

describe('maps in guards', () => {
  const guard = `
    reject pay(sum(methods.*.amount) > 500) because "over budget"
    @repeat
    pay() -> Paid
    Paid -> Done`;

  it('refuses a payment whose methods add up to more than the budget', () => {
    const methods = {
      gift_card_1: { source: 'gift_card', amount: 300, id: 'gift_card_1' },
      certificate_2: { source: 'certificate', amount: 250, id: 'certificate_2' },
    };
    expect(walletSession(guard).propose(pay(methods)).decision).toBe('reject');
    expect(walletSession(guard).propose(pay({ gift_card_1: methods.gift_card_1 })).decision).toBe(
      'allow',
    );
  });

  it('fires on a value that is not an object (fail closed)', () => {
    for (const methods of [[{ amount: 300 }], 'gift_card_1', 5, true])
      expect(walletSession(guard).propose(pay(methods)).decision).toBe('reject');
  });
});

describe('prototype keys are ordinary keys', () => {
  // Written as JSON text so that __proto__ and constructor are own keys, as a tool's
  // parsed output has them.
  const hostile = JSON.parse(
    '{"__proto__": {"source": "gift_card", "amount": 900, "id": "__proto__"}, "constructor": {"source": "certificate", "amount": 50, "id": "constructor"}, "toString": {"source": "credit_card", "id": "toString"}}',
  ) as Record<string, unknown>;

  it('counts, lists and sums them as entries of the map', () => {
    const spec = (condition: string) => `
      wallet() -> Known
      walletResult(${condition}) & pay() -> Paid
      Paid -> Done`;
    const decideWith = (condition: string) => {
      const session = walletSession(spec(condition));
      session.observe({ updates: { walletResult: { methods: hostile } } });
      return session.propose(pay({})).decision;
    };
    expect(decideWith('count(keys(methods)) = 3')).toBe('allow');
    expect(decideWith('keys(methods) contains "__proto__"')).toBe('allow');
    expect(decideWith('keys(methods)[0] = "__proto__"')).toBe('allow');
    expect(decideWith('sum(methods.*[source = "gift_card"].amount) = 900')).toBe('allow');
    expect(decideWith('methods.*[id = "constructor"][0].amount = 50')).toBe('allow');
    // Nothing inherited is read: an empty map has no keys, not those of Object.prototype.
    const empty = walletSession(spec('count(keys(methods)) = 0'));
    empty.observe({ updates: { walletResult: { methods: {} } } });
    expect(empty.propose(pay({})).decision).toBe('allow');
    const inherited = walletSession(spec('keys(methods) contains "constructor"'));
    inherited.observe({ updates: { walletResult: { methods: {} } } });
    expect(inherited.propose(pay({})).decision).toBe('revise');
  });

  it('a guard reads a __proto__ entry: it cannot hide an amount', () => {
    const guard = `
      reject pay(sum(methods.*.amount) > 500) because "over budget"
      pay() -> Paid
      Paid -> Done`;
    expect(walletSession(guard).propose(pay(hostile)).decision).toBe('reject');
  });
});

describe('key order never changes a verdict', () => {
  const specs = [
    `
      @repeat
      walletResult(methods.*[source = "gift_card"].id = $m) & pay(methods.*[0].id = $m) -> Paid
      Paid -> Done`,
    `
      reject pay(methods.*[0].amount > 100) because "the first is too large"
      reject pay(keys(methods)[-1] = "b") because "b last"
      @repeat
      walletResult(keys(methods) = $k, count(methods.*[amount >= 50]) >= 1) & pay(keys(methods) contains $k) -> Paid
      Paid -> Done`,
  ].map((text) => {
    const checked = checkSpec(text, walletSchema);
    if (!checked.ok) throw new Error(checked.diagnostics.map((item) => item.message).join('\n'));
    return checked.value;
  });
  const key = fc.constantFrom('a', 'b', 'B', '10', '2', '__proto__', 'constructor', 'gift_card_1');
  const entry = fc.record({
    source: fc.constantFrom('gift_card', 'certificate'),
    amount: fc.integer({ min: 0, max: 200 }),
  });
  const map = fc.uniqueArray(fc.tuple(key, entry), { selector: ([name]) => name, maxLength: 6 });

  /** The map as JSON text with its keys in the given order (JSON.parse keeps it, but for integer keys). */
  const written = (entries: readonly (readonly [string, { source: string; amount: number }])[]) =>
    JSON.parse(
      `{${entries.map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify({ ...value, id: name })}`).join(',')}}`,
    ) as unknown;

  it('gives the same decisions, byte for byte, for any order of the keys', () => {
    fc.assert(
      fc.property(map, map, fc.nat(), (observed, proposed, seed) => {
        const shuffled = <T>(list: readonly T[]) =>
          list
            .map((item, index) => ({ item, order: (index * 7919 + seed) % 101 }))
            .sort((left, right) => left.order - right.order)
            .map(({ item }) => item);
        for (const spec of specs) {
          const verdicts = [observed, shuffled(observed)].map((order, index) => {
            const session = createSession(spec, { now: '2024-05-15T15:00' });
            session.observe({ updates: { walletResult: { methods: written(order) } } });
            const methods = written(index === 0 ? proposed : shuffled(proposed));
            return JSON.stringify(session.propose(pay(methods)));
          });
          expect(verdicts[1]).toBe(verdicts[0]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('reads entries in key order by code unit, not in the order they were written', () => {
    const entries = mapEntries(JSON.parse('{"b": 1, "10": 2, "B": 3, "2": 4, "a": 5}'));
    if (entries === tooLarge) throw new Error('too large');
    expect(entries.map(([name]) => name)).toEqual(['10', '2', 'B', 'a', 'b']);
  });
});

describe('a map too large to read within maxJoinWork', () => {
  // maxJoinWork (10⁵) entries, short keys and values so that the JSON text stays within
  // what one observation (and, with the limit raised, one argument) may hold.
  const map = (size: number) =>
    Object.fromEntries(Array.from({ length: size }, (_, index) => [index.toString(36), 0]));
  const huge = map(100_000);
  const largest = map(99_999);
  const limits = { maxValueLength: 2_000_000 };

  function observing(text: string, methods: object) {
    const session = walletSession(text);
    expect(session.observe({ updates: { walletResult: { methods } } }).ok).toBe(true);
    return session;
  }

  it('is not read: a rule does not fire', () => {
    const rule = `
      wallet() -> Known
      walletResult(count(keys(methods)) >= 1, max(methods.*) = 0) & pay() -> Paid
      Paid -> Done`;
    expect(observing(rule, huge).propose(pay({})).decision).toBe('revise');
    // One entry fewer is read.
    expect(observing(rule, largest).propose(pay({})).decision).toBe('allow');
  });

  it('is not read: a guard fires', () => {
    const checked = checkSpec(
      `reject pay(max(methods.*) > 1) because "no method above 1"
      pay() -> Paid
      Paid -> Done`,
      walletSchema,
    );
    if (!checked.ok) throw new Error(checked.diagnostics[0]?.message);
    const guard = createSession(checked.value, { now: '2024-05-15T15:00', limits });
    expect(guard.propose(pay(huge)).decision).toBe('reject');
    expect(guard.propose(pay(largest)).decision).toBe('allow');
  });

  it('inside not, counts as matching: not over it does not hold', () => {
    const negated = `
      wallet() -> Known
      not walletResult(max(methods.*) > 1) & pay() -> Paid
      Paid -> Done`;
    expect(observing(negated, huge).propose(pay({})).decision).toBe('revise');
    expect(observing(negated, largest).propose(pay({})).decision).toBe('allow');
  });

  it('stops counting at the bound and copies nothing', () => {
    // Values behind getters that throw: the bound is reached without reading any of them.
    const guarded = () => {
      const map = {};
      for (let index = 0; index < 11; index++)
        Object.defineProperty(map, `k${index}`, {
          enumerable: true,
          get: () => {
            throw new Error('a value was read');
          },
        });
      return map;
    };
    expect(mapEntries(guarded(), 10)).toBe(tooLarge);
    const atTheBound = guarded();
    expect(mapEntries(atTheBound, 11)).toBe(tooLarge);
    // Known to be too large: not counted again.
    expect(mapEntries(atTheBound, 11)).toBe(tooLarge);
    // One entry below the bound, the entries are read (here, the getters throw).
    expect(() => mapEntries(guarded(), 12)).toThrow('a value was read');
  });
});

describe('explain renders maps in plain words', () => {
  it('names the values and the keys of a map', () => {
    const checked = checkSpec(
      `reject book_reservation(payment_methods[0].payment_id = "gift_card_0000000")
      get_user_detailsResult(payment_methods.*[source = "gift_card"].id = $pm, count(keys(payment_methods)) >= 2, sum(payment_methods.*[source = "certificate"].amount) >= 100, keys(payment_methods)[-1] != "x") & book_reservation(payment_methods[0].payment_id = $pm) -> Booked
      Booked -> Done`,
      airline,
    );
    if (!checked.ok) throw new Error(checked.diagnostics[0]?.message);
    const text = explainSpec(checked.value).text;
    expect(text).toContain('payment_methods[each value][source = "gift_card"].id');
    expect(text).toContain('count(payment_methods[each key])');
    expect(text).toContain('the sum of payment_methods[each value][source = "certificate"].amount');
    expect(text).toContain('payment_methods[each key][last]');
    expect(text).not.toContain('.*');
    expect(text).not.toContain('keys(');
  });
});
