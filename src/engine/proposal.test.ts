import { describe, expect, it } from 'vitest';
import { action, schemaOf, specOf, state, tool } from '../../test/engine/fixtures.js';
import { defaultLimits } from '../language/index.js';
import { allEngineParts } from './all-parts.js';
import { createClock } from './clock.js';
import { compileSpec } from './compiled-spec.js';
import { lexicalSimilarity } from './lexical-similarity.js';
import {
  type NormalizedProposal,
  type ProposalProblem,
  proposalFingerprint,
  proposalProblemCodes,
  readObservation,
  readProposal,
} from './proposal.js';
import { StateStore, singleKey } from './state.js';
import { textValue } from './values.js';

/** A text value as its raw text and key (the key is a getter, computed on first use). */
const textOf = (raw: string, key: string) => expect.objectContaining({ raw, key });

const schema = schemaOf(
  state('Form', { name: 'text', when: 'time', size: 'number' }),
  state('Alarm', { id: 'text', hour: 'number', on: 'boolean' }, { keys: ['id'] }),
  tool(
    'BankTransfer',
    { to: 'text', amount: 'number' },
    { ok: 'boolean', ref: 'text' },
    { critical: true },
  ),
  action('Ship', {
    address_city: { type: 'text', sourcePath: ['address', 'city'] },
    address_zip: { type: 'text', sourcePath: ['address', 'zip'] },
    _2fa: { type: 'boolean', sourcePath: ['2fa'] },
  }),
  action('get_weather', { city: 'text' }, { sourceName: 'get-weather' }),
);
const spec = specOf(
  `Form(name = "R") -> Filled
   Filled & BankTransfer(to = "Alice") -> Paid
   Ship() -> Shipped
   get_weather() -> Known
   Paid & Shipped & Known & Alarm(on = true) -> Done`,
  schema,
);
const compiled = compileSpec(spec, {
  similarity: lexicalSimilarity,
  threshold: 0.75,
  parts: allEngineParts,
});
const clock = createClock('2025-03-14T12:00');

function read(input: unknown, store = new StateStore()) {
  return readProposal(input, compiled, clock, store);
}

function accepted(input: unknown, store = new StateStore()): NormalizedProposal {
  const result = read(input, store);
  if (!result.ok) throw new Error(result.problems.map((problem) => problem.message).join('; '));
  return result.value;
}

function problems(input: unknown, store = new StateStore()): ProposalProblem[] {
  const result = read(input, store);
  if (result.ok) throw new Error('expected the proposal to be refused');
  return [...result.problems];
}

function storeWithAlarm(id: string): StateStore {
  const store = new StateStore();
  const alarm = compiled.predicates.get('Alarm')!;
  store.apply({
    predicate: alarm,
    operation: 'set',
    key: `t:${id}`,
    assignments: [[0, textValue(id)]],
  });
  return store;
}

