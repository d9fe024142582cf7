import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadStateSchema } from '../../schema/index.js';
import { checkSpec } from '../index.js';
import { parseDate } from '../temporal.js';
import { checkGrounding, type GroundingSources } from './grounding.js';
import { readGivenValues } from './grounding-values.js';

const loaded = loadStateSchema(
  JSON.stringify({
    Balance: { observed: true, variables: [{ name: 'balance', type: 'Number' }] },
    Clock: { observed: true, variables: [{ name: 'at', type: 'DateTime' }] },
    Pay: {
      kind: 'action',
      critical: true,
      variables: [
        { name: 'payee', type: 'Text' },
        { name: 'amount', type: 'Number' },
        { name: 'day', type: 'Date' },
        { name: 'at', type: 'Time' },
        { name: 'when', type: 'DateTime' },
        { name: 'speed', type: 'Enum', enum_values: ['normal', 'Same Day'] },
      ],
    },
    Lookup: { kind: 'action', variables: [{ name: 'query', type: 'Text' }] },
  }),
  { id: 'pay' },
);
if (!loaded.ok) throw new Error('the test schema does not load');
const schema = loaded.value;
const friday = parseDate('2025-03-14') ?? 0;

/** The grounding codes and values a one-rule spec gets for an instruction. */
function findings(
  constraints: string,
  instruction: string,
  extra: Partial<GroundingSources> = {},
): string[] {
  const checked = checkSpec(`@confirm\nPay(${constraints}) -> Paid\nPaid -> Done`, schema);
  if (!checked.ok) throw new Error(checked.diagnostics.map((d) => d.message).join('\n'));
  return checkGrounding(checked.value, { instruction, today: friday, ...extra }).map((diagnostic) =>
    `${diagnostic.code} ${diagnostic.data['value'] ?? ''}`.trim(),
  );
}

