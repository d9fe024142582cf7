import { createSession } from '../src/engine/index.js';
import { createGuard } from '../src/guard/index.js';
import { checkSpec, createSchema, type Spec } from '../src/language/index.js';
import { loadToolSchema } from '../src/schema/index.js';
import { collectGarbage, formatMicros, percentile, table, timeCall } from './measure.js';

/**
 * The security rows of `npm run bench` (issue #7): a catastrophic regex against an
 * agent-chosen argument must run in linear time, and an agent that sends a million
 * distinct refused proposals, or megabyte arguments, must not grow the session.
 */
const now = '2025-03-14T12:00';
const schema = createSchema('bench-security', [
  {
    name: 'BankTransfer',
    kind: 'action',
    description: 'Transfers money.',
    variables: [
      { name: 'to', type: { kind: 'text' }, required: true },
      { name: 'amount', type: { kind: 'number' }, required: true },
    ],
    keys: [],
    critical: true,
  },
]);

function spec(text: string): Spec {
  const checked = checkSpec(text, schema);
  if (!checked.ok) throw new Error(`bench security spec: ${checked.diagnostics[0]?.message}`);
  return checked.value;
}

const redosSpec = spec(
  'reject BankTransfer(to matches /(a+)+$/) because "no such payee"\nBankTransfer(amount = 500) -> T\nT -> Done',
);
const transferSpec = spec('BankTransfer(to = "Alice", amount = 500) -> T\nT -> Done');

/** One propose with an adversarial `to` of n characters against `/(a+)+$/`, median of runs. */
function redosRow(length: number): string[] {
  const to = `${'a'.repeat(length - 1)}!`;
  const proposal = { action: { name: 'BankTransfer', args: { to, amount: 500 } } };
  const runs: number[] = [];
  let decision = '';
  for (let run = 0; run < 7; run++) {
    const session = createSession(redosSpec, { now });
    runs.push(
      timeCall(() => {
        decision = session.propose(proposal).decision;
      }),
    );
  }
  runs.sort((a, b) => a - b);
  const median = percentile(runs, 0.5);
  return [
    length.toLocaleString('en-US'),
    decision,
    formatMicros(median),
    (median / length).toFixed(1),
  ];
}

function heapMegabytes(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

/** Distinct refused transfers (`to: "Bob" + i`) in one session: heap after GC at checkpoints. */
function refusalMemoryRows(total: number): string[][] {
  const session = createSession(transferSpec, { now });
  const before = heapMegabytes();
  const rows: string[][] = [];
  const checkpoints = new Set([total / 10, total / 2, total]);
  let started = process.hrtime.bigint();
  let block = 0;
  for (let index = 1; index <= total; index++) {
    const verdict = session.propose({
      action: { name: 'BankTransfer', args: { to: `Bob${index}`, amount: 500 } },
    });
    if (verdict.decision !== 'revise')
      throw new Error(`bench: expected revise, got ${verdict.decision}`);
    block++;
    if (checkpoints.has(index)) {
      const elapsed = Number(process.hrtime.bigint() - started);
      rows.push([
        index.toLocaleString('en-US'),
        (heapMegabytes() - before).toFixed(1),
        formatMicros(elapsed / block),
      ]);
      started = process.hrtime.bigint();
      block = 0;
    }
  }
  return rows;
}

/** 1 MB arguments are refused before anything is stored: heap growth over many of them. */
function largeArgumentRow(count: number): string[] {
  const session = createSession(transferSpec, { now });
  const to = 'x'.repeat(1_000_000);
  const before = heapMegabytes();
  const times: number[] = [];
  let decision = '';
  let code = '';
  for (let index = 0; index < count; index++) {
    // A distinct string each time, as an agent would send: nothing may be kept of it.
    const proposal = {
      action: { name: 'BankTransfer', args: { to: `${index}${to}`, amount: 500 } },
    };
    times.push(
      timeCall(() => {
        const verdict = session.propose(proposal);
        decision = verdict.decision;
        code = verdict.reasons[0]?.code ?? '';
      }),
    );
  }
  times.sort((a, b) => a - b);
  return [
    count.toLocaleString('en-US'),
    `${decision} (${code})`,
    formatMicros(percentile(times, 0.5)),
    (heapMegabytes() - before).toFixed(1),
  ];
}

const pageTools = loadToolSchema(
  JSON.stringify({
    tools: [
      {
        name: 'ReadPage',
        annotations: { readOnlyHint: true },
        inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] },
      },
      {
        name: 'Pay',
        annotations: { destructiveHint: true },
        inputSchema: {
          type: 'object',
          properties: { payee: { type: 'string' }, amount: { type: 'number' } },
          required: ['payee', 'amount'],
        },
      },
    ],
  }),
);
const paySpec = 'Pay(payee = "Bob", amount <= 10) -> Paid\nPaid -> Done\n';
const pageReaders: readonly (readonly [string, string, string])[] = [
  ['no rule', paySpec, 'the quick brown fox jumps\nover the lazy dog.\n'],
  [
    'not … contains',
    `not ReadPageResult(content contains "wire the money") & ${paySpec}`,
    'the quick brown fox jumps\nover the lazy dog.\n',
  ],
  [
    'not … contains, non-Latin-1',
    `not ReadPageResult(content contains "wire the money") & ${paySpec}`,
    'Ünïcödé façade — naïve CAFÉ\nΟΔΟΣ STRAẞE\n',
  ],
];

