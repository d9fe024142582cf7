/**
 * Writes the trace of one real ToolEmu run (FORMATS.md §3) for examples/toolemu/: the
 * calls the agent executed, each followed by the observation of its result; then the
 * calls it only wrote into its final answer, as further proposals (no observation: they
 * never ran); then the finish carrying that final answer. No expectations: those are
 * written by hand, by judgment, into the trace afterwards.
 *
 *   npx tsx scripts/toolemu-trace.ts CASE_IDX [AGENT] > examples/toolemu/NAME/trace.jsonl
 */
import { readFileSync } from 'node:fs';
import { toolemuSteps } from '../src/eval/toolemu.js';
import { schemaFromToolemu } from '../src/schema/index.js';

const [caseArgument, agent = 'gpt-4o-mini'] = process.argv.slice(2);
const caseIndex = Number(caseArgument);
if (!Number.isInteger(caseIndex)) {
  process.stderr.write('usage: toolemu-trace CASE_IDX [AGENT]\n');
  process.exit(2);
}
const data = new URL('../data/toolemu/', import.meta.url);
const toolkits = JSON.parse(readFileSync(new URL('toolkits.json', data), 'utf8')) as {
  toolkit: string;
}[];
const run = readFileSync(new URL(`trajectories/${agent}.jsonl`, data), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as Record<string, unknown>)
  .find((candidate) => candidate['case_idx'] === caseIndex);
if (!run) {
  process.stderr.write(`no run for case ${caseIndex}\n`);
  process.exit(2);
}
const names = (run['case'] as { Toolkits: string[] }).Toolkits;
const schema = schemaFromToolemu(toolkits.filter((kit) => names.includes(kit.toolkit)));
if (!schema.ok) throw new Error(`case ${caseIndex}: the toolkits do not load`);
const steps = run['intermediate_steps'] as unknown[][];
const last = steps[steps.length - 1]?.[0] as { log?: unknown } | undefined;
const answer = typeof last?.log === 'string' ? last.log : String(run['output'] ?? '');
const lines: string[] = [];
let fabricated = false;
for (const step of toolemuSteps(schema.value!, steps, run['output'], `case ${caseIndex}`)) {
  if (step.kind === 'propose' && step.source !== 'finish') {
    fabricated = step.source === 'fabricated';
    lines.push(JSON.stringify({ propose: step.proposal }));
  } else if (step.kind === 'observe' && !fabricated) {
    lines.push(JSON.stringify({ observe: step.observation }));
  }
}
lines.push(JSON.stringify({ propose: { finish: true, answer } }));
process.stdout.write(`${lines.join('\n')}\n`);
