import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, lexicalSimilarity } from '../../src/engine/index.js';
import { checkSpec, createSchema } from '../../src/language/index.js';
import { fixedNow } from './fixtures.js';
import { ReferenceSession } from './reference-evaluator.js';

/*
 * The engine against the reference evaluator (written from LANGUAGE.md §9) on scoped
 * negation and universals: random `not (A & B)`, `forall(A => B)` and nested scopes with
 * outer and local bindings, over random worlds (items with and without the fields the
 * scopes ask about, marks, an owner), judged on Done and on proposals.
 */

const schema = createSchema('scopes', [
  {
    name: 'Item',
    kind: 'state',
    description: 'An item of the user, by id.',
    variables: [
      { name: 'id', type: { kind: 'text' } },
      { name: 'owner', type: { kind: 'text' } },
      { name: 'kind', type: { kind: 'text' } },
      { name: 'n', type: { kind: 'number' } },
    ],
    keys: ['id'],
    critical: false,
    observed: true,
  },
  {
    name: 'Mark',
    kind: 'state',
    description: 'What was done to an item, by id.',
    variables: [
      { name: 'id', type: { kind: 'text' } },
      { name: 'ok', type: { kind: 'boolean' } },
    ],
    keys: ['id'],
    critical: false,
    observed: true,
  },
  {
    name: 'Owner',
    kind: 'state',
    description: 'The current user.',
    variables: [{ name: 'user', type: { kind: 'text' } }],
    keys: [],
    critical: false,
    observed: true,
  },
  {
    name: 'Act',
    kind: 'action',
    description: 'Acts on one item.',
    variables: [{ name: 'id', type: { kind: 'text' }, required: true }],
    keys: [],
    critical: true,
  },
]);

const ids = ['a', 'b', 'c', 'd'];
const kindArb = fc.constantFrom('x', 'y');
/** One condition on an item bound to `$i` (sometimes none). */
const itemTest = fc.constantFrom('', ', kind = x', ', kind = y', ', n > 1', ', owner = $u');
const markTest = fc.constantFrom('', ', ok = true', ', ok = false');

/** A scope over `$i` (local) under `$u` (the rule's): one of the §9 forms, nested or not. */
const scopeArb = fc
  .tuple(
    fc.constantFrom('forall', 'not', 'nested', 'double', 'not-forall'),
    itemTest,
    markTest,
    itemTest,
  )
  .map(([form, item, mark, second]) => {
    const a = `Item(id = $i${item})`;
    const b = `Mark(id = $i${mark})`;
    switch (form) {
      case 'forall':
        return `forall(${a} => ${b})`;
      case 'not':
        return `not (${a} & ${b})`;
      case 'nested':
        return `not (${a} & not (${b} & Item(id = $i${second})))`;
      case 'double':
        return `forall(${a} => ${b} & not (Item(id = $j${second}) & Mark(id = $j, ok = false)))`;
      default:
        return `not (Owner(user = $u) & forall(${a} => ${b}))`;
    }
  });

const specArb = fc
  .tuple(scopeArb, fc.boolean())
  .map(([scope, withAction]) =>
    withAction
      ? `Owner(user = $u) & Act(id = $k) & not (Mark(id = $k, ok = true)) & ${scope} -> Acted\nActed -> Done`
      : `Owner(user = $u) & ${scope} -> Done`,
  );

const worldArb = fc.record({
  owner: fc.constantFrom('u1', 'u2'),
  items: fc.array(
    fc.record({
      id: fc.constantFrom(...ids),
      owner: fc.option(fc.constantFrom('u1', 'u2'), { nil: undefined }),
      kind: fc.option(kindArb, { nil: undefined }),
      n: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
    }),
    { maxLength: 4 },
  ),
  marks: fc.array(
    fc.record({
      id: fc.constantFrom(...ids),
      ok: fc.option(fc.boolean(), { nil: undefined }),
    }),
    { maxLength: 4 },
  ),
  acts: fc.array(fc.constantFrom(...ids), { maxLength: 3 }),
});

type World = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

const defined = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));

const scopeStatistics = { worlds: 0, done: 0, notDone: 0, allowed: 0, refused: 0 };

function run(text: string, world: World): void {
  const checked = checkSpec(text, schema);
  if (!checked.ok) throw new Error(`${text}\n${checked.diagnostics[0]?.message}`);
  scopeStatistics.worlds++;
  const options = {
    now: fixedNow,
    similarity: lexicalSimilarity,
    threshold: 0.75,
    escalateAfter: 3,
    unplannedCritical: 'revise' as const,
  };
  const engine = createSession(checked.value, {
    now: options.now,
    similarity: options.similarity,
    similarityThreshold: options.threshold,
    escalateAfter: options.escalateAfter,
    unplannedCritical: options.unplannedCritical,
  });
  const reference = new ReferenceSession(checked.value, options);
  const events: Record<string, unknown>[] = [
    { observe: { updates: { Owner: { user: world.owner } } } },
    ...world.items.map((item) => ({ observe: { updates: { Item: defined(item) } } })),
    ...world.marks.map((mark) => ({ observe: { updates: { Mark: defined(mark) } } })),
    ...world.acts.map((id) => ({ propose: { action: { name: 'Act', args: { id } } } })),
    { propose: { finish: true } },
  ];
  events.forEach((event, index) => {
    const where = `${text}\nstep ${index + 1}: ${JSON.stringify(event)}`;
    if ('observe' in event) {
      engine.observe(event.observe as Parameters<typeof engine.observe>[0]);
      reference.observe(event.observe);
    } else {
      const got = engine.propose(event.propose as Parameters<typeof engine.propose>[0]);
      const want = reference.propose(event.propose);
      expect(got.decision, where).toBe(want.decision);
      if (got.decision === 'allow') scopeStatistics.allowed++;
      else scopeStatistics.refused++;
    }
    const done = engine.status().done;
    expect(done, where).toBe(reference.status().done);
    if (done) scopeStatistics.done++;
    else scopeStatistics.notDone++;
  });
}

describe('the engine agrees with the reference evaluator on scopes (LANGUAGE.md §9)', () => {
  it('on random scoped specs and worlds', () => {
    fc.assert(fc.property(specArb, worldArb, run), {
      seed: Number(process.env.DIFF_SEED ?? 922),
      numRuns: Number(process.env.DIFF_RUNS ?? 400),
    });
    // Both outcomes occur, on Done and on proposals.
    expect(scopeStatistics.done).toBeGreaterThan(20);
    expect(scopeStatistics.notDone).toBeGreaterThan(20);
    expect(scopeStatistics.allowed).toBeGreaterThan(10);
    expect(scopeStatistics.refused).toBeGreaterThan(10);
  }, 120_000);
});