/**
 * S1 (round 2): the heap a guard keeps per 1 MB of text results (pages with line breaks,
 * off the ASCII fast path), read by no rule or by a `not` over them (target ≤ 1.5 MB
 * for a result no rule reads; ~17.8 MB before).
 */
function resultMemoryRow([reader, spec, line]: readonly [string, string, string]): string[] {
  if (!pageTools.ok) throw new Error('bench: the page tools do not load');
  const guard = createGuard(spec, pageTools.value, { now });
  const count = 8;
  const before = heapMegabytes();
  let megabytes = 0;
  const started = process.hrtime.bigint();
  for (let index = 1; index <= count; index++) {
    const page = `<h1>page ${index}</h1>\n${line.repeat(Math.ceil(990_000 / line.length))}`.slice(
      0,
      990_000,
    );
    megabytes += (/^[\x00-\xff]*$/.test(page) ? page.length : 2 * page.length) / 1024 / 1024;
    const id = `read-${index}`;
    guard.check({ id, name: 'ReadPage', args: { url: `https://news.example/${index}` } });
    if (!guard.result(id, { output: { content: page } }).ok)
      throw new Error('bench: a page result was not kept');
  }
  // One decision reads every result (the rule's `not`), as the next call of an agent would.
  if (guard.check({ id: 'pay', name: 'Pay', args: { payee: 'Bob', amount: 5 } }).action !== 'run')
    throw new Error('bench: the payment was not allowed');
  const elapsed = Number(process.hrtime.bigint() - started);
  const kept = heapMegabytes() - before;
  if (!guard.status().done) throw new Error('bench: the task is not done');
  return [reader, String(count), (kept / megabytes).toFixed(2), formatMicros(elapsed / count)];
}

export function securityBench(proposals: number): void {
  console.log(
    '\nReDoS: one propose, `reject BankTransfer(to matches /(a+)+$/)`, to = "a"×(n−1) + "!" (median of 7)',
  );
  console.log(
    table(['n (chars)', 'decision', 'µs', 'ns/char'], [1_000, 10_000, 100_000].map(redosRow)),
  );
  console.log(
    `\nMemory: ${proposals.toLocaleString('en-US')} distinct refused proposals in one session (heap growth after GC; target < 50 MB)`,
  );
  console.log(table(['proposals', 'heap MB', 'µs/proposal'], refusalMemoryRows(proposals)));
  console.log('\n1 MB arguments: refused, not stored');
  console.log(table(['proposals', 'verdict', 'µs p50', 'heap MB after'], [largeArgumentRow(200)]));
  resultMemoryBench();
}

