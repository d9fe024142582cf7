import { createSession } from '../src/engine/index.js';
import { checkSpec, createSchema, type Spec } from '../src/language/index.js';
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
}
