import { percentile } from '../src/support/percentile.js';
/** Nanosecond timing of single calls, and percentiles. */
export function timeCall(call: () => unknown): number {
  const start = process.hrtime.bigint();
  call();
  return Number(process.hrtime.bigint() - start);
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export { percentile };

/** The cost of the timer itself, subtracted from single-call timings. */
export function timerOverhead(): number {
  const samples: number[] = [];
  for (let index = 0; index < 20_000; index++) samples.push(timeCall(() => undefined));
  samples.sort((a, b) => a - b);
  return percentile(samples, 0.5);
}

export function formatMicros(nanoseconds: number): string {
  return (nanoseconds / 1000).toFixed(2);
}

export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  return [
    line(headers),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.map(line),
  ].join('\n');
}

export interface DecisionTimings {
  readonly p50: number;
  readonly p99: number;
  /** Every proposal got the expected decision: a row never measures a wrong path. */
  readonly ok: boolean;
}

/** The table of labelled decision timings: proposal, decision (WRONG if one was not `expected`), p50, p99. */
export function decisionTable(
  rows: readonly (readonly [string, DecisionTimings])[],
  expected = 'allow',
): string {
  return table(
    ['proposal', 'decision', 'p50', 'p99'],
    rows.map(([label, timing]) => [
      label,
      timing.ok ? expected : 'WRONG',
      formatMicros(timing.p50),
      formatMicros(timing.p99),
    ]),
  );
}

/**
 * Times `session.propose` for `count` proposals, in sessions renewed every `renewEvery`
 * proposals (agent runs are short; a repeated refusal would escalate), checking each
 * decision outside the timed call.
 */
export function measureDecisions(options: {
  readonly count: number;
  readonly renewEvery: number;
  readonly session: () => { propose(proposal: unknown): { readonly decision: string } };
  readonly proposal: (index: number) => unknown;
  readonly expected: string;
}): DecisionTimings {
  const overhead = timerOverhead();
  const samples: number[] = [];
  let ok = true;
  let session = options.session();
  for (let index = 0; index < options.count; index++) {
    if (index % options.renewEvery === 0) session = options.session();
    const proposal = options.proposal(index);
    let decision = '';
    samples.push(
      timeCall(() => {
        decision = session.propose(proposal).decision;
      }) - overhead,
    );
    if (decision !== options.expected) ok = false;
  }
  samples.sort((a, b) => a - b);
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), ok };
}
