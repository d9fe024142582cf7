import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkSpec, createSession, type Verdict } from '../../src/index.js';
import { action, schemaOf, specOf, state } from '../engine/fixtures.js';

/**
 * Properties per class of bypass (issue #7): for random specs with a `reject` guard, no
 * mutation of a matching value from a catalogue of tricks yields `allow`; and for random
 * proposals with an action and a declared objective, the verdict equals the verdict
 * without the objective, or is a refusal.
 */
const now = '2025-03-14T12:00';
const runs = Number(process.env.SECURITY_PROPERTY_RUNS ?? 300);

const sendSchema = schemaOf(
  action(
    'Send',
    {
      to: { type: 'text', required: true },
      amount: { type: 'number', required: true },
      from_account: 'text',
      cc: 'list<text>',
      at: 'datetime',
    },
    { critical: true },
  ),
);

/** Lower-case words made of letters that have confusables in other scripts. */
const word = fc
  .array(fc.constantFrom(...'aceopxyijsmnlbdh'), { minLength: 3, maxLength: 8 })
  .map((letters) => letters.join(''));

// ---- the trick catalogue --------------------------------------------------------------

const fullwidth = (text: string) =>
  [...text].map((char) => String.fromCodePoint((char.codePointAt(0) ?? 0) + 0xfee0)).join('');
const confusable: Readonly<Record<string, string>> = {
  a: 'а', // Cyrillic
  c: 'с',
  e: 'е',
  o: 'о',
  p: 'р',
  x: 'х',
  y: 'у',
  i: 'і',
  j: 'ј',
  s: 'ѕ',
};
const invisible = [
  '\u200b',
  '\u200d',
  '\u00ad',
  '\ufe0f',
  '\u{e0041}',
  '\u202e',
  '\u0000',
  '\ufeff',
];

type Trick = (value: string) => unknown;

const caseTricks: Trick[] = [
  (value) => value.toUpperCase(),
  (value) => [...value].map((char, index) => (index % 2 ? char.toUpperCase() : char)).join(''),
];
const widthTricks: Trick[] = [fullwidth];
const invisibleTricks: Trick[] = invisible.map(
  (mark) => (value: string) => `${value.slice(0, 1)}${mark}${value.slice(1)}`,
);
const confusableTricks: Trick[] = [
  (value) => [...value].map((char) => confusable[char] ?? char).join(''),
  (value) => {
    const index = [...value].findIndex((char) => confusable[char] !== undefined);
    if (index < 0) return value;
    return [...value]
      .map((char, at) => (at === index ? (confusable[char] ?? char) : char))
      .join('');
  },
];
const spacingTricks: Trick[] = [
  (value) => ` ${value} `,
  (value) => `${value}\n`,
  (value) => `\t${value}\u00a0`,
  (value) => `${value}.`,
];
const wrappingTricks: Trick[] = [
  (value) => `Someone <${value}>`,
  (value) => `${value}, alice`,
  (value) => `bob; ${value}`,
  (value) => [value],
  (value) => ({ address: value }),
];

function fires(verdict: Verdict): boolean {
  return verdict.decision !== 'allow';
}

function propose(specText: string, args: Record<string, unknown>): Verdict {
  const session = createSession(specOf(specText, sendSchema), { now });
  return session.propose({ action: { name: 'Send', args: { amount: 1, ...args } } });
}

/** A catch-all rule: without the guard, every Send is allowed. */
const allowAll = 'Send() -> Sent\nSent -> Done';