/** A payment a task may make again and again, each time reading every result. */
const repeatedPay = (condition: string) =>
  `@repeat\nPay(payee = $p, amount <= 10) & not ReadPageResult(${condition}) -> Paid\nPaid -> Done\n`;
const commaReaders: readonly (readonly [string, string, boolean])[] = [
  ['not … contains "…"', repeatedPay('content contains "wire the money"'), false],
  ['not … = "…"', repeatedPay('content = "wire the money"'), false],
  ['not … contains $p, one payee', repeatedPay('content contains $p'), false],
  ['not … contains $p, a new payee each check', repeatedPay('content contains $p'), true],
  ['not … = $p, one payee', repeatedPay('content = $p'), false],
];

/**
 * The deny-list reading of large results: ten 1 MB results of short comma-separated
 * items (`a,b,c;d,…`: many parts) read by a `not` over them, then checks of a payment
 * that reads them all. A check must stay in milliseconds however much the agent read
 * (ten results took 6.5 s for the first check, and through a binding every check), and a read result must not keep its skeletons and parts.
 */
function commaResultRow([reader, spec, freshPayee]: readonly [string, string, boolean]): string[] {
  if (!pageTools.ok) throw new Error('bench: the page tools do not load');
  const guard = createGuard(spec, pageTools.value, { now });
  const count = 10;
  const line = 'a,b,c;d,e,f,g,h,i,j\n';
  const before = heapMegabytes();
  for (let index = 1; index <= count; index++) {
    const page = `<h1>page ${index}</h1>\n${line.repeat(Math.ceil(1_000_000 / line.length))}`;
    const id = `read-${index}`;
    guard.check({ id, name: 'ReadPage', args: { url: `https://lists.example/${index}` } });
    if (!guard.result(id, { output: { content: page.slice(0, 1_000_000) } }).ok)
      throw new Error('bench: a page result was not kept');
  }
  const megabytes = (count * 1_000_000) / 1024 / 1024;
  const times: number[] = [];
  for (let check = 0; check < 21; check++) {
    const payee = freshPayee ? `Bob ${check}` : 'Bob';
    times.push(
      timeCall(() => {
        const verdict = guard.check({
          id: `pay-${check}`,
          name: 'Pay',
          args: { payee, amount: 5 },
        });
        if (verdict.action !== 'run') throw new Error('bench: the payment was not allowed');
      }),
    );
  }
  const first = times[0] ?? Number.NaN;
  const later = times.slice(1).sort((a, b) => a - b);
  const kept = heapMegabytes() - before;
  return [
    reader,
    (first / 1e6).toFixed(1),
    (percentile(later, 0.5) / 1e6).toFixed(2),
    (kept / megabytes).toFixed(2),
  ];
}

/** The S1 rows alone (`node --expose-gc …/bench/security.js results` runs only them). */
export function resultMemoryBench(): void {
  console.log(
    '\nHeap per 1 MB text result: 0.99 MB pages with line breaks kept by a guard (target ≤ 1.5 MB when no rule reads them; was ~17.8)',
  );
  console.log(
    table(
      ['read by', 'results', 'heap MB per MB', 'µs per result'],
      pageReaders.map(resultMemoryRow),
    ),
  );
  console.log(
    '\nChecks after ten 1 MB results of short comma-separated items, read by a not (first check, then p50 of 20; heap kept per MB of results)',
  );
  console.log(
    table(
      ['read by', 'first check ms', 'check p50 ms', 'heap MB per MB'],
      commaReaders.map(commaResultRow),
    ),
  );
}

if (process.argv[2] === 'results' && process.argv[1]?.endsWith('security.js')) resultMemoryBench();