describe('readProposal: accepted shapes', () => {
  it('takes an empty proposal as changing nothing', () => {
    expect(accepted({})).toEqual({
      action: undefined,
      updates: [],
      objective: undefined,
      finish: false,
      label: undefined,
    });
  });

  it('reads an action with typed arguments, accepting "arguments" as well as "args"', () => {
    const proposal = accepted({
      action: { name: 'BankTransfer', args: { to: 'Alice', amount: '500' } },
      label: 'pay',
    });
    expect(proposal.action?.predicate.name).toBe('BankTransfer');
    expect(proposal.action?.values).toEqual([textOf('Alice', 'alice'), 500]);
    expect(proposal.label).toBe('pay');
    const alias = accepted({ action: { name: 'BankTransfer', arguments: { amount: 5 } } });
    expect(alias.action?.values).toEqual([undefined, 5]);
    expect(accepted({ action: { name: 'BankTransfer' } }).action?.values).toEqual([
      undefined,
      undefined,
    ]);
  });

  it('leaves an argument given as null unobserved', () => {
    expect(
      accepted({ action: { name: 'BankTransfer', args: { to: null, amount: 1 } } }).action?.values,
    ).toEqual([undefined, 1]);
  });

  it('reads nested arguments through sourcePath, and the flattened names too', () => {
    const nested = accepted({
      action: { name: 'Ship', args: { address: { city: 'Oslo', zip: '0150' }, '2fa': true } },
    });
    expect(nested.action?.values).toEqual([textOf('Oslo', 'oslo'), textOf('0150', '0150'), true]);
    const flat = accepted({
      action: { name: 'Ship', args: { address_city: 'Oslo', address_zip: '0150', _2fa: 'true' } },
    });
    expect(flat.action?.values).toEqual(nested.action?.values);
    expect(proposalFingerprint(flat)).toBe(proposalFingerprint(nested));
  });

  it('finds a tool by its own name when that is not an identifier (sourceName)', () => {
    expect(
      accepted({ action: { name: 'get-weather', args: { city: 'Oslo' } } }).action?.predicate.name,
    ).toBe('get_weather');
    expect(accepted({ action: { name: 'get_weather' } }).action?.predicate.name).toBe(
      'get_weather',
    );
  });

  it('reads updates keyed by predicate, merging into the single instance', () => {
    const proposal = accepted({ updates: { Form: { name: 'R', when: '6:30 PM' } } });
    expect(proposal.updates).toHaveLength(1);
    const [update] = proposal.updates;
    expect(update).toMatchObject({ operation: 'set', key: singleKey });
    expect(update?.assignments).toEqual([
      [0, textOf('R', 'r')],
      [1, 18 * 3600 + 30 * 60],
    ]);
  });

  it('clears a variable given as null in an update', () => {
    expect(accepted({ updates: { Form: { size: null } } }).updates[0]?.assignments).toEqual([
      [2, undefined],
    ]);
  });

  it('reads a list of instances for a keyed predicate in the object form', () => {
    const proposal = accepted({
      updates: {
        Alarm: [
          { id: 'a', hour: 7 },
          { id: 'b', on: true },
        ],
      },
    });
    expect(proposal.updates.map((update) => update.key)).toEqual(['t:a', 't:b']);
  });

  it('reads the array form with add, update and delete (FORMATS.md §2)', () => {
    const proposal = accepted(
      {
        updates: [
          { predicate: 'Alarm', op: 'add', values: { id: 'b', hour: 9 } },
          { predicate: 'Alarm', op: 'update', values: { id: 'a', on: true } },
          { predicate: 'Alarm', op: 'update', values: { id: 'b', on: false } },
          { predicate: 'Alarm', op: 'delete', values: { id: 'a' } },
          { predicate: 'Form', values: { size: 2 } },
        ],
      },
      storeWithAlarm('a'),
    );
    expect(
      proposal.updates.map(
        (update) => `${update.predicate.name}:${update.operation}:${update.key}`,
      ),
    ).toEqual(['Alarm:set:t:b', 'Alarm:set:t:a', 'Alarm:set:t:b', 'Alarm:delete:t:a', 'Form:set:']);
  });

  it('deletes a single-instance predicate without values', () => {
    expect(accepted({ updates: [{ predicate: 'Form', op: 'delete' }] }).updates[0]).toMatchObject({
      operation: 'delete',
      key: singleKey,
    });
  });

  it('replaces a tool result as a whole: fields it does not give are cleared', () => {
    const observed = readObservation(
      { updates: { BankTransferResult: { ok: true } } },
      compiled,
      clock,
      new StateStore(),
    );
    if (!observed.ok) throw new Error('expected the observation to be read');
    const [update] = observed.value;
    expect(update?.assignments).toEqual([
      [0, true],
      [1, undefined],
    ]);
  });

  it('reads an objective and finish', () => {
    expect(accepted({ objective: 'Filled' }).objective).toBe('Filled');
    expect(accepted({ finish: true }).finish).toBe(true);
    expect(accepted({ finish: false, objective: null }).finish).toBe(false);
  });
});

