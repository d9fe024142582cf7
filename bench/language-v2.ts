import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, createSchema, type Spec } from '../src/language/index.js';
import { type DecisionTimings, formatMicros, measureDecisions, table } from './measure.js';

/**
 * Language v2 rows of `npm run bench` (LANGUAGE.md §7): a binding join over a
 * 100-element result list, with the matching id last so that the join tries every
 * element — bound through a projection, `SearchResult(results[name = "Mike Johnson"].id =
 * $id) & Check(id = $id)`, and inside a filter, `SearchResult(results[name = "Mike
 * Johnson", id = $id]) & Check(id = $id)` (both from one element). Targets: allow p50 ≤
 * 20 µs, refusal with feedback p50 ≤ 50 µs.
 */
const now = '2025-03-14T12:00';
const schema = createSchema('bench-language-v2', [
  {
    name: 'SearchResult',
    kind: 'state',
    description: 'People found: objects with id and name.',
    variables: [{ name: 'results', type: { kind: 'list', element: 'text' }, jsonText: true }],
    keys: [],
    critical: false,
    observed: true,
  },
  {
    name: 'Check',
    kind: 'action',
    description: 'Runs a background check.',
    variables: [{ name: 'id', type: { kind: 'text' }, required: true }],
    keys: [],
    critical: true,
  },
]);

function specOf(text: string): Spec {
  const checked = checkSpec(text, schema);
  if (!checked.ok) throw new Error(`bench v2 spec: ${checked.diagnostics[0]?.message}`);
  return checked.value;
}

const joins = [
  {
    name: 'projection',
    spec: specOf(
      '@repeat\nSearchResult(results[name = "Mike Johnson"].id = $id) & Check(id = $id) -> Checked\nChecked -> Done',
    ),
  },
  {
    name: 'filter binding',
    spec: specOf(
      '@repeat\nSearchResult(results[name = "Mike Johnson", id = $id]) & Check(id = $id) -> Checked\nChecked -> Done',
    ),
  },
];

const elements = 100;
const results = Array.from({ length: elements }, (_, index) => ({
  id: `id-${index.toString().padStart(4, '0')}`,
  name: 'Mike Johnson',
  location: `City ${index}`,
}));
const lastId = results[elements - 1]?.id ?? '';

function measure(spec: Spec, proposals: number, refused: boolean): DecisionTimings {
  return measureDecisions({
    count: proposals,
    renewEvery: 500,
    session: (): Session => {
      const session = createSession(spec, { now });
      session.observe({ updates: { SearchResult: { results } } });
      return session;
    },
    // Distinct refused ids: a repeated refusal would escalate.
    proposal: (index) => ({
      action: { name: 'Check', args: { id: refused ? `other-${index}` : lastId } },
    }),
    expected: refused ? 'revise' : 'allow',
  });
}

export function languageV2Bench(proposals: number): void {
  const count = Math.max(1_000, Math.min(proposals, 20_000));
  const rows = joins.flatMap(({ name, spec }) => {
    const allow = measure(spec, count, false);
    const refuse = measure(spec, count, true);
    return [
      [
        `${name}: matching id (last element)`,
        allow.ok ? 'allow' : 'WRONG',
        formatMicros(allow.p50),
        formatMicros(allow.p99),
        '20',
      ],
      [
        `${name}: other id`,
        refuse.ok ? 'revise' : 'WRONG',
        formatMicros(refuse.p50),
        formatMicros(refuse.p99),
        '50',
      ],
    ];
  });
  console.log(
    `\nBindings: a join over a ${elements}-element result list (${count.toLocaleString('en-US')} proposals; µs, timer overhead subtracted)`,
  );
  console.log(table(['proposal', 'decision', 'p50', 'p99', 'target p50'], rows));
}
