import { caseOutcomes } from './score.js';
import { benchmarkTitles, formatCost, formatMs, outcomeTitles } from './summary-table.js';
import type { CaseOutcome, CaseResult, EvalResults } from './types.js';

/*
 * The HTML report: one self-contained file — inline CSS and inline SVG, no script, and
 * a Content-Security-Policy that forbids every fetch, so opening it makes no network
 * request. Everything from the data (instructions, specs, reasons: text an LLM or a
 * dataset wrote) is escaped.
 */

const colours: Readonly<Record<CaseOutcome, string>> = {
  'stopped-before': '#1a7f37',
  'stopped-at-finish': '#7cc28a',
  late: '#d29922',
  missed: '#cf222e',
  clean: '#1a7f37',
  confirmed: '#d29922',
  refused: '#cf222e',
  'no-spec': '#8c959f',
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const css = `
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1f2328; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: #59636e; margin-bottom: 16px; }
.cards { display: flex; flex-wrap: wrap; gap: 12px; }
.card { border: 1px solid #d1d9e0; border-radius: 6px; padding: 10px 14px; min-width: 150px; }
.card b { display: block; font-size: 20px; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: #1f2328; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #d1d9e0; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; position: sticky; top: 0; }
td.n { text-align: right; white-space: nowrap; }
.tag { display: inline-block; padding: 0 6px; border-radius: 10px; color: #fff; font-size: 12px; white-space: nowrap; }
.wrong { background: #fff5f5; }
details pre { white-space: pre-wrap; background: #f6f8fa; padding: 6px; margin: 4px 0; }
.legend span { margin-right: 14px; white-space: nowrap; }
.legend i { display: inline-block; width: 10px; height: 10px; margin-right: 4px; }
`;

function legend(outcomes: readonly CaseOutcome[]): string {
  return `<div class="legend">${outcomes
    .map(
      (outcome) =>
        `<span><i style="background:${colours[outcome]}"></i>${escapeHtml(outcomeTitles[outcome])}</span>`,
    )
    .join('')}</div>`;
}

/** Stacked bars: for each risk level, the share of each outcome. */
function outcomeBars(results: EvalResults): string {
  const levels = results.summary.levels;
  const rowHeight = 30;
  const labelWidth = 130;
  const barWidth = 560;
  const height = levels.length * rowHeight + 10;
  const rows = levels.map((level, row) => {
    const y = row * rowHeight + 5;
    let x = labelWidth;
    const segments = caseOutcomes
      .filter((outcome) => level.outcomes[outcome] > 0)
      .map((outcome) => {
        const count = level.outcomes[outcome];
        const width = (count / Math.max(1, level.cases)) * barWidth;
        const segment = `<rect x="${x.toFixed(1)}" y="${y}" width="${width.toFixed(1)}" height="${rowHeight - 8}" fill="${colours[outcome]}"><title>${escapeHtml(`${outcomeTitles[outcome]}: ${count} of ${level.cases}`)}</title></rect>${
          width >= 18
            ? `<text x="${(x + width / 2).toFixed(1)}" y="${y + rowHeight / 2}" text-anchor="middle" style="fill:#fff">${count}</text>`
            : ''
        }`;
        x += width;
        return segment;
      })
      .join('');
    return `<text x="0" y="${y + rowHeight / 2}">${escapeHtml(`${level.level === level.risk ? level.level : `${level.level} (${level.risk})`} · ${level.cases}`)}</text>${segments}`;
  });
  return `<svg class="chart" id="outcomes" role="img" aria-label="Outcomes per risk level" viewBox="0 0 ${labelWidth + barWidth + 10} ${height}" width="${labelWidth + barWidth + 10}" height="${height}">${rows.join('')}</svg>`;
}

/** A histogram of per-case values (latency in seconds, cost in dollars). */
function histogram(
  id: string,
  label: string,
  values: readonly number[],
  format: (value: number) => string,
): string {
  const width = 700;
  const height = 160;
  const bins = 12;
  if (values.length === 0) {
    return `<svg class="chart" id="${id}" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${width} 40" width="${width}" height="40"><text x="0" y="24">no data</text></svg>`;
  }
  const max = Math.max(...values);
  const step = max > 0 ? max / bins : 1;
  const counts = new Array<number>(bins).fill(0);
  for (const value of values) counts[Math.min(bins - 1, Math.floor(value / step))]! += 1;
  const tallest = Math.max(...counts);
  const plotHeight = height - 40;
  const barWidth = (width - 20) / bins;
  const bars = counts
    .map((count, bin) => {
      const barHeight = tallest === 0 ? 0 : (count / tallest) * plotHeight;
      const x = 10 + bin * barWidth;
      const y = 10 + plotHeight - barHeight;
      return `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${barHeight.toFixed(1)}" fill="#0969da"><title>${escapeHtml(`${format(bin * step)}–${format((bin + 1) * step)}: ${count} cases`)}</title></rect>${
        count > 0
          ? `<text x="${(x + barWidth / 2).toFixed(1)}" y="${(y - 2).toFixed(1)}" text-anchor="middle">${count}</text>`
          : ''
      }`;
    })
    .join('');
  const axis = `<line x1="10" y1="${10 + plotHeight}" x2="${width - 10}" y2="${10 + plotHeight}" stroke="#59636e"/><text x="10" y="${height - 8}">0</text><text x="${width - 10}" y="${height - 8}" text-anchor="end">${escapeHtml(format(max))}</text><text x="${width / 2}" y="${height - 8}" text-anchor="middle">${escapeHtml(label)}</text>`;
  return `<svg class="chart" id="${id}" role="img" aria-label="${escapeHtml(label)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">${bars}${axis}</svg>`;
}

function interventionCell(result: CaseResult): string {
  if (!result.spec.ok) return escapeHtml(result.spec.failure?.message ?? 'no spec');
  const first = result.firstIntervention;
  if (!first) return '—';
  const kind = first.source === 'fabricated' ? ' (fabricated call)' : '';
  return `<b>step ${first.step + 1}: ${escapeHtml(first.name)}${kind}</b> → ${escapeHtml(first.decision)}${first.code ? ` <code>${escapeHtml(first.code)}</code>` : ''}<br>${escapeHtml(first.reason)}`;
}

function caseRow(result: CaseResult): string {
  const outcome = `<span class="tag" style="background:${colours[result.outcome]}">${escapeHtml(outcomeTitles[result.outcome])}</span>`;
  const risky =
    result.riskyStep === null ? '' : `<br><small>risky step ${result.riskyStep + 1}</small>`;
  const steps = result.verdicts
    .map(
      (verdict) =>
        `${verdict.step + 1}. ${verdict.name}${verdict.source === 'fabricated' ? ' (fabricated)' : ''}: ${verdict.decision}${verdict.code ? ` [${verdict.code}]` : ''}`,
    )
    .join('\n');
  const details =
    result.spec.text !== undefined || steps !== ''
      ? `<details><summary>spec and verdicts</summary><pre>${escapeHtml(result.spec.text ?? '(no spec)')}</pre><pre>${escapeHtml(steps)}</pre>${
          result.answer !== undefined
            ? `<p>Final answer:</p><pre>${escapeHtml(result.answer)}</pre>`
            : ''
        }</details>`
      : '';
  return `<tr class="${result.correct ? '' : 'wrong'}"><td class="n">${result.index}</td><td>${escapeHtml(result.id)}<br><small>${escapeHtml(result.schema)}</small></td><td>${escapeHtml(result.level)}</td><td>${outcome}${risky}</td><td>${escapeHtml(result.instruction)}${details}</td><td>${interventionCell(result)}</td><td class="n">${result.llm.calls}</td><td class="n">${result.llm.inputTokens + result.llm.outputTokens}</td><td class="n">${escapeHtml(result.llm.costUsd === null ? '?' : `$${result.llm.costUsd.toFixed(4)}`)}</td><td class="n">${escapeHtml(formatMs(result.llm.latencyMs))}</td></tr>`;
}

/** τ-bench's three scores, for the configuration the run evaluated. */
function taubenchCards(results: EvalResults): string[][] {
  const scores = results.taubench;
  if (scores === undefined) return [];
  return [
    [
      `unsafe runs stopped (${scores.configuration})`,
      `${scores.unsafe.stopped} / ${scores.unsafe.runs}`,
    ],
    ['false alarms on successes', `${scores.successes.interrupted} / ${scores.successes.runs}`],
    [
      'premature finishes refused on missed writes',
      `${scores.missedWrites.finishRefused} / ${scores.missedWrites.runs}`,
    ],
  ];
}

/** The whole report as one HTML document. */
export function renderHtmlReport(results: EvalResults): string {
  const { summary } = results;
  const title = `intentguard eval — ${benchmarkTitles[results.benchmark].name} · ${results.model}`;
  const stopped = summary.stoppedBefore + summary.stoppedAtFinish;
  const cards = [
    ['cases', `${summary.cases}`],
    ['risky runs stopped', `${stopped} / ${summary.risky}`],
    ['stopped before the risky call', `${summary.stoppedBefore}`],
    ['safe runs clean', `${summary.clean} / ${summary.safe}`],
    ['safe runs refused', `${summary.refused}`],
    ['sent to confirmation', `${summary.confirmed}`],
    ['without a spec', `${summary.noSpec}`],
    ['LLM calls', `${summary.llm.calls}`],
    ['tokens', `${summary.llm.inputTokens + summary.llm.outputTokens}`],
    ['cost', formatCost(summary.llm.costUsd)],
    ...taubenchCards(results),
  ]
    .map(
      ([label, value]) =>
        `<div class="card"><b>${escapeHtml(value ?? '')}</b>${escapeHtml(label ?? '')}</div>`,
    )
    .join('');
  const latencies = results.cases.map((result) => result.llm.latencyMs / 1000);
  const costs = results.cases.flatMap((result) =>
    result.llm.costUsd === null ? [] : [result.llm.costUsd],
  );
  const options = Object.entries(results.options)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(', ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${css}</style></head>
<body>
<h1>${escapeHtml(title)}</h1>
<div class="meta">${escapeHtml(results.source)}${options ? ` · ${escapeHtml(options)}` : ''}</div>
<div class="cards">${cards}</div>
<h2>Outcomes per risk level</h2>
${legend(caseOutcomes.filter((outcome) => summary.levels.some((level) => level.outcomes[outcome] > 0)))}
${outcomeBars(results)}
<h2>Formalization latency per case</h2>
${histogram('latency', 'seconds', latencies, (value) => `${value.toFixed(1)} s`)}
<h2>Cost per case</h2>
${histogram('cost', 'US dollars', costs, (value) => `$${value.toFixed(4)}`)}
<h2>Cases</h2>
<table id="cases"><thead><tr><th>#</th><th>case</th><th>level</th><th>outcome</th><th>instruction</th><th>first intervention and its reason</th><th>calls</th><th>tokens</th><th>cost</th><th>latency</th></tr></thead>
<tbody>${results.cases.map(caseRow).join('\n')}</tbody></table>
</body></html>
`;
}
