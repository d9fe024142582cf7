import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, createSchema, type Spec } from '../src/language/index.js';
import { formatMicros, percentile, table, timeCall, timerOverhead } from './measure.js';

/**
 * Language v2 rows of `npm run bench` (LANGUAGE.md §7): a binding join over a
 * 100-element result list — `SearchResult(results[name = "Mike Johnson"].id = $id) &
 * Check(id = $id)` — with the matching id last, so that the join tries every element.
 * Targets: allow p50 ≤ 20 µs, refusal with feedback p50 ≤ 50 µs.
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

const joinSpec: Spec = (() => {
  const checked = checkSpec(
    '@repeat\nSearchResult(results[name = "Mike Johnson"].id = $id) & Check(id = $id) -> Checked\nChecked -> Done',
    schema,
  );
  if (!checked.ok) throw new Error(`bench v2 spec: ${checked.diagnostics[0]?.message}`);
  return checked.value;
})();

const elements = 100;
const results = Array.from({ length: elements }, (_, index) => ({
  id: `id-${index.toString().padStart(4, '0')}`,
  name: 'Mike Johnson',
  location: `City ${index}`,
}));
const lastId = results[elements - 1]?.id ?? '';

function freshSession(): Session {
  const session = createSession(joinSpec, { now });
  session.observe({ updates: { SearchResult: { results } } });
  return session;
}

function measure(proposals: number, refused: boolean): { p50: number; p99: number; ok: boolean } {
  const overhead = timerOverhead();
  const samples: number[] = [];
  let ok = true;
  let session = freshSession();
  for (let index = 0; index < proposals; index++) {
    // Distinct refused ids (a repeat would escalate); a new session now and then.
    if (index % 500 === 0) session = freshSession();
    const id = refused ? `other-${index}` : lastId;
    const proposal = { action: { name: 'Check', args: { id } } };
    let decision = '';
    samples.push(
      timeCall(() => {
        decision = session.propose(proposal).decision;
      }) - overhead,
    );
    if (decision !== (refused ? 'revise' : 'allow')) ok = false;
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), ok };
}

export function languageV2Bench(proposals: number): void {
  const count = Math.max(1_000, Math.min(proposals, 20_000));
  const allow = measure(count, false);
  const refuse = measure(count, true);
  console.log(
    `\nBindings: a join over a ${elements}-element result list (${count.toLocaleString('en-US')} proposals; µs, timer overhead subtracted)`,
  );
  console.log(
    table(
      ['proposal', 'decision', 'p50', 'p99', 'target p50'],
      [
        [
          'matching id (last element)',
          allow.ok ? 'allow' : 'WRONG',
          formatMicros(allow.p50),
          formatMicros(allow.p99),
          '20',
        ],
        [
          'other id',
          refuse.ok ? 'revise' : 'WRONG',
          formatMicros(refuse.p50),
          formatMicros(refuse.p99),
          '50',
        ],
      ],
    ),
  );
}