describe('numbers are compared as numbers', () => {
  it.each([
    ['amount = 500', 'Pay Alice $500.', []],
    ['amount <= 500', 'Pay Alice $500.00 at most.', []],
    [
      'amount <= 500000',
      'Pay Alice $500.',
      ['unused-instruction-number 500', 'ungrounded-literal 500000'],
    ],
    [
      'amount <= 5000',
      'Pay Alice $500.',
      ['unused-instruction-number 500', 'ungrounded-literal 5000'],
    ],
    ['amount = 50', 'Pay Alice $500.', ['unused-instruction-number 500', 'ungrounded-literal 50']],
    ['amount = 1000', 'Pay Alice $1,000.', []],
    ['amount = 1500', 'Pay Alice $1.5k.', []],
    ['amount = 2.5', 'Send 2.5 BTC.', []],
    ['amount = 25', 'Send 2.5 BTC.', ['unused-instruction-number 2.5', 'ungrounded-literal 25']],
    ['amount = 0.2', 'Give 20% of it.', []],
    ['amount = 0.8', 'Sell it at 20% off.', []],
    ['amount = 12', 'Pay a dozen invoices.', []],
    ['amount > 0', 'Pay Alice.', []],
  ] as const)('%s for %j', (constraints, instruction, expected) => {
    expect(findings(constraints, instruction)).toEqual(expected);
  });

  it('does not read identifiers, dates or times as amounts', () => {
    const given = readGivenValues(
      'Pay order #A12 from account 99-1234 on 2025-03-15 at 7:30 pm via 192.168.0.1, code save20.',
      friday,
    );
    expect(given.stated.map((number) => number.text)).toEqual([]);
  });

  it('holds for any amount: "$N" grounds N and nothing ten times larger or smaller', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 10_000_000 }),
        fc.constantFrom(-2, -1, 1, 2, 3),
        (amount, shift) => {
          const written = amount.toLocaleString('en-US');
          const instruction = `Pay Alice $${written}.`;
          expect(findings(`amount <= ${amount}`, instruction)).toEqual([]);
          const other = shift > 0 ? amount * 10 ** shift : amount / 10 ** -shift;
          // 0 and 1 are structural ("at least one"): grounded whatever the instruction says.
          fc.pre(other !== 1);
          expect(findings(`amount <= ${other}`, instruction)).toContain(
            `ungrounded-literal ${other}`,
          );
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('text is compared as normalized words', () => {
  it.each([
    ['payee = "Alice"', 'Pay alice $5.', []],
    ['payee = "ALICE SMITH"', 'Pay Alice Smith $5.', []],
    ['payee = "jsmith@gmail.com"', 'Pay jsmith@gmail.com $5.', []],
    ['payee contains "456 oak"', 'Pay the shop at 456 Oak Street $5.', []],
    ['payee = "BTCUSD"', 'Trade the BTC/USD pair for $5.', []],
    ['payee = "Al"', 'Pay Alice $5.', ['ungrounded-literal "Al"']],
    ['payee = "Mallory"', 'Pay Alice $5.', ['ungrounded-literal "Mallory"']],
    [
      'payee = "mallory@evil.com"',
      'Pay mallory@good.com $5.',
      ['ungrounded-literal "mallory@evil.com"'],
    ],
    ['payee matches /^Mallory$/', 'Pay Alice $5.', ['ungrounded-literal /^Mallory$/ ("Mallory")']],
    [
      'payee matches /^(Alice|Mallory)$/',
      'Pay Alice $5.',
      ['ungrounded-literal /^(Alice|Mallory)$/ ("Mallory")'],
    ],
    ['payee matches /Alice|Bob/', 'Pay Alice or Bob $5.', []],
    // A choice inside a longer pattern, classes, repetition: a pattern grounding does not judge.
    ['payee matches /^(Alice|Mallory) Smith$/', 'Pay Alice $5.', []],
    ['payee matches /^M[a-z]+y$/', 'Pay Alice $5.', []],
    ['speed = "Same Day"', 'Pay Alice $5.', []],
  ] as const)('%s for %j', (constraints, instruction, expected) => {
    expect(findings(`${constraints}, amount = 5`, instruction)).toEqual(expected);
  });

  it('holds for any names: the user’s name is grounded in any case, another name never', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9]{2,11}$/);
    fc.assert(
      fc.property(name, name, (given, other) => {
        // A plural of the given name counts as it ("tests" for "test").
        fc.pre(![given, `${given}s`, `${given}es`].includes(other));
        fc.pre(![other, `${other}s`, `${other}es`].includes(given));
        // "Pay" is a word of the instruction too.
        fc.pre(![other, given.slice(0, -2)].includes('pay'));
        const instruction = `Pay ${given} $5.`;
        expect(findings(`payee = "${given.toUpperCase()}", amount = 5`, instruction)).toEqual([]);
        expect(findings(`payee = "${other}", amount = 5`, instruction)).toEqual([
          `ungrounded-literal "${other}"`,
        ]);
        // A part of the name is not the name.
        // (Unless the part is the name's singular: "boxes" and "box".)
        if (given.length > 3 && !given.endsWith('es'))
          expect(findings(`payee = "${given.slice(0, -2)}", amount = 5`, instruction)).toContain(
            `ungrounded-literal "${given.slice(0, -2)}"`,
          );
      }),
      { numRuns: 200 },
    );
  });

  it('counts a trusted text (a policy) as a source, and tool descriptions never', () => {
    expect(
      findings('payee = "Bob", amount = 5', 'Pay $5.', { texts: ['Pay(payee = "Bob")'] }),
    ).toEqual([]);
    expect(findings('payee = "Bob", amount = 5', 'Pay $5.')).toEqual(['ungrounded-literal "Bob"']);
  });

  it('judges text where it says what is allowed, not where it only refuses more', () => {
    const codes = (spec: string) => {
      const checked = checkSpec(spec, schema);
      if (!checked.ok) throw new Error(checked.diagnostics.map((d) => d.message).join('\n'));
      return checkGrounding(checked.value, { instruction: 'Pay Alice $5.' }).map((diagnostic) =>
        `${diagnostic.code} ${diagnostic.data['value'] ?? ''}`.trim(),
      );
    };
    const rule = (constraints: string) => `@confirm\nPay(${constraints}) -> Paid\nPaid -> Done`;
    expect(codes(rule('payee != "Eve", amount = 5'))).toEqual([]);
    expect(codes(rule('payee not matches /Eve|Mallory/, amount = 5'))).toEqual([]);
    expect(codes(`${rule('amount = 5')}\nreject Pay(payee = "Eve")`)).toEqual([]);
    expect(codes(`${rule('amount = 5')}\nreject Pay(payee != "Mallory")`)).toEqual([
      'ungrounded-literal "Mallory"',
    ]);
    expect(codes(`${rule('amount = 5')}\nreject Pay(amount > 50)`)).toEqual([
      'ungrounded-literal 50',
    ]);
  });

  it('takes no text from the schema: its names and enum members are the upstream’s', () => {
    // An enum literal is one of its own variable's members (the type check sees to it);
    // a member of another enum, or a tool's name, grounds no free text.
    expect(findings('payee = "Same Day", amount = 5', 'Pay $5.')).toEqual([
      'ungrounded-literal "Same Day"',
    ]);
    expect(findings('payee = "Lookup", amount = 5', 'Pay $5.')).toEqual([
      'ungrounded-literal "Lookup"',
    ]);
  });
});