/** The guards of the catalogue, per text operator, with the tricks each must catch. */
function textGuards(): readonly [string, (target: string) => string, readonly Trick[]][] {
  return [
    [
      '=',
      (target) => `reject Send(to = "${target}")`,
      [
        ...caseTricks,
        ...widthTricks,
        ...invisibleTricks,
        ...confusableTricks,
        ...spacingTricks,
        ...wrappingTricks,
      ],
    ],
    [
      'in',
      (target) => `reject Send(to in ["zzz", "${target}"])`,
      [
        ...caseTricks,
        ...widthTricks,
        ...invisibleTricks,
        ...confusableTricks,
        ...spacingTricks,
        ...wrappingTricks,
      ],
    ],
    [
      'contains',
      (target) => `reject Send(to contains "${target}")`,
      [
        ...caseTricks,
        ...widthTricks,
        ...invisibleTricks,
        ...confusableTricks,
        ...spacingTricks,
        ...wrappingTricks,
        (value) => `please send to ${value} today`,
      ],
    ],
    [
      'matches',
      (target) => `reject Send(to matches /@${target}\\.com$/)`,
      [...caseTricks, ...widthTricks, ...invisibleTricks, ...spacingTricks, ...wrappingTricks],
    ],
  ];
}

describe('property: no trick on a matching value gets past a reject guard', () => {
  for (const [operator, guard, tricks] of textGuards()) {
    it(`text ${operator}: case, width, invisible, confusable, spacing and wrapping tricks`, () => {
      fc.assert(
        fc.property(word, fc.nat({ max: tricks.length - 1 }), (target, trickIndex) => {
          const matching = operator === 'matches' ? `bob@${target}.com` : target;
          const spec = `${guard(target)}\n${allowAll}`;
          // The untouched value is refused, and an unrelated one allowed: the guard is live.
          expect(fires(propose(spec, { to: matching }))).toBe(true);
          expect(propose(spec, { to: 'qqqq' }).decision).toBe('allow');
          const mutated = tricks[trickIndex]!(matching);
          const verdict = propose(spec, { to: mutated });
          expect(fires(verdict), `${JSON.stringify(mutated)}: ${verdict.feedback}`).toBe(true);
        }),
        { numRuns: runs },
      );
    });
  }

  it('list contains: the element, a tricked element, or a comma-joined string', () => {
    const tricks: Trick[] = [
      (value) => [value],
      (value) => ['alice', value.toUpperCase()],
      (value) => [fullwidth(value)],
      (value) => [`${value.slice(0, 1)}\u200b${value.slice(1)}`],
      (value) => `alice, ${value}`,
      (value) => value,
    ];
    fc.assert(
      fc.property(word, fc.nat({ max: tricks.length - 1 }), (target, trickIndex) => {
        const spec = `reject Send(cc contains "${target}")\n${allowAll}`;
        const mutated = tricks[trickIndex]!(target);
        const verdict = propose(spec, { to: 'x', cc: mutated });
        expect(fires(verdict), `${JSON.stringify(mutated)}: ${verdict.feedback}`).toBe(true);
      }),
      { numRuns: runs },
    );
  });

  it('numbers: string spellings, exponents, decimals beyond double precision, wrapping, omission', () => {
    const tricks: ((bound: number) => unknown)[] = [
      (bound) => bound + 1,
      (bound) => String(bound + 1),
      (bound) => ` ${bound + 1} `,
      (bound) => `+${bound + 1}`,
      (bound) => `${bound + 1}.0`,
      (bound) => `${(bound + 1) / 10}e1`,
      (bound) => `${bound}.00000000000000001`,
      (bound) => `${bound}.000000000000000000000000001`,
      (bound) => [bound + 1],
      (bound) => ({ value: bound + 1 }),
      () => '1e400',
      () => '-1e400',
      () => 'Infinity',
      () => null,
      () => undefined,
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.nat({ max: tricks.length - 1 }),
        (bound, trickIndex) => {
          const spec = `reject Send(amount > ${bound})\n${allowAll}`;
          expect(propose(spec, { to: 'x', amount: bound }).decision).toBe('allow');
          const mutated = tricks[trickIndex]!(bound);
          const args: Record<string, unknown> = { to: 'x', amount: mutated };
          if (mutated === undefined) delete args.amount;
          // Not through propose(): its default amount would fill the omitted argument in.
          const session = createSession(specOf(spec, sendSchema), { now });
          const verdict = session.propose({ action: { name: 'Send', args } });
          expect(fires(verdict), `${JSON.stringify(mutated)}: ${verdict.feedback}`).toBe(true);
        },
      ),
      { numRuns: runs },
    );
  });

  it('negative guards: omitting or nulling an optional argument, or tricking the allowed value', () => {
    const tricks: Trick[] = [
      () => undefined,
      () => null,
      (allowed) => `${allowed}\u200bx`,
      (allowed) => `${allowed}, savings`,
      (allowed) => {
        // A look-alike of the allowed value is not the allowed value.
        const lookalike = [...allowed].map((char) => confusable[char] ?? char).join('');
        return lookalike === allowed ? `${allowed}\u0430` : lookalike;
      },
      (allowed) => `${allowed}x`,
    ];
    fc.assert(
      fc.property(word, fc.nat({ max: tricks.length - 1 }), (allowed, trickIndex) => {
        const spec = `reject Send(from_account != "${allowed}")\n${allowAll}`;
        expect(propose(spec, { to: 'x', from_account: allowed }).decision).toBe('allow');
        const mutated = tricks[trickIndex]!(allowed);
        const args: Record<string, unknown> = { to: 'x', from_account: mutated };
        if (mutated === undefined) delete args.from_account;
        const verdict = propose(spec, args);
        // An argument that is the allowed value after normalization is the allowed value.
        expect(fires(verdict), `${JSON.stringify(mutated)}: ${verdict.feedback}`).toBe(true);
      }),
      { numRuns: runs },
    );
  });

  it('date-times: an offset other than the session zone cannot move a value past a guard', () => {
    const spec = `reject Send(at < 2025-03-14T06:00)\n${allowAll}`;
    for (const at of [
      '2025-03-14T05:30:00+14:00',
      '2025-03-14T05:30:00-08:00',
      '2025-03-14T05:30',
      '2025-03-14T05:30:00Z',
    ]) {
      expect(fires(propose(spec, { to: 'x', at })), at).toBe(true);
    }
    expect(propose(spec, { to: 'x', at: '2025-03-14T07:00:00Z' }).decision).toBe('allow');
  });
});