describe('readProposal: every problem is located and spelled out', () => {
  it.each([
    [null, 'a proposal must be a JSON object', {}],
    [[1], 'a proposal must be a JSON object', { actual: '[1]' }],
    ['go', 'a proposal must be a JSON object', { actual: 'go' }],
    [
      { action: 'BankTransfer' },
      '"action" must be an object with a "name" and optional "args"',
      { actual: 'BankTransfer' },
    ],
    [{ action: { args: {} } }, '"action" must be an object with a "name" and optional "args"', {}],
    [{ action: { name: 'Wire' } }, "unknown action 'Wire'", { predicate: 'Wire' }],
    [
      { updates: { BankTransferResult: { ok: true } } },
      'BankTransferResult holds the result of BankTransfer; it is observed after BankTransfer runs, never proposed',
      { predicate: 'BankTransferResult' },
    ],
    [
      { action: { name: 'Form' } },
      'Form is a state, not an action; propose its values as "updates"',
      { predicate: 'Form' },
    ],
    [
      { action: { name: 'BankTransfer', args: [1] } },
      'the arguments of BankTransfer must be an object',
      { predicate: 'BankTransfer', actual: '[1]' },
    ],
    [
      { action: { name: 'BankTransfer', args: { amout: 5 } } },
      "BankTransfer has no variable 'amout' (did you mean 'amount'?)",
      { predicate: 'BankTransfer', variable: 'amout' },
    ],
    [
      { action: { name: 'BankTransfer', args: { amount: 'lots' } } },
      'BankTransfer.amount: "lots" is not a number',
      { predicate: 'BankTransfer', variable: 'amount', actual: 'lots' },
    ],
    [
      { updates: 'Form' },
      '"updates" must be an object keyed by predicate, or an array',
      { actual: 'Form' },
    ],
    [{ updates: { Nope: {} } }, "unknown predicate 'Nope'", { predicate: 'Nope' }],
    [
      { updates: { BankTransfer: { to: 'x' } } },
      'BankTransfer is an action; propose it as "action", not as a state update',
      { predicate: 'BankTransfer' },
    ],
    [
      { updates: { Form: 'R' } },
      'the values for Form must be an object',
      { predicate: 'Form', actual: 'R' },
    ],
    [
      { updates: { Form: { nam: 'R' } } },
      "Form has no variable 'nam' (did you mean 'name'?)",
      { predicate: 'Form', variable: 'nam' },
    ],
    [
      { updates: { Form: { when: '25:00' } } },
      'Form.when: "25:00" is not a time (expected HH:MM)',
      { variable: 'when', actual: '25:00' },
    ],
    [
      { updates: { Alarm: { hour: 7 } } },
      'Alarm holds several instances; give its key (id)',
      { predicate: 'Alarm' },
    ],
    [
      { updates: [{ predicate: 'Alarm', op: 'upsert', values: { id: 'a' } }] },
      "unknown update operation 'upsert' (use add, update or delete)",
      { predicate: 'Alarm' },
    ],
    [
      { updates: [{ op: 'add' }] },
      'each update must be an object with "predicate", "op" and "values"',
      { actual: '{"op":"add"}' },
    ],
    [
      { updates: ['Alarm'] },
      'each update must be an object with "predicate", "op" and "values"',
      { actual: 'Alarm' },
    ],
    [
      { updates: [{ predicate: 'Alarm', op: 'update', values: { id: 'zz', on: true } }] },
      'Alarm has no instance with that key to update',
      { predicate: 'Alarm' },
    ],
    [
      { updates: [{ predicate: 'Alarm', op: 'delete', values: { id: 'zz' } }] },
      'Alarm has no instance with that key to delete',
      { predicate: 'Alarm' },
    ],
    [{ objective: 7 }, '"objective" must be a string', { actual: '7' }],
    [
      { objective: 'done' },
      'Done is not performed; propose {"finish": true} when the task is complete',
      {},
    ],
    [
      { objective: 'Fild' },
      "no rule produces the objective 'Fild' (objectives: Filled, Paid, Shipped, Known)",
      { actual: 'Fild' },
    ],
    [{ finish: 'yes' }, '"finish" must be true or false', { actual: 'yes' }],
    [
      { finish: true, objective: 'Filled' },
      'a finishing proposal carries nothing else; propose the last step first',
      {},
    ],
    [
      { finish: true, action: { name: 'Ship' } },
      'a finishing proposal carries nothing else; propose the last step first',
      {},
    ],
    [
      { finish: true, updates: { Form: { size: 1 } } },
      'a finishing proposal carries nothing else; propose the last step first',
      {},
    ],
  ] as const)('%j → %s', (input, message, fields) => {
    const found = problems(input);
    expect(found.map((problem) => problem.message)).toContain(message);
    expect(found.find((problem) => problem.message === message)).toMatchObject(fields);
  });

  it('sees the instances the same proposal adds or deletes before it', () => {
    expect(
      accepted({
        updates: [
          { predicate: 'Alarm', op: 'add', values: { id: 'n' } },
          { predicate: 'Alarm', op: 'update', values: { id: 'n', on: true } },
        ],
      }).updates,
    ).toHaveLength(2);
    expect(
      problems(
        {
          updates: [
            { predicate: 'Alarm', op: 'delete', values: { id: 'a' } },
            { predicate: 'Alarm', op: 'update', values: { id: 'a', on: true } },
          ],
        },
        storeWithAlarm('a'),
      ).map((problem) => problem.message),
    ).toEqual(['Alarm has no instance with that key to update']);
  });

  it('collects every problem, not just the first', () => {
    const found = problems({
      action: { name: 'BankTransfer', args: { amount: 'x', who: 1 } },
      updates: { Form: { size: 'big' }, Ghost: {} },
      objective: 'Nothing',
    });
    expect(found.map((problem) => problem.message)).toEqual([
      "BankTransfer has no variable 'who'",
      'BankTransfer.amount: "x" is not a number',
      'Form.size: "big" is not a number',
      "unknown predicate 'Ghost'",
      "no rule produces the objective 'Nothing' (objectives: Filled, Paid, Shipped, Known)",
    ]);
  });

  it('shortens long values in problems to the echo limit', () => {
    const [problem] = problems({
      action: { name: 'BankTransfer', args: { amount: 'x'.repeat(300) } },
    });
    expect(problem?.actual).toBe(`${'x'.repeat(defaultLimits.maxEchoLength - 1)}…`);
    expect(problem?.message.length).toBeLessThan(120);
  });

  it('bounds the number of updates and arguments', () => {
    const many = Array.from({ length: defaultLimits.maxUpdates + 1 }, () => ({
      predicate: 'Form',
      values: {},
    }));
    expect(problems({ updates: many })[0]?.message).toBe(
      `${defaultLimits.maxUpdates + 1} updates are more than the ${defaultLimits.maxUpdates} accepted`,
    );
    const args = Object.fromEntries(
      Array.from({ length: defaultLimits.maxArguments + 1 }, (_, index) => [`a${index}`, 1]),
    );
    expect(problems({ action: { name: 'Ship', args } })[0]?.message).toBe(
      `Ship is given ${defaultLimits.maxArguments + 1} values; at most ${defaultLimits.maxArguments} are read`,
    );
  });
});