describe('dates and times with the session clock', () => {
  // Friday, 2025-03-14.
  it.each([
    ['day = 2025-03-15', 'Pay Alice $5 tomorrow.', []],
    ['day = tomorrow', 'Pay Alice $5 tomorrow.', []],
    ['day = tomorrow', 'Pay Alice $5 on Saturday.', []],
    ['day = today', 'Pay Alice $5 tonight.', []],
    ['day = 2025-03-17', 'Pay Alice $5 on Monday.', []],
    ['day = 2025-03-21', 'Pay Alice $5 on Friday.', []],
    ['day = 2025-03-16', 'Pay Alice $5 tomorrow.', ['ungrounded-literal 2025-03-16']],
    ['day = tomorrow', 'Pay Alice $5 today.', ['ungrounded-literal tomorrow']],
    ['day = 2026-03-01', 'Pay Alice $5 on March 1st.', []],
    ['day = 2022-03-01', 'Pay Alice $5 on March 1st, 2022.', []],
    ['day = 2023-03-01', 'Pay Alice $5 on March 1st, 2022.', ['ungrounded-literal 2023-03-01']],
    ['at < 19:00', 'Pay Alice $5 before 7 PM.', []],
    ['at < 19:30', 'Pay Alice $5 before 7:30 p.m.', []],
    ['at >= 14:00, at <= 15:00', 'Pay Alice $5 between 2-3 pm.', []],
    ['at < 20:00', 'Pay Alice $5 before 7 PM.', ['ungrounded-literal 20:00']],
    ['at = 12:00', 'Pay Alice $5 at noon.', []],
    ['when < 2025-03-15T19:00', 'Pay Alice $5 by 7 PM tomorrow.', []],
    ['when < 2025-03-15T00:00', 'Pay Alice $5 tomorrow.', []],
    [
      'when < 2025-03-15T20:00',
      'Pay Alice $5 by 7 PM tomorrow.',
      ['ungrounded-literal 2025-03-15T20:00'],
    ],
    ['when < now', 'Pay Alice $5.', []],
  ] as const)('%s for %j', (constraints, instruction, expected) => {
    expect(findings(`${constraints}, amount = 5`, instruction)).toEqual(expected);
  });

  it('counts a duration as the number it was written with ("in 2 hours" is 2h or 120m)', () => {
    const spec = (duration: string) => {
      const checked = checkSpec(
        `@confirm\nClock(at = $c) & Pay(payee = "Alice", amount = 5, when >= $c + ${duration}) -> Paid\nPaid -> Done`,
        schema,
      );
      if (!checked.ok) throw new Error(checked.diagnostics.map((d) => d.message).join('\n'));
      return checkGrounding(checked.value, { instruction: 'Pay Alice $5 in 2 hours.' }).map(
        (diagnostic) => `${diagnostic.code} ${diagnostic.data['value'] ?? ''}`.trim(),
      );
    };
    expect(spec('2h')).toEqual([]);
    expect(spec('120m')).toEqual([]);
    expect(spec('3h')).toEqual(['unused-instruction-number 2']);
  });

  it('grounds no weekday without the session date, but keeps the words', () => {
    expect(
      findings('day = 2025-03-17, amount = 5', 'Pay Alice $5 on Monday.', { today: undefined }),
    ).toEqual(['ungrounded-literal 2025-03-17']);
    expect(
      findings('day = tomorrow, amount = 5', 'Pay Alice $5 tomorrow.', { today: undefined }),
    ).toEqual([]);
  });
});

