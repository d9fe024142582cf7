import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, type Schema } from '../src/language/index.js';
import { schemaFromMcpTools } from '../src/schema/index.js';
import { formatMicros, measureDecisions, table } from './measure.js';

/**
 * The `forall` row of `npm run bench` (LANGUAGE.md §9): a proposal allowed only when every
 * one of 100 payments a tool returned is within the limit another tool returned,
 * `forall(quoteResult(payments.amount = $a) => limitResult(max >= $a))` — 100 instances
 * of the left side, each checked under its binding. Target: ≤ 50 µs p50.
 */
const now = '2025-03-14T12:00';
const schema = schemaFromMcpTools({
  tools: [
    {
      name: 'quote',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: {
        type: 'object',
        properties: {
          payments: {
            type: 'array',
            items: { type: 'object', properties: { amount: { type: 'number' } } },
          },
        },
      },
    },
    {
      name: 'limit',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { max: { type: 'number' } } },
    },
    {
      name: 'pay',
      inputSchema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] },
      annotations: { destructiveHint: true },
    },
  ],
}).value as Schema;

const checked = checkSpec(
  '@repeat\npay() & forall(quoteResult(payments.amount = $a) => limitResult(max >= $a)) -> Paid\nPaid -> Done',
  schema,
);
if (!checked.ok) throw new Error(`bench forall spec: ${checked.diagnostics[0]?.message}`);
const spec = checked.value;

export function universalBench(proposals: number): void {
  const count = Math.max(1_000, Math.min(proposals, 20_000));
  const timing = measureDecisions({
    count,
    renewEvery: 500,
    session: (): Session => {
      const session = createSession(spec, { now });
      session.observe({
        updates: {
          quoteResult: {
            payments: Array.from({ length: 100 }, (_, index) => ({ amount: 10 + index })),
          },
          limitResult: { max: 500 },
        },
      });
      return session;
    },
    proposal: () => ({ action: { name: 'pay', args: { to: 'shop' } } }),
    expected: 'allow',
  });
  console.log(
    `\nLanguage v3: forall over 100 instances (${count.toLocaleString('en-US')} proposals; µs, timer overhead subtracted)`,
  );
  console.log(
    table(
      ['proposal', 'decision', 'p50', 'p99'],
      [
        [
          'forall(quoteResult(payments.amount = $a) => limitResult(max >= $a))',
          timing.ok ? 'allow' : 'WRONG',
          formatMicros(timing.p50),
          formatMicros(timing.p99),
        ],
      ],
    ),
  );
  console.log('\nTarget: forall over 100 instances p50 ≤ 50 µs.');
}
