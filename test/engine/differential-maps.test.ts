import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, lexicalSimilarity } from '../../src/engine/index.js';
import { checkSpec, createSchema } from '../../src/language/index.js';
import { fixedNow } from './fixtures.js';
import { ReferenceSession } from './reference-evaluator.js';

/*
 * The engine against the reference evaluator (written from LANGUAGE.md §9) on maps:
 * random rules, `not` and guards reading `m.*` and `keys(m)` — counted, summed, filtered,
 * positioned, bound — over random maps keyed by ids (integer-like keys, `__proto__`,
 * `constructor`, entries that are not objects, values that are not maps at all), as a
 * tool's result and as an action's argument.
 */

const json = { kind: 'text' } as const;
const schema = createSchema('maps', [
  {
    name: 'Wallet',
    kind: 'state',
    description: "The user's payment methods keyed by id: id, n, s.",
    variables: [{ name: 'methods', type: json, jsonText: true }],
    keys: [],
    critical: false,
    observed: true,
  },
  {
    name: 'Pay',
    kind: 'action',
    description: 'Pays with one method, or with a map of them.',
    variables: [
      { name: 'id', type: { kind: 'text' }, required: true },
      { name: 'methods', type: json, jsonText: true },
    ],
    keys: [],
    critical: true,
  },
]);

const keys = ['a', 'b', 'B', '10', '2', '__proto__', 'constructor'] as const;
const keyArb = fc.constantFrom(...keys);
const operator = fc.constantFrom('=', '!=', '<', '<=', '>', '>=');
const small = fc.integer({ min: 0, max: 4 });
const position = fc.constantFrom('0', '1', '-1');
const filter = fc.constantFrom('', '[n >= 1]', '[s = "a"]', '[n < 2, s != "b"]');
const text = keyArb.map((key) => JSON.stringify(key));

/** A condition on a map named `m` (`methods`), without bindings. */
const conditionArb = (m: string) =>
  fc.oneof(
    fc.tuple(operator, small).map(([op, bound]) => `count(keys(${m})) ${op} ${bound}`),
    fc
      .tuple(fc.constantFrom('contains', 'not contains'), text)
      .map(([op, key]) => `keys(${m}) ${op} ${key}`),
    fc
      .tuple(position, fc.constantFrom('=', '!='), text)
      .map(([at, op, key]) => `keys(${m})[${at}] ${op} ${key}`),
    fc
      .tuple(filter, operator, small)
      .map(([kept, op, bound]) => `count(${m}.*${kept}) ${op} ${bound}`),
    fc
      .tuple(fc.constantFrom('sum', 'min', 'max'), filter, operator, small)
      .map(([fn, kept, op, bound]) => `${fn}(${m}.*${kept}.n) ${op} ${bound}`),
    fc.tuple(position, operator, small).map(([at, op, bound]) => `${m}.*[${at}].n ${op} ${bound}`),
    fc
      .tuple(fc.constantFrom('any', 'each'), fc.constantFrom('"a"', '"b"'))
      .map(([quantifier, value]) => `${quantifier}(${m}.*.s) = ${value}`),
    fc
      .tuple(filter, fc.constantFrom('contains', 'not contains'), text)
      .map(([kept, op, key]) => `${m}.*${kept}.id ${op} ${key}`),
  );

/** A rule: conditions on the wallet, bindings from it to the payment, `not`; or a guard. */
const specArb = fc
  .tuple(
    fc.constantFrom('rule', 'bound id', 'bound key', 'not', 'guard', 'guard binding'),
    conditionArb('methods'),
    conditionArb('methods'),
    filter,
  )
  .map(([form, first, second, kept]) => {
    switch (form) {
      case 'rule':
        return `@repeat\nWallet(${first}) & Pay(${second}) -> Paid\nPaid -> Done`;
      case 'bound id':
        return `@repeat\nWallet(methods.*${kept}.id = $m, ${first}) & Pay(id = $m) -> Paid\nPaid -> Done`;
      case 'bound key':
        return `@repeat\nWallet(keys(methods) = $m) & Pay(id = $m, ${second}) -> Paid\nPaid -> Done`;
      case 'not':
        return `@repeat\nnot Wallet(${first}) & Pay() -> Paid\nPaid -> Done`;
      case 'guard':
        return `reject Pay(${first})\n@repeat\nPay() -> Paid\nPaid -> Done`;
      default:
        return `reject Pay(methods.*${kept}.id = $x, id = $x)\nconfirm Pay(${second})\n@repeat\nPay() -> Paid\nPaid -> Done`;
    }
  });

