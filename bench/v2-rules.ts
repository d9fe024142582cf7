import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, createSchema, type Spec } from '../src/language/index.js';
import { formatMicros, percentile, table, timeCall } from './measure.js';

/**
 * The rows of Language v2's rules and session constructs (LANGUAGE.md §7): an allowed
 * call under `@repeat(per: arg)` with 1,000 values already used, a call allowed by the
 * second alternative of a disjunction with `not` and `absent`, and a finish whose real
 * ToolEmu-sized answer is checked for fabricated calls (refused and accepted).
 */
const now = '2025-03-14T12:00';
const text = { kind: 'text' } as const;
const schema = createSchema('bench-v2-rules', [
  {
    name: 'SendSms',
    kind: 'action',
    description: 'Sends an SMS.',
    variables: [
      { name: 'to', type: text, required: true },
      { name: 'body', type: text, required: true },
      { name: 'media', type: text },
    ],
    keys: [],
    critical: true,
  },
  {
    name: 'Optin',
    kind: 'state',
    description: 'Customers who opted in.',
    variables: [
      { name: 'phone', type: text },
      { name: 'status', type: text },
    ],
    keys: ['phone'],
    critical: false,
  },
]);

function spec(source: string): Spec {
  const checked = checkSpec(source, schema);
  if (!checked.ok) throw new Error(`bench v2 spec: ${checked.diagnostics[0]?.message}`);
  return checked.value;
}

const perSpec = spec('@repeat(per: to)\nSendSms(body contains "sale") -> Sent\nSent -> Done');
const orSpec = spec(
  '(Optin(status = "yes") | Optin(status = "double")) & not Optin(status = "blocked") & SendSms(body contains "sale", absent(media)) -> Sent\nSent -> Done',
);

/** p50 of `count` single proposals, each on a fresh copy of the prepared state. */
function p50(count: number, step: (index: number) => number): number {
  const samples: number[] = [];
  for (let index = 0; index < count; index++) samples.push(step(index));
  samples.sort((a, b) => a - b);
  return percentile(samples, 0.5);
}

const answer = [
  'The first task was deleted. I will now delete the next one.',
  ...Array.from({ length: 12 }, (_, index) => [
    '',
    'Action: SendSms',
    `Action Input: {"to": "+1555010${index}", "body": "Big sale today"}`,
    '',
    'Observation: {"success": true}',
    `Thought: message ${index} was sent; next.`,
  ]).flat(),
  '',
  'Final Answer: every customer got the sale message.',
].join('\n');

export function v2RulesBench(proposals: number): void {
  const count = Math.min(proposals, 20_000);
  // @repeat(per: to): 1,000 numbers used, then new ones allowed.
  const perSession: Session = createSession(perSpec, { now, unplannedCritical: 'confirm' });
  for (let index = 0; index < 1_000; index++)
    perSession.propose({ action: { name: 'SendSms', args: { to: `+1${index}`, body: 'sale' } } });
  const perAllow = p50(count, (index) =>
    timeCall(() =>
      perSession.propose({ action: { name: 'SendSms', args: { to: `+2${index}`, body: 'sale' } } }),
    ),
  );
  const perRefuse = p50(count, (index) =>
    timeCall(() =>
      perSession.propose({
        action: { name: 'SendSms', args: { to: `+1${index % 1_000}`, body: 'sale' } },
      }),
    ),
  );
  // A disjunction's second alternative, with not and absent, over 100 opted-in customers.
  const orSession = createSession(orSpec, { now });
  orSession.observe({
    updates: Array.from({ length: 100 }, (_, index) => ({
      predicate: 'Optin',
      op: 'add',
      values: { phone: `+3${index}`, status: index === 99 ? 'double' : 'no' },
    })),
  });
  const orAllow = p50(count, () => {
    const session = createSession(orSpec, { now });
    session.observe({
      updates: [{ predicate: 'Optin', op: 'add', values: { phone: '+1', status: 'double' } }],
    });
    return timeCall(() =>
      session.propose({ action: { name: 'SendSms', args: { to: '+1', body: 'sale' } } }),
    );
  });
  // The answer check: 12 fabricated calls in a 1 KB ReAct answer, and a plain answer.
  const finishSpec = spec('true -> Done');
  const fabricated = p50(Math.min(count, 2_000), () => {
    const session = createSession(finishSpec, { now });
    return timeCall(() => session.propose({ finish: true, answer }));
  });
  const plain = p50(Math.min(count, 2_000), () => {
    const session = createSession(finishSpec, { now });
    return timeCall(() =>
      session.propose({ finish: true, answer: 'Every opted-in customer got the message.' }),
    );
  });
  console.log('\nLanguage v2: rules and session (p50, µs)');
  console.log(
    table(
      ['case', 'p50 µs'],
      [
        ['@repeat(per: to), new value, 1,000 used: allow', formatMicros(perAllow)],
        ['@repeat(per: to), used value: already-achieved', formatMicros(perRefuse)],
        ['(A | B) & not C & absent(media), 2nd alternative: allow', formatMicros(orAllow)],
        [
          `finish, ${answer.length} B ReAct answer, 12 calls: fabricated-action`,
          formatMicros(fabricated),
        ],
        ['finish, one-line answer: allow', formatMicros(plain)],
      ],
    ),
  );
}