describe('readProposal: every problem has the code of its kind', () => {
  it.each([
    [null, 'not-an-object'],
    [{ action: { name: 'BankTransfer', args: [1] } }, 'not-an-object'],
    [{ objective: 5 }, 'wrong-type'],
    [{ finish: 'yes' }, 'wrong-type'],
    [{ action: { name: 'BankTransfer', args: { amout: 5 } } }, 'unknown-field'],
    [{ acton: {} }, 'unknown-field'],
    [{ updates: { Nope: { a: 1 } } }, 'unknown-predicate'],
    [{ action: { name: 'Wire' } }, 'unknown-action'],
    [{ updates: [{ predicate: 'Form', op: 'replace', values: {} }] }, 'unknown-operation'],
    [{ objective: 'Nowhere' }, 'unknown-objective'],
    [{ updates: [{ predicate: 'Alarm', op: 'delete', values: { id: 'a9' } }] }, 'unknown-instance'],
    [{ updates: { Ship: {} } }, 'wrong-kind'],
    [{ action: { name: 'Form' } }, 'wrong-kind'],
    [{ updates: { BankTransferResult: { ok: true } } }, 'not-proposable'],
    [{ objective: 'Done' }, 'not-proposable'],
    [{ action: { name: 'Ship', args: {}, arguments: {} } }, 'given-twice'],
    [{ action: { name: 'BankTransfer', args: { to: 'A', amount: 'lots' } } }, 'invalid-value'],
    [{ label: 'x'.repeat(defaultLimits.maxValueLength + 1) }, 'too-large'],
    [{ finish: true, action: { name: 'Ship' } }, 'conflicting-fields'],
    [{ answer: 'done' }, 'conflicting-fields'],
  ])('%j: %s', (input, code) => {
    const found = problems(input).map((problem) => problem.code);
    expect(found).toContain(code);
    for (const each of found) expect(proposalProblemCodes).toContain(each);
  });

  it('codes an update without the key of a predicate that holds several instances', () => {
    const store = storeWithAlarm('a1');
    const alarm = compiled.predicates.get('Alarm')!;
    store.apply({
      predicate: alarm,
      operation: 'set',
      key: 't:a2',
      assignments: [[0, textValue('a2')]],
    });
    const found = problems(
      { updates: [{ predicate: 'Alarm', op: 'update', values: { on: true } }] },
      store,
    );
    expect(found.map((problem) => problem.code)).toEqual(['missing-key']);
  });

  it('codes an input whose getter throws as unreadable', () => {
    const hostile = {
      get action(): unknown {
        throw new Error('boom');
      },
    };
    expect(problems(hostile).map((problem) => problem.code)).toEqual(['unreadable']);
  });
});

