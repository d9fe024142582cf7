import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, type Schema, type Spec } from '../src/language/index.js';
import { schemaFromMcpTools } from '../src/schema/index.js';
import { decisionTable, measureDecisions } from './measure.js';

/**
 * Language v3 rows of `npm run bench` (LANGUAGE.md §9): a rule that sums a 100-element
 * projection of a tool's result (`sum(payments.amount)`), in whole units and in cents (the
 * exact decimal path), and a guard that sums a 100-element list argument the agent sends
 * fresh with every proposal. Target: the whole-unit sum decides in ≤ 20 µs p50.
 */
const now = '2025-03-14T12:00';
const payments = {
  type: 'array',
  items: {
    type: 'object',
    properties: { id: { type: 'string' }, amount: { type: 'number' } },
  },
};
const schema = schemaFromMcpTools({
  tools: [
    {
      name: 'quote',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { payments } },
    },
    {
      name: 'pay',
      inputSchema: {
        type: 'object',
        properties: { payments },
        required: ['payments'],
      },
      annotations: { destructiveHint: true },
    },
  ],
}).value as Schema;

function checked(text: string): Spec {
  const result = checkSpec(text, schema);
  if (!result.ok) throw new Error(`bench v3 spec: ${result.diagnostics[0]?.message}`);
  return result.value;
}

const ruleSpec = checked(
  '@repeat\nquoteResult(sum(payments.amount) <= 100000, max(payments.amount) < 5000) & pay() -> Paid\nPaid -> Done',
);
const guardSpec = checked(
  '@repeat\npay() -> Paid\nPaid -> Done\nreject pay(sum(payments.amount) > 100000) because "over budget"',
);

const list = (cents: boolean) =>
  Array.from({ length: 100 }, (_, index) => ({
    id: `gift_card_${index}`,
    amount: cents ? 10 + index + 0.25 : 10 + index,
  }));
const small = [{ id: 'credit_card_1', amount: 1 }];

function measure(count: number, kind: 'whole' | 'cents' | 'argument') {
  const spec = kind === 'argument' ? guardSpec : ruleSpec;
  return measureDecisions({
    count,
    renewEvery: 500,
    session: (): Session => {
      const session = createSession(spec, { now });
      if (kind !== 'argument')
        session.observe({ updates: { quoteResult: { payments: list(kind === 'cents') } } });
      return session;
    },
    // A fresh list every proposal: nothing is remembered from the last one.
    proposal: () => ({
      action: { name: 'pay', args: { payments: kind === 'argument' ? list(false) : small } },
    }),
    expected: 'allow',
  });
}

export function languageV3Bench(proposals: number): void {
  const count = Math.max(1_000, Math.min(proposals, 20_000));
  const rows = (
    [
      ['sum + max of a 100-element result projection, whole units', 'whole'],
      ['sum + max of a 100-element result projection, cents (exact decimals)', 'cents'],
      ['guard: sum of a fresh 100-element list argument', 'argument'],
    ] as const
  ).map(([label, kind]) => [label, measure(count, kind)] as const);
  console.log(
    `\nLanguage v3: sums over 100-element projections (${count.toLocaleString('en-US')} proposals; µs, timer overhead subtracted)`,
  );
  console.log(decisionTable(rows));
  console.log('\nTarget: sum over a 100-element projection p50 ≤ 20 µs.');
}
