import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, type Schema, type Spec } from '../src/language/index.js';
import { schemaFromMcpTools } from '../src/schema/index.js';
import { formatMicros, measureDecisions, table } from './measure.js';

/**
 * Records rows of `npm run bench` (LANGUAGE.md §7): what typed record fields cost a
 * decision — a rule reading a number field of a record result and a date field of a
 * 100-element list of records, an action whose record argument is checked field by
 * field, and a guard on a date field of that argument. Records cost only where a spec uses them; the v1 rows stay the reference.
 */
const now = '2025-03-14T12:00';
const schema = schemaFromMcpTools({
  tools: [
    {
      name: 'forecast',
      inputSchema: { type: 'object', properties: {} },
      outputSchema: {
        type: 'object',
        properties: {
          wind: { type: 'object', properties: { speed: { type: 'number' } } },
          days: {
            type: 'array',
            items: {
              type: 'object',
              properties: { day: { type: 'string', format: 'date' }, rain: { type: 'number' } },
            },
          },
        },
      },
    },
    {
      name: 'book',
      inputSchema: {
        type: 'object',
        properties: {
          traveller: {
            type: 'object',
            properties: { name: { type: 'string' }, born: { type: 'string', format: 'date' } },
            required: ['name'],
          },
        },
        required: ['traveller'],
      },
      annotations: { destructiveHint: true },
    },
  ],
}).value as Schema;

const spec: Spec = (() => {
  const checked = checkSpec(
    '@repeat\nforecastResult(wind.speed < 30, count(days[day >= 2025-03-20, rain > 5]) = 0) & book() -> Booked\nBooked -> Done\nreject book(traveller.born > 2010-01-01)',
    schema,
  );
  if (!checked.ok) throw new Error(`bench records spec: ${checked.diagnostics[0]?.message}`);
  return checked.value;
})();

const days = Array.from({ length: 100 }, (_, index) => ({
  day: `2025-${String(3 + Math.floor(index / 28)).padStart(2, '0')}-${String((index % 28) + 1).padStart(2, '0')}`,
  rain: index % 2,
}));

function freshSession(): Session {
  const session = createSession(spec, { now });
  session.observe({ updates: { forecastResult: { wind: { speed: 10 }, days } } });
  return session;
}

function measure(proposals: number, refused: boolean): { p50: number; ok: boolean } {
  const born = refused ? '2015-01-01' : '1990-01-01';
  return measureDecisions({
    count: proposals,
    renewEvery: 500,
    session: freshSession,
    proposal: () => ({ action: { name: 'book', args: { traveller: { name: 'Ann', born } } } }),
    expected: refused ? 'reject' : 'allow',
  });
}

export function recordsBench(proposals: number): void {
  const count = Math.max(1_000, Math.min(proposals, 20_000));
  const allow = measure(count, false);
  const refuse = measure(count, true);
  console.log(
    `\nRecords: typed fields of a record result, a 100-element list of records and a record argument (${count.toLocaleString('en-US')} proposals; µs, timer overhead subtracted)`,
  );
  console.log(
    table(
      ['proposal', 'decision', 'p50'],
      [
        ['fitting record argument', allow.ok ? 'allow' : 'WRONG', formatMicros(allow.p50)],
        ['born too late (reject guard)', refuse.ok ? 'reject' : 'WRONG', formatMicros(refuse.p50)],
      ],
    ),
  );
}