describe('readProposal: observed facts are reported by the app, never proposed', () => {
  const observedSchema = schemaOf(
    state('ReserveInfo', {
      date: 'date',
      available: { type: 'boolean', observed: true },
      slot: { type: 'text', sourcePath: ['slot', 'label'], observed: true },
    }),
    state('Balance', { amount: 'number' }, { observed: true }),
    state(
      'Seat',
      { id: 'text', taken: { type: 'boolean', observed: true }, note: 'text' },
      { keys: ['id'] },
    ),
    action('Reserve'),
  );
  const observedSpec = compileSpec(
    specOf(
      `ReserveInfo(available = true) & Balance(amount > 0) & Seat(taken = false) & Reserve() -> Booked
       Booked -> Done`,
      observedSchema,
    ),
    { similarity: lexicalSimilarity, threshold: 0.75, parts: allEngineParts },
  );
  const readObserved = (input: unknown, store = new StateStore()) =>
    readProposal(input, observedSpec, clock, store);
  const messages = (input: unknown, store = new StateStore()) => {
    const result = readObserved(input, store);
    if (result.ok) throw new Error('expected the proposal to be refused');
    return result.problems.map((problem) => problem.message);
  };
  const seatStore = () => {
    const store = new StateStore();
    const observed = readObservation(
      { updates: { Seat: { id: 'a1', taken: false } } },
      observedSpec,
      clock,
      store,
    );
    if (!observed.ok) throw new Error('observation refused');
    for (const update of observed.value) store.apply(update);
    return store;
  };

  it('refuses an observed variable, set or cleared, naming it', () => {
    expect(messages({ updates: { ReserveInfo: { available: true } } })).toEqual([
      'ReserveInfo.available is observed: the app reports it; it cannot be proposed',
    ]);
    expect(messages({ updates: { ReserveInfo: { date: '2025-03-14', available: null } } })).toEqual(
      ['ReserveInfo.available is observed: the app reports it; it cannot be proposed'],
    );
    const problem = readObserved({ updates: { ReserveInfo: { available: false } } });
    expect(problem).toMatchObject({
      ok: false,
      problems: [{ predicate: 'ReserveInfo', variable: 'available' }],
    });
  });

  it('refuses an observed variable under its source path and under its own name', () => {
    const expected = ['ReserveInfo.slot is observed: the app reports it; it cannot be proposed'];
    expect(messages({ updates: { ReserveInfo: { slot: { label: '18:00' } } } })).toEqual(expected);
    expect(messages({ updates: { ReserveInfo: { slot: '18:00' } } })).toEqual(expected);
  });

  it('refuses it before reading the value, so an ill-typed claim names the real problem', () => {
    expect(messages({ updates: { ReserveInfo: { available: 'yes' } } })).toEqual([
      'ReserveInfo.available is observed: the app reports it; it cannot be proposed',
    ]);
  });

  it('refuses every update of an observed predicate, delete included', () => {
    const expected = ['Balance is observed: the app reports it; it cannot be proposed'];
    expect(messages({ updates: { Balance: { amount: 100 } } })).toEqual(expected);
    expect(messages({ updates: { Balance: {} } })).toEqual(expected);
    expect(messages({ updates: [{ predicate: 'Balance', op: 'delete' }] })).toEqual(expected);
  });

  it('refuses the observed update whatever else the proposal carries', () => {
    expect(
      messages({
        action: { name: 'Reserve' },
        objective: 'Booked',
        updates: { ReserveInfo: { date: '2025-03-14', available: true } },
      }),
    ).toEqual(['ReserveInfo.available is observed: the app reports it; it cannot be proposed']);
  });

  it('accepts the variables the agent chooses, and instances of a keyed predicate by their key', () => {
    expect(
      acceptedObserved({ updates: { ReserveInfo: { date: '2025-03-14' } } }).updates,
    ).toHaveLength(1);
    const store = seatStore();
    const update = readObserved(
      { updates: [{ predicate: 'Seat', op: 'update', values: { id: 'a1', note: 'window' } }] },
      store,
    );
    expect(update.ok).toBe(true);
  });

  it('refuses deleting an instance that holds observed facts', () => {
    expect(
      messages(
        { updates: [{ predicate: 'Seat', op: 'delete', values: { id: 'a1' } }] },
        seatStore(),
      ),
    ).toEqual([
      'Seat has observed variables (taken): the app reports when an instance goes away; it cannot be deleted by a proposal',
    ]);
  });

  it('lets observations set what proposals cannot', () => {
    const observed = readObservation(
      {
        updates: {
          ReserveInfo: { available: true, slot: { label: '18:00' } },
          Balance: { amount: 20 },
          Seat: { id: 'a1', taken: true },
        },
      },
      observedSpec,
      clock,
      new StateStore(),
    );
    expect(observed.ok).toBe(true);
    if (observed.ok) expect(observed.value).toHaveLength(3);
  });

  function acceptedObserved(input: unknown): NormalizedProposal {
    const result = readObserved(input);
    if (!result.ok) throw new Error(result.problems.map((problem) => problem.message).join('; '));
    return result.value;
  }
});