describe('property: a declared objective never turns a refusal into a permission', () => {
  const flowSchema = schemaOf(
    action('Pay', { amount: 'number' }, { critical: true }),
    action('Search', { query: 'text' }),
    state('Form', { ok: 'boolean', total: 'number' }),
  );
  const ruleTemplates = [
    (bound: number) => `Pay(amount <= ${bound}) -> Paid`,
    (bound: number) => `@confirm\nPay(amount = ${bound}) -> Paid`,
    (bound: number) => `Form(ok = true, total <= ${bound}) -> Paid`,
    () => 'Form(ok = true) -> Ready',
    (bound: number) => `Ready & Pay(amount < ${bound}) -> Settled`,
    () => 'Search(query = "shoes") -> Found',
    () => 'Form(ok = true) -> Found',
    (bound: number) => `@repeat(2)\nFound & Pay(amount <= ${bound}) -> Bought`,
  ];
  const heads = ['Paid', 'Ready', 'Settled', 'Found', 'Bought'];

  const step = fc.oneof(
    fc.record({
      kind: fc.constant('pay' as const),
      amount: fc.integer({ min: 0, max: 60 }),
    }),
    fc.record({ kind: fc.constant('search' as const), query: fc.constantFrom('shoes', 'hats') }),
    fc.record({
      kind: fc.constant('observe' as const),
      ok: fc.boolean(),
      total: fc.integer({ min: 0, max: 60 }),
    }),
    fc.record({ kind: fc.constant('gesture' as const), objective: fc.constantFrom(...heads) }),
  );
  type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

  function proposalOf(current: Step, objective?: string): unknown {
    const withObjective = objective === undefined ? {} : { objective };
    if (current.kind === 'pay')
      return { action: { name: 'Pay', args: { amount: current.amount } }, ...withObjective };
    if (current.kind === 'search')
      return { action: { name: 'Search', args: { query: current.query } }, ...withObjective };
    return { objective: current.kind === 'gesture' ? current.objective : objective };
  }

  it('with an action, the verdict with an objective equals the one without, or is a refusal', () => {
    fc.assert(
      fc.property(
        fc.subarray(
          ruleTemplates.map((_, index) => index),
          { minLength: 1 },
        ),
        fc.integer({ min: 1, max: 50 }),
        fc.array(step, { maxLength: 8 }),
        fc.oneof(
          fc.record({ kind: fc.constant('pay' as const), amount: fc.integer({ min: 0, max: 60 }) }),
          fc.record({
            kind: fc.constant('search' as const),
            query: fc.constantFrom('shoes', 'hats'),
          }),
        ),
        fc.nat(),
        (chosen, bound, prefix, last, pick) => {
          const rules = chosen.map((index) => ruleTemplates[index]!(bound));
          const produced = heads.filter((head) =>
            rules.some((rule) => rule.endsWith(`-> ${head}`)),
          );
          const text = `${rules.join('\n')}\n${produced[0] ?? 'Paid'} -> Done`;
          const checked = checkSpec(text, flowSchema);
          // A body may name an objective no chosen rule produces: not a spec, nothing to test.
          if (!checked.ok) return;
          const spec = checked.value;
          // Mostly an objective some chosen rule produces, where narrowing can matter.
          const objective = produced[pick % (produced.length + 1)] ?? heads[pick % heads.length]!;
          const run = (declared: string | undefined): Verdict => {
            const session = createSession(spec, { now, escalateAfter: 0 });
            for (const earlier of prefix) {
              if (earlier.kind === 'observe')
                session.observe({ updates: { Form: { ok: earlier.ok, total: earlier.total } } });
              else {
                session.propose(proposalOf(earlier));
                if (session.status().pending) session.resolve(true);
              }
            }
            return session.propose(proposalOf(last, declared));
          };
          const plain = run(undefined);
          const declared = run(objective);
          if (declared.decision === 'revise' || declared.decision === 'reject') return;
          expect(declared.decision, `${text}\n${JSON.stringify({ prefix, last, objective })}`).toBe(
            plain.decision,
          );
        },
      ),
      { numRuns: runs },
    );
  });
});

