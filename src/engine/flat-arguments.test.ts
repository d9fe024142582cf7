import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { action, schemaOf, specOf } from '../../test/engine/fixtures.js';
import { defaultLimits, isDecimal } from '../language/index.js';
import { allEngineParts } from './all-parts.js';
import { createClock } from './clock.js';
import { compileSpec } from './compiled-spec.js';
import { lexicalSimilarity } from './lexical-similarity.js';
import { proposalReadContext, readArguments, readFlatArguments, readProposal } from './proposal.js';
import { StateStore } from './state.js';
import { absentList, isTextValue, type Value } from './values.js';

/**
 * The one-pass reading of an action's arguments (`readFlatArguments`) against the reading
 * that names every problem (`readArguments`): whenever the one-pass reading answers, the
 * full reading finds no problem and reads the same values; whenever it cannot, it reads
 * nothing into the context, and the proposal is read the full way.
 */
const schema = schemaOf(
  action('Send', {
    to: { type: 'text', required: true },
    amount: 'number',
    tags: 'list<text>',
    data: { type: 'text', jsonText: true },
    mode: 'enum[fast, slow]',
    day: 'date',
    item_id: { type: 'text', sourcePath: ['item-id'] },
    order: {
      type: 'text',
      jsonText: true,
      record: { fields: [{ name: 'id', type: { kind: 'text' } }] },
    },
  }),
  action('Ship', { address_city: { type: 'text', sourcePath: ['address', 'city'] } }),
);
const spec = specOf(
  'Send(to = "Alice") -> Sent\nShip() -> Shipped\nSent & Shipped -> Done',
  schema,
);
const compiled = compileSpec(spec, {
  similarity: lexicalSimilarity,
  threshold: 0.75,
  parts: allEngineParts,
});
const clock = createClock('2025-03-14T12:00');
const limits = { ...defaultLimits, maxArguments: 6 };
const send = compiled.predicates.get('Send')!;

function context() {
  return proposalReadContext(compiled, clock, new StateStore(), limits);
}

/** A value as comparable data: text by its characters and JSON flag, the absent list by name. */
function plain(value: Value | undefined): unknown {
  if (value === absentList) return 'absent list';
  if (isTextValue(value)) return { text: value.raw, json: value.isJson };
  if (isDecimal(value)) return { decimal: value.toString() };
  if (Array.isArray(value)) return value.map((item) => plain(item));
  return value;
}

const fields = [
  'to',
  'amount',
  'tags',
  'data',
  'mode',
  'day',
  'item-id',
  'item_id',
  'order',
  'bogus',
  '__proto__',
  'toString',
];
const values: unknown[] = [
  'Alice',
  '  ALICE ',
  '12',
  12,
  1.5,
  '12345678901234567890.5',
  '',
  null,
  undefined,
  [],
  ['x', 'y'],
  [1, 'y'],
  [null],
  { id: 'A1' },
  { id: 'A1', other: 1 },
  { nested: { deep: [1, 2] } },
  true,
  'fast',
  'FAST',
  'medium',
  '2025-03-14',
  'today',
  '2025-03-14T05:00+09:00',
  'x'.repeat(limits.maxValueLength + 1),
  Number.NaN,
  '1e999',
];

const argumentObjects = fc
  .array(fc.tuple(fc.constantFrom(...fields), fc.constantFrom(...values)), { maxLength: 8 })
  .map((entries) => Object.fromEntries(entries) as Record<string, unknown>);

describe('reading an action’s arguments in one pass', () => {
  it('answers only what the full reading answers without a problem', () => {
    fc.assert(
      fc.property(argumentObjects, (args) => {
        const fast = context();
        const full = context();
        const quick = readFlatArguments(send, args, fast);
        const read = readArguments(send, args, full);
        expect(fast.problems).toEqual([]);
        if (quick === undefined) return;
        expect(full.problems).toEqual([]);
        expect(quick.map(plain)).toEqual(read.map(plain));
      }),
      { numRuns: 3_000 },
    );
  });

  it('answers the common call: every field a top-level variable that reads', () => {
    const args = { to: 'Alice', amount: '12', tags: ['a'], mode: 'fast', 'item-id': 'X' };
    const values = readFlatArguments(send, args, context());
    expect(values?.map(plain)).toEqual([
      { text: 'Alice', json: false },
      12,
      [{ text: 'a', json: false }],
      undefined,
      'fast',
      undefined,
      { text: 'X', json: false },
      undefined,
    ]);
    // An optional argument given as null is not given; an optional list not given is the absent list.
    expect(readFlatArguments(send, { to: 'Alice', amount: null }, context())?.map(plain)).toEqual([
      { text: 'Alice', json: false },
      undefined,
      'absent list',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it.each([
    ['an unknown field', { to: 'Alice', bogus: 1 }],
    ['a variable under its own name (alias)', { to: 'Alice', item_id: 'X' }],
    ['a required argument missing', { amount: 1 }],
    ['a required argument null', { to: null }],
    ['a value that does not read', { to: 'Alice', amount: 'twelve' }],
    ['a record argument', { to: 'Alice', order: { id: 'A1' } }],
    [
      'more fields than maxArguments',
      { to: 'A', amount: 1, tags: [], data: 1, mode: 'fast', day: 'today', 'item-id': 'X' },
    ],
  ])('leaves %s to the full reading', (_, args) => {
    const fast = context();
    expect(readFlatArguments(send, args, fast)).toBeUndefined();
    expect(fast.problems).toEqual([]);
  });

  it('leaves a predicate with a nested variable to the full reading', () => {
    const ship = compiled.predicates.get('Ship')!;
    expect(readFlatArguments(ship, { address: { city: 'Paris' } }, context())).toBeUndefined();
    expect(readArguments(ship, { address: { city: 'Paris' } }, context()).map(plain)).toEqual([
      { text: 'Paris', json: false },
    ]);
  });

  it('skips inherited fields as the full reading does, and reads a getter once', () => {
    const inherited = Object.assign(Object.create({ bogus: 1 }), { to: 'Alice' });
    expect(readFlatArguments(send, inherited, context())?.[0]).toSatisfy(isTextValue);
    let reads = 0;
    const counted = {
      get to() {
        reads++;
        return 'Alice';
      },
    };
    readFlatArguments(send, counted, context());
    expect(reads).toBe(1);
  });

  it('gives a proposal the same verdict data both ways, problems included', () => {
    const proposal = (args: unknown) =>
      readProposal({ action: { name: 'Send', args } }, compiled, clock, new StateStore(), limits);
    expect(proposal({ to: 'Alice', amount: 3 })).toMatchObject({ ok: true });
    const refused = proposal({ to: 'Alice', amount: 'twelve', bogus: 1 });
    expect(refused.ok).toBe(false);
    if (!refused.ok)
      expect(refused.problems.map((problem) => problem.code)).toEqual([
        'unknown-field',
        'invalid-value',
      ]);
  });
});