describe('readObservation', () => {
  it('ignores, and lists, what the schema does not know (tools return more than they declare)', () => {
    const result = readObservation(
      { updates: { BankTransferResult: { ok: true, fee: 2 }, Audit: { at: 'now' } } },
      compiled,
      clock,
      new StateStore(),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toHaveLength(1);
    expect(result.ignored.map((problem) => problem.message)).toEqual([
      "BankTransferResult has no variable 'fee'",
      "unknown predicate 'Audit'",
    ]);
  });

  it('refuses ill-typed values and non-objects, applying nothing', () => {
    const bad = readObservation(
      { updates: { Form: { size: 'big' }, Alarm: { id: 'a' } } },
      compiled,
      clock,
      new StateStore(),
    );
    expect(bad).toEqual({
      ok: false,
      problems: [
        {
          code: 'invalid-value',
          message: 'Form.size: "big" is not a number',
          predicate: 'Form',
          variable: 'size',
          actual: 'big',
        },
      ],
    });
    expect(readObservation('x', compiled, clock, new StateStore())).toMatchObject({
      ok: false,
      problems: [
        { code: 'not-an-object', message: 'an observation must be a JSON object with "updates"' },
      ],
    });
  });

  it('takes an observation without updates as changing nothing', () => {
    expect(readObservation({}, compiled, clock, new StateStore())).toEqual({
      ok: true,
      value: [],
      ignored: [],
    });
  });
});

describe('proposalFingerprint', () => {
  const fingerprint = (input: unknown) => proposalFingerprint(accepted(input));

  it('ignores labels and compares values normalised by type', () => {
    expect(
      fingerprint({
        action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } },
        label: 'a',
      }),
    ).toBe(
      fingerprint({
        action: { name: 'BankTransfer', args: { amount: '500', to: ' alice ' } },
        label: 'b',
      }),
    );
    expect(fingerprint({ updates: { Form: { when: '18:00' } } })).toBe(
      fingerprint({ updates: { Form: { when: '6 PM' } } }),
    );
  });

  it('tells different proposals apart', () => {
    const distinct = [
      {},
      { finish: true },
      { objective: 'Filled' },
      { objective: 'Paid' },
      { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } } },
      { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 501 } } },
      { action: { name: 'BankTransfer', args: { to: 'Alice' } } },
      { action: { name: 'BankTransfer', args: { to: 'Alice', amount: 500 } }, objective: 'Paid' },
      { updates: { Form: { size: 1 } } },
      { updates: { Form: { size: null } } },
      { updates: { Form: { name: '1' } } },
      { updates: [{ predicate: 'Alarm', op: 'add', values: { id: 'a' } }] },
      { updates: [{ predicate: 'Alarm', op: 'delete', values: { id: 'a' } }] },
    ];
    const store = storeWithAlarm('a');
    const prints = distinct.map((input) => proposalFingerprint(accepted(input, store)));
    expect(new Set(prints).size).toBe(distinct.length);
  });
});

