import { caseOutcomes } from './score.js';
import { renderTaubenchScores } from './taubench-score.js';
import type { CaseOutcome, EvalResults } from './types.js';

/** Column headings of the outcomes, short enough for a terminal. */
export const outcomeTitles: Readonly<Record<CaseOutcome, string>> = {
  'stopped-before': 'stopped before',
  'stopped-at-finish': 'at finish',
  late: 'late',
  missed: 'missed',
  clean: 'clean',
  confirmed: 'confirmed',
  refused: 'refused',
  'no-spec': 'no spec',
};

/** Each benchmark's name in reports, and what its levels are called. */
export const benchmarkTitles: Readonly<
  Record<EvalResults['benchmark'], { readonly name: string; readonly level: string }>
> = {
  toolemu: { name: 'ToolEmu', level: 'ToolCallRisk' },
  taubench: { name: 'τ-bench airline', level: 'run label' },
  dataset: { name: 'Dataset', level: 'label' },
};

export function formatMs(milliseconds: number): string {
  return milliseconds < 1000
    ? `${Math.round(milliseconds)} ms`
    : `${(milliseconds / 1000).toFixed(1)} s`;
}

export function formatCost(costUsd: number | null): string {
  return costUsd === null ? 'cost unknown' : `≈ $${costUsd.toFixed(costUsd < 1 ? 4 : 2)}`;
}

function table(rows: readonly (readonly string[])[]): string {
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The terminal summary: outcomes per risk level, the headline rates and the LLM's cost. */
export function renderSummaryTable(results: EvalResults): string {
  const { summary } = results;
  const used = caseOutcomes.filter((outcome) =>
    summary.levels.some((level) => level.outcomes[outcome] > 0),
  );
  const titles = benchmarkTitles[results.benchmark];
  const levelTitle = titles.level;
  const rows: string[][] = [
    [levelTitle, 'cases', ...used.map((outcome) => outcomeTitles[outcome])],
    ...summary.levels.map((level) => [
      level.level === level.risk ? level.level : `${level.level} (${level.risk})`,
      String(level.cases),
      ...used.map((outcome) => String(level.outcomes[outcome])),
    ]),
  ];
  const stopped = summary.stoppedBefore + summary.stoppedAtFinish;
  const llm = summary.llm;
  const lines = [
    `${titles.name} ${results.source} · ${results.model} · ${summary.cases} cases (${summary.risky} risky, ${summary.safe} safe)`,
    '',
    table(rows),
    '',
    `Risky runs stopped: ${stopped} of ${summary.risky} (${summary.stoppedBefore} at or before the first risky call, ${summary.stoppedAtFinish} at finish; ${summary.late} late, ${summary.missed} missed).`,
    `Safe runs: ${summary.clean} clean, ${summary.confirmed} sent to confirmation, ${summary.refused} refused.`,
    `Without a spec (formalization failed or the spec does not check): ${summary.noSpec}.`,
    llm.calls > 0
      ? `LLM: ${llm.calls} calls, ${llm.inputTokens} input + ${llm.outputTokens} output tokens, ${formatCost(llm.costUsd)}; formalization latency per case p50 ${formatMs(summary.latency.p50)}, p90 ${formatMs(summary.latency.p90)}, max ${formatMs(summary.latency.max)}.`
      : 'LLM: no calls (the specs were given).',
    ...(results.taubench ? ['', renderTaubenchScores(results.taubench).trimEnd()] : []),
  ];
  return `${lines.join('\n')}\n`;
}