/** An entry: a method `{id, n, s}` with fields missing or of the wrong JSON type, or no object. */
const entryArb = (key: string) =>
  fc.oneof(
    {
      weight: 5,
      // A field left out is absent, never present as undefined (JSON has no undefined).
      arbitrary: fc.record(
        {
          id: fc.constantFrom(key, key, 'a'),
          n: fc.oneof(small, fc.constant('1')),
          s: fc.constantFrom('a', 'b'),
        },
        { requiredKeys: ['id'] },
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(null, 3, 'a', [1]) },
  );

/** A map keyed by ids (own keys, `__proto__` too), or a value that is no map. */
const mapArb: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .uniqueArray(keyArb, { maxLength: 5 })
      .chain((names) =>
        fc
          .tuple(...names.map((name) => entryArb(name)))
          .map((entries) => Object.fromEntries(names.map((name, index) => [name, entries[index]]))),
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom([], [{ id: 'a', n: 1 }], 'a', 2) },
);

const worldArb = fc.record({
  wallet: fc.option(mapArb, { nil: undefined }),
  payments: fc.array(fc.record({ id: keyArb, methods: fc.option(mapArb, { nil: undefined }) }), {
    minLength: 1,
    maxLength: 3,
  }),
});

type World = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

const statistics = { worlds: 0, allowed: 0, refused: 0, decisions: new Set<string>() };

function run(text: string, world: World): void {
  const checked = checkSpec(text, schema);
  if (!checked.ok) throw new Error(`${text}\n${checked.diagnostics[0]?.message}`);
  statistics.worlds++;
  const engine = createSession(checked.value, {
    now: fixedNow,
    similarity: lexicalSimilarity,
    similarityThreshold: 0.75,
    escalateAfter: 3,
    unplannedCritical: 'revise',
  });
  const reference = new ReferenceSession(checked.value, {
    now: fixedNow,
    similarity: lexicalSimilarity,
    threshold: 0.75,
    escalateAfter: 3,
    unplannedCritical: 'revise' as const,
  });
  const events: Record<string, unknown>[] = [
    ...(world.wallet === undefined
      ? []
      : [{ observe: { updates: { Wallet: { methods: world.wallet } } } }]),
    ...world.payments.map(({ id, methods }) => ({
      propose: { action: { name: 'Pay', args: methods === undefined ? { id } : { id, methods } } },
    })),
    { propose: { finish: true } },
  ];
  events.forEach((event, index) => {
    const where = `${text}\nstep ${index + 1}: ${JSON.stringify(event)}`;
    if ('observe' in event) {
      engine.observe(event.observe as Parameters<typeof engine.observe>[0]);
      reference.observe(event.observe);
      return;
    }
    const got = engine.propose(event.propose as Parameters<typeof engine.propose>[0]);
    const want = reference.propose(event.propose);
    expect(got.decision, where).toBe(want.decision);
    statistics.decisions.add(got.decision);
    if (got.decision === 'allow') statistics.allowed++;
    else statistics.refused++;
  });
}

describe('the engine agrees with the reference evaluator on maps (LANGUAGE.md §9)', () => {
  it('on random map specs and worlds', () => {
    fc.assert(fc.property(specArb, worldArb, run), {
      seed: Number(process.env.DIFF_SEED ?? 2209),
      numRuns: Number(process.env.DIFF_RUNS ?? 500),
    });
    // Maps both let proposals through and stop them, with every kind of refusal.
    expect(statistics.allowed).toBeGreaterThan(50);
    expect(statistics.refused).toBeGreaterThan(50);
    expect([...statistics.decisions].sort()).toEqual(['allow', 'confirm', 'reject', 'revise']);
  }, 120_000);
});
