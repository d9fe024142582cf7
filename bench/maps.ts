import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, type Schema, type Spec } from '../src/language/index.js';
import { schemaFromMcpTools } from '../src/schema/index.js';
import { decisionTable, measureDecisions } from './measure.js';

/**
 * The maps rows of `npm run bench` (LANGUAGE.md §9, `BENCH_ONLY=v3-maps`): filters over a
 * 100-key json object used as a map, as τ-bench's `payment_methods` is — a rule binding
 * the id of a gift card from a tool's result (`wallet.*[…].id = $m`), a rule counting and
 * looking up keys, and a guard summing a fresh 100-key map the agent sends with every
 * proposal (read, ordered and filtered anew each time). Target: a filter over a 100-key
 * map decides in ≤ 20 µs p50.
 */
const now = '2025-03-14T12:00';
const methods = {
  type: 'object',
  description: 'payment methods keyed by id: source, amount, id',
};
const schema = schemaFromMcpTools({
  tools: [
    {
      name: 'wallet',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: { type: 'object', properties: { methods } },
    },
    {
      name: 'pay',
      inputSchema: {
        type: 'object',
        properties: { method: { type: 'string' }, methods },
        required: ['method'],
      },
      annotations: { destructiveHint: true },
    },
  ],
}).value as Schema;

function checked(text: string): Spec {
  const result = checkSpec(text, schema);
  if (!result.ok) throw new Error(`bench maps spec: ${result.diagnostics[0]?.message}`);
  return result.value;
}

const specs = {
  binding: checked(
    '@repeat\nwalletResult(methods.*[source = "gift_card", amount >= 50].id = $m) & pay(method = $m) -> Paid\nPaid -> Done',
  ),
  keys: checked(
    '@repeat\nwalletResult(count(methods.*[source = "gift_card"]) >= 1, keys(methods) contains "gift_card_98") & pay() -> Paid\nPaid -> Done',
  ),
  argument: checked(
    '@repeat\npay() -> Paid\nPaid -> Done\nreject pay(sum(methods.*[source = "gift_card"].amount) > 100000) because "over budget"',
  ),
};

/** 100 methods keyed by id, in the order a tool might write them (not by key). */
const map = () =>
  Object.fromEntries(
    Array.from({ length: 100 }, (_, index) => {
      const id = index % 3 === 0 ? `certificate_${index}` : `gift_card_${index}`;
      return [
        id,
        { source: id.startsWith('gift') ? 'gift_card' : 'certificate', amount: index, id },
      ];
    }).reverse(),
  );

function measure(count: number, kind: keyof typeof specs) {
  return measureDecisions({
    count,
    renewEvery: 500,
    session: (): Session => {
      const session = createSession(specs[kind], { now });
      if (kind !== 'argument') session.observe({ updates: { walletResult: { methods: map() } } });
      return session;
    },
    // A fresh proposal (and, for the guard, a fresh map) every time.
    proposal: () => ({
      action: {
        name: 'pay',
        args: kind === 'argument' ? { method: 'x', methods: map() } : { method: 'gift_card_77' },
      },
    }),
    expected: 'allow',
  });
}

export function mapsBench(proposals: number): void {
  const count = Math.max(1_000, Math.min(proposals, 20_000));
  const rows = (
    [
      ['rule: methods.*[source, amount].id = $m over a 100-key result map', 'binding'],
      ['rule: count(methods.*[…]), keys(methods) contains … over a 100-key result map', 'keys'],
      ['guard: sum(methods.*[…].amount) of a fresh 100-key map argument', 'argument'],
    ] as const
  ).map(([label, kind]) => [label, measure(count, kind)] as const);
  console.log(
    `\nLanguage v3: filters over 100-key maps (${count.toLocaleString('en-US')} proposals; µs, timer overhead subtracted)`,
  );
  console.log(decisionTable(rows));
  console.log('\nTarget: a filter over a 100-key map p50 ≤ 20 µs.');
}