describe('the cheap warnings', () => {
  it.each([
    ['Pay Alice $5, but ask me first.', ['ask me first']],
    ['Pay Alice $5. Ask me.', ['ask me']],
    ['I want to approve each deletion.', ['i want to approve']],
    ['Delete them once I confirm.', ['once i confirm']],
    ['If they ask me about it, say no.', []],
    ['Pay Alice $5, don’t ask me first.', []],
    [
      'Pay Alice $5; I need to check with me... no: get my approval.',
      ['check with me', 'get my approval'],
    ],
    ['Pay Alice $5 without asking me.', []],
    ["Pay Alice $5, don't ask for confirmation.", []],
    ['Ask Bob for the invoice, then confirm the booking.', []],
  ] as const)('reads approval phrases in %j', (instruction, phrases) => {
    expect(readGivenValues(instruction).approvals).toEqual(phrases);
  });

  function ruleFindings(spec: string, instruction: string): string[] {
    const checked = checkSpec(spec, schema);
    if (!checked.ok) throw new Error(checked.diagnostics.map((d) => d.message).join('\n'));
    return checkGrounding(checked.value, { instruction }).map((d) => d.code);
  }

  it('warns on a critical action with no argument pinned and no approval, once per rule', () => {
    expect(ruleFindings('@repeat\nPay() -> Paid\nPaid -> Done', 'Pay Alice.')).toEqual([
      'unpinned-critical-action',
    ]);
    expect(ruleFindings('@confirm\nPay() -> Paid\nPaid -> Done', 'Pay Alice.')).toEqual([]);
    expect(
      ruleFindings('Pay() -> Paid\nPaid -> Done\nreject Pay(payee != "Alice")', 'Pay Alice.'),
    ).toEqual([]);
    // Not critical: a lookup may run with any query.
    expect(ruleFindings('Lookup() -> Looked\nLooked -> Done', 'Look it up.')).toEqual([]);
  });

  it('wants a confirmation where the instruction asks for one', () => {
    const spec = 'Pay(payee = "Alice") -> Paid\nPaid -> Done';
    expect(ruleFindings(spec, 'Pay Alice; ask me before sending.')).toEqual([
      'confirmation-not-required',
    ]);
    expect(ruleFindings(`@confirm\n${spec}`, 'Pay Alice; ask me before sending.')).toEqual([]);
    expect(ruleFindings(`${spec}\nconfirm Pay()`, 'Pay Alice; ask me before sending.')).toEqual([]);
  });

  it('answers bad sources with an invalid-argument diagnostic', () => {
    const checked = checkSpec('Lookup() -> Looked\nLooked -> Done', schema);
    if (!checked.ok) throw new Error('does not check');
    for (const bad of [
      undefined,
      { instruction: 3 },
      { instruction: 'x', today: 1.5 },
      { instruction: 'x'.repeat(100_001) },
    ]) {
      const [diagnostic] = checkGrounding(checked.value, bad as unknown as GroundingSources);
      expect(diagnostic?.code).toBe('invalid-argument');
    }
  });
});