/**
 * One deny-list reading for guards, `not P(…)` and `@repeat(per:)` (E2, E4, O1;
 * src/engine/deny-list-reading.ts): a value a guard catches makes `not` fail and is no
 * new value to `per:`; and in a guard `matches r` and `not matches r` never both hold
 * where r searches the text (no `^`/`$`), nor, for any r, on a value without parts.
 */
describe('property: the deny-list reading is one reading (E2, E4, O1)', () => {
  const denySchema = schemaOf(
    action('Send', { to: { type: 'text', required: true }, amount: 'number' }, { critical: true }),
    state('Seen', { to: 'text', senders: 'list<text>' }, { observed: true }),
  );
  const decide = (specText: string, seen: Record<string, unknown> | undefined, to: unknown) => {
    const current = createSession(specOf(specText, denySchema), { now });
    if (seen !== undefined) current.observe({ updates: { Seen: seen } });
    return current.propose({ action: { name: 'Send', args: { to, amount: 1 } } });
  };
  const constraintOf = (guard: string) => /^reject Send\((.*)\)$/.exec(guard)?.[1] ?? '';
  /** Text values only: a state's text cannot hold an array or an object. */
  const textTricks = (tricks: readonly Trick[], value: string) =>
    tricks.map((trick) => trick(value)).filter((mutated) => typeof mutated === 'string');

  for (const [operator, guard, tricks] of textGuards()) {
    it(`text ${operator}: no trick on a value a guard catches makes not P(…) hold`, () => {
      fc.assert(
        fc.property(word, (target) => {
          const matching = operator === 'matches' ? `bob@${target}.com` : target;
          const constraint = constraintOf(guard(target));
          const rule = `not Seen(${constraint}) & Send() -> Sent\nSent -> Done`;
          for (const mutated of textTricks(tricks, matching)) {
            const guarded = decide(`${guard(target)}\n${allowAll}`, undefined, mutated);
            if (!fires(guarded)) continue;
            const verdict = decide(rule, { to: mutated }, 'anyone');
            expect(fires(verdict), `Seen(to = ${JSON.stringify(mutated)})`).toBe(true);
          }
          // `not` holds for a value no guard catches.
          expect(decide(rule, { to: 'qqqq' }, 'anyone').decision).toBe('allow');
        }),
        { numRuns: Math.ceil(runs / 3) },
      );
    });
  }

  it('bindings: a recipient a guard would read as a blocked sender never passes not Seen(senders contains $t)', () => {
    const [, equals, tricks] = textGuards()[0]!;
    const rule = 'Send(to = $t) & not Seen(senders contains $t) -> Sent\nSent -> Done';
    fc.assert(
      fc.property(word, (blocked) => {
        for (const mutated of textTricks(tricks, blocked)) {
          if (!fires(decide(`${equals(blocked)}\n${allowAll}`, undefined, mutated))) continue;
          const verdict = decide(rule, { senders: ['someone', blocked] }, mutated);
          expect(fires(verdict), JSON.stringify(mutated)).toBe(true);
        }
        expect(decide(rule, { senders: [blocked] }, 'qqqq').decision).toBe('allow');
      }),
      { numRuns: Math.ceil(runs / 3) },
    );
  });

  const separated = /[,;<>"'`()[\]{}]|\.\s*$/;
  const text = fc
    .array(fc.constantFrom(...'ab .,;<>@xс'), { maxLength: 12 })
    .map((characters) => characters.join(''));
  const regexes = ['/a/', '/b.a/', '/x@/', '/a b/', '/^a/', '/b$/', '/^a.*b$/', '/\\.x$/'];

  it('in a guard, matches r and not matches r never both hold: r unanchored, or a value without parts', () => {
    fc.assert(
      fc.property(text, fc.constantFrom(...regexes), (value, regex) => {
        const firesWith = (operator: string) =>
          fires(decide(`reject Send(to ${operator} ${regex})\n${allowAll}`, undefined, value));
        const both = firesWith('matches') && firesWith('not matches');
        const anchored = /[\^$]/.test(regex);
        if (!anchored || !separated.test(value))
          expect(both, `${JSON.stringify(value)} ${regex}`).toBe(false);
      }),
      { numRuns: runs },
    );
  });

  it('@repeat(per:): a value any of whose readings was served is not new', () => {
    const perSpec = '@repeat(per: to)\nSend() -> Sent\nSent -> Done';
    const [, , tricks] = textGuards()[0]!;
    const phone = fc
      .tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 1_000_000, max: 9_999_999 }))
      .map(([area, line]) => `+1${area}${line}`);
    const phoneSpellings: Trick[] = [
      (value) => `tel:${value}`,
      (value) => `${value.slice(0, 2)} ${value.slice(2, 5)} ${value.slice(5, 8)} ${value.slice(8)}`,
      (value) => `${value.slice(0, 2)}-${value.slice(2, 5)}-${value.slice(5, 8)}-${value.slice(8)}`,
      (value) =>
        `${value.slice(0, 2)} (${value.slice(2, 5)}) ${value.slice(5, 8)}-${value.slice(8)}`,
    ];
    fc.assert(
      fc.property(fc.oneof(word, phone), (served) => {
        const spellings = /^\+\d+$/.test(served) ? [...tricks, ...phoneSpellings] : tricks;
        for (const mutated of textTricks(spellings, served)) {
          const current = createSession(specOf(perSpec, denySchema), { now });
          const send = (to: string) =>
            current.propose({ action: { name: 'Send', args: { to, amount: 1 } } });
          expect(send(served).decision).toBe('allow');
          expect(fires(send(mutated)), JSON.stringify(mutated)).toBe(true);
          expect(send('qqqq').decision).toBe('allow');
        }
      }),
      { numRuns: Math.ceil(runs / 3) },
    );
  });
});