describe('readProposal: strict about what it would not read (FORMATS.md §2)', () => {
  const strictSchema = schemaOf(
    action('Send', {
      to: { type: 'text', required: true },
      amount: { type: 'number', required: true },
      from_account: { type: 'text', required: false },
      cc: 'list<text>',
      meta: { type: 'text', jsonText: true },
      address_city: { type: 'text', sourcePath: ['address', 'city'] },
    }),
  );
  const strict = compileSpec(specOf('Send() -> Sent\nSent -> Done', strictSchema), {
    similarity: lexicalSimilarity,
    threshold: 0.75,
    parts: allEngineParts,
  });
  const readStrict = (input: unknown, limits = defaultLimits) =>
    readProposal(input, strict, clock, new StateStore(), limits);
  const refused = (input: unknown, limits = defaultLimits) => {
    const result = readStrict(input, limits);
    if (result.ok) throw new Error('expected the proposal to be refused');
    return result.problems.map((problem) => problem.message);
  };
  const send = (args: Record<string, unknown>) => ({
    action: { name: 'Send', args: { to: 'Alice', amount: 5, ...args } },
  });

  it('refuses unknown fields of the proposal and of its action', () => {
    expect(refused({ ...send({}), bogus: 1 })).toEqual([
      "a proposal has no field 'bogus' (it takes action, updates, objective, finish, answer, ask, label)",
    ]);
    expect(refused({ ...send({}), labl: 'x' })).toEqual([
      "a proposal has no field 'labl' (it takes action, updates, objective, finish, answer, ask, label) (did you mean 'label'?)",
    ]);
    expect(
      refused({ action: { name: 'Send', args: { to: 'A', amount: 1 }, extra: true } }),
    ).toEqual(['"action" has no field \'extra\' (it takes name, args, arguments)']);
  });

  it('refuses "args" and "arguments" together, whatever they hold', () => {
    expect(
      refused({
        action: {
          name: 'Send',
          args: { to: 'Alice', amount: 500 },
          arguments: { to: 'Mallory', amount: 9000 },
        },
      }),
    ).toEqual([
      'the action gives both "args" and "arguments"; give its arguments once, under one name',
    ]);
    expect(readStrict({ action: { name: 'Send', arguments: { to: 'A', amount: 1 } } }).ok).toBe(
      true,
    );
  });

  it('refuses a missing or null required argument; null for an optional one means absent', () => {
    expect(refused({ action: { name: 'Send', args: { amount: 5 } } })).toEqual([
      'Send.to is required; it is missing',
    ]);
    expect(refused(send({ to: null }))).toEqual(['Send.to is required; it is null']);
    const result = readStrict(send({ from_account: null }));
    expect(result.ok && result.value.action?.values[2]).toBeUndefined();
  });

  it('reads an absent optional list argument as the empty list', () => {
    const result = readStrict(send({}));
    expect(result.ok && result.value.action?.values[3]).toEqual([]);
    const nulled = readStrict(send({ cc: null }));
    expect(nulled.ok && nulled.value.action?.values[3]).toEqual([]);
  });

  it('refuses values of the wrong JSON type', () => {
    expect(refused(send({ to: ['evil@x.com'] }))).toEqual([
      'Send.to: a list is not text (give a string)',
    ]);
    expect(refused(send({ to: { address: 'evil@x.com' } }))).toEqual([
      'Send.to: an object is not text (give a string)',
    ]);
    expect(refused(send({ cc: 'boss@corp.com, evil@x.com' }))).toEqual([
      'Send.cc: "boss@corp.com, evil@x.com" is not a list (give an array, e.g. ["a", "b"])',
    ]);
    // Where the tool takes any JSON, an object is read as its JSON text.
    const result = readStrict(send({ meta: { tag: 1 } }));
    expect(result.ok && result.value.action?.values[4]).toEqual(textValue('{"tag":1}'));
  });

  it('refuses unknown nested fields, a nested object of the wrong type, and two spellings of one field', () => {
    expect(refused(send({ address: { city: 'Paris', bogus: 1 } }))).toEqual([
      "Send has no variable 'address.bogus'",
    ]);
    expect(refused(send({ address: 'Paris' }))).toEqual([
      'Send.address must be an object (with city)',
    ]);
    expect(refused(send({ address: { city: 'Paris' }, address_city: 'Lyon' }))).toEqual([
      "Send.address_city is given twice, as 'address.city' and as 'address_city'; give it once",
    ]);
    const flat = readStrict(send({ address_city: 'Lyon' }));
    expect(flat.ok && flat.value.action?.values[5]).toEqual(textValue('Lyon'));
  });

  it('refuses values that are not JSON data as invalid, never as an engine failure', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    let deep: unknown = 'x';
    for (let level = 0; level < 100_000; level++) deep = { deep };
    const throwing = {
      to: 'Alice',
      get amount(): number {
        throw new Error('no amount today');
      },
    };
    const cases: [unknown, string][] = [
      [send({ amount: 10n }), 'Send.amount: a BigInt is not a number'],
      [send({ to: 500n }), 'Send.to: a BigInt is not text (give a string)'],
      [send({ to: cyclic }), 'Send.to: an object is not text (give a string)'],
      [send({ to: deep }), 'Send.to: an object is not text (give a string)'],
      [
        send({ meta: cyclic }),
        'Send.meta: it is not JSON data: it refers to itself (a cyclic object)',
      ],
      [
        send({ meta: deep }),
        `Send.meta: it is not JSON data: it is nested more than ${defaultLimits.maxValueDepth} levels deep`,
      ],
      [send({ meta: { n: 10n } }), 'Send.meta: it is not JSON data: it holds a BigInt'],
      [
        send({ meta: { toJSON: () => 'x' } }),
        'Send.meta: it is not JSON data: it holds a function',
      ],
      [send({ meta: new Date(0) }), 'Send.meta: it is not JSON data: it holds a Date'],
      [
        { action: { name: 'Send', args: throwing } },
        'the proposal cannot be read: reading it failed (no amount today)',
      ],
    ];
    for (const [input, problem] of cases) expect(refused(input)).toEqual([problem]);
    // A Map's entries are not fields (JSON.stringify sends `{}` too): the arguments are missing.
    expect(refused({ action: { name: 'Send', args: new Map([['to', 'Alice']]) } })).toEqual([
      'Send.to is required; it is missing',
      'Send.amount is required; it is missing',
    ]);
  });

  it('applies the limits it is given', () => {
    const limits = {
      ...defaultLimits,
      maxValueLength: 10,
      maxListValueLength: 2,
      maxEchoLength: 8,
    };
    expect(refused(send({ to: 'x'.repeat(11) }), limits)).toEqual([
      'Send.to: it has 11 characters; at most 10 are accepted',
    ]);
    // Refused for its length, a string is not quoted; any other refusal quotes it, cut.
    const tooLong = readStrict(send({ to: 'x'.repeat(11) }), limits);
    expect(tooLong.ok === false && tooLong.problems[0]?.actual).toBeUndefined();
    expect(readStrict(send({ amount: 'x'.repeat(9) }), limits)).toMatchObject({
      problems: [{ actual: 'xxxxxxx…' }],
    });
    expect(refused(send({ cc: ['a', 'b', 'c'] }), limits)).toEqual([
      'Send.cc: a list of 3 elements is too long (at most 2)',
    ]);
    expect(refused({ ...send({}), label: 'x'.repeat(11) }, limits)).toEqual([
      '"label" has 11 characters; at most 10 are accepted',
    ]);
  });

  it('answers a 50,000,000-character argument at once', () => {
    const started = performance.now();
    const problemsFound = refused(send({ to: 'x'.repeat(50_000_000) }));
    expect(performance.now() - started).toBeLessThan(500);
    expect(problemsFound).toEqual([
      `Send.to: it has 50000000 characters; at most ${defaultLimits.maxValueLength} are accepted`,
    ]);
  });

  it('keeps observations lenient about fields it does not know, strict about known ones', () => {
    const observed = readObservation(
      { updates: { Form: { name: 'R', extra: 1 } }, source: 'tool' },
      compiled,
      clock,
      new StateStore(),
    );
    expect(observed.ok).toBe(true);
    if (observed.ok)
      expect(observed.ignored.map((problem) => problem.message)).toEqual([
        "an observation has no field 'source' (it takes updates)",
        "Form has no variable 'extra'",
      ]);
    const wrong = readObservation(
      { updates: { Form: { name: ['R'] } } },
      compiled,
      clock,
      new StateStore(),
    );
    expect(wrong.ok).toBe(false);
    const long = readObservation(
      { updates: { Form: { name: 'x'.repeat(defaultLimits.maxObservedValueLength + 1) } } },
      compiled,
      clock,
      new StateStore(),
    );
    expect(long.ok).toBe(false);
  });
});
