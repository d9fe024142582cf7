import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec, type Spec } from '../src/language/index.js';
import { adapterBench } from './adapters.js';
import { frameConditionsBench } from './frame-conditions.js';
import {
  allowedProposal,
  generateSpec,
  groupSize,
  preparingObservation,
  refusedProposal,
  rulesPerAction,
  workingRules,
  workingSet,
} from './generate.js';
import { guardBench } from './guard.js';
import { languageV2Bench } from './language-v2.js';
import { languageV3Bench } from './language-v3.js';
import { mapsBench } from './maps.js';
import {
  collectGarbage,
  formatMicros,
  percentile,
  table,
  timeCall,
  timerOverhead,
} from './measure.js';
import { policyBench } from './policy.js';
import { prologBench } from './prolog.js';
import { recordsBench } from './records.js';
import { securityBench } from './security.js';
import { serversBench } from './servers.js';
import { storesBench } from './stores.js';
import { universalBench } from './universal.js';
import { v2RulesBench } from './v2-rules.js';

/**
 * `npm run bench`: decision latency per proposal and memory per session for specs of
 * 10 to 10,000 rules, and parse+check time. Targets: allowed p50 ≤ 1 µs, refusal
 * with feedback p50 ≤ 5 µs, at every size; then the security rows (bench/security.ts).
 */
const sizes = [10, 100, 1_000, 10_000];
const proposalsPerKind = Number(process.env.BENCH_PROPOSALS ?? 100_000);
const now = '2025-03-14T12:00';
const sessionLength = 1_000;
/** Rounds per cell; the table shows the round with the lowest median (the least disturbed). */
const rounds = 3;

/** A session that has observed the screens its proposals need (and only those, as an agent would). */
function preparedSession(spec: Spec, rules: number): Session {
  const session = createSession(spec, { now, escalateAfter: 0 });
  const groups = new Set(workingRules(rules).map((rule) => Math.floor(rule / groupSize)));
  for (const group of groups) session.observe(preparingObservation(group));
  return session;
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly perSecond: number;
}

function measureRound(
  spec: Spec,
  rules: number,
  make: (rule: number) => unknown,
  expected: string,
): Latency {
  const overhead = timerOverhead();
  // The same working set at every size — ten rules spread over the spec — so that the
  // table shows what the size of the spec costs, not what a larger working set costs.
  const proposals = workingRules(rules).map(make);
  let session = preparedSession(spec, rules);
  // Warm up the JIT on the same path for half a second, checking the decisions.
  const warmUntil = performance.now() + 500;
  for (let index = 0; performance.now() < warmUntil; index++) {
    if (index % 50_000 === 0) session = preparedSession(spec, rules);
    const verdict = session.propose(proposals[index % proposals.length]);
    if (verdict.decision !== expected) {
      throw new Error(`bench: expected ${expected}, got ${verdict.decision}: ${verdict.feedback}`);
    }
  }
  session = preparedSession(spec, rules);
  const samples: number[] = new Array(proposalsPerKind);
  const started = process.hrtime.bigint();
  for (let index = 0; index < proposalsPerKind; index++) {
    // A fresh session every thousand proposals: agent runs are tens to hundreds of steps.
    if (index % sessionLength === 0) session = preparedSession(spec, rules);
    const proposal = proposals[index % proposals.length];
    samples[index] = Math.max(0, timeCall(() => session.propose(proposal)) - overhead);
  }
  const elapsed = Number(process.hrtime.bigint() - started);
  samples.sort((a, b) => a - b);
  return {
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    perSecond: proposalsPerKind / (elapsed / 1e9),
  };
}

function measureProposals(
  spec: Spec,
  rules: number,
  make: (rule: number) => unknown,
  expected: string,
): Latency {
  let best: Latency | undefined;
  for (let round = 0; round < rounds; round++) {
    collectGarbage();
    const latency = measureRound(spec, rules, make, expected);
    if (!best || latency.p50 < best.p50) best = latency;
  }
  return best!;
}

function measureSessionMemory(spec: Spec, groups: number): number {
  const count = 2_000;
  const sessions: Session[] = [];
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let index = 0; index < count; index++) {
    const session = createSession(spec, { now });
    // A realistic session: a few observations and proposals.
    const group = index % groups;
    session.observe(preparingObservation(group));
    session.propose(allowedProposal(group * groupSize));
    session.propose(refusedProposal(group * groupSize));
    sessions.push(session);
  }
  collectGarbage();
  const after = process.memoryUsage().heapUsed;
  if (sessions.length !== count) throw new Error('unreachable');
  return (after - before) / count;
}

function measureCheck(rules: number): { parseCheck: number; text: number } {
  const generated = generateSpec(rules);
  const runs: number[] = [];
  for (let run = 0; run < 7; run++) {
    const start = process.hrtime.bigint();
    const result = checkSpec(generated.text, generated.schema);
    runs.push(Number(process.hrtime.bigint() - start));
    if (!result.ok)
      throw new Error(`bench spec of ${rules} rules has errors: ${result.diagnostics[0]?.message}`);
  }
  runs.sort((a, b) => a - b);
  return { parseCheck: percentile(runs, 0.5), text: generated.text.length };
}

/**
 * `BENCH_ONLY=decisions,prolog` runs only those parts (decisions, check, security, v2-rules,
 * guard, bindings, records, v3-terms, v3-scopes, v3-maps, frame, policy, prolog, adapters, servers, stores); all of them
 * by default.
 */
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim());
const runs = (part: string): boolean => only === undefined || only.includes(part);

async function main(): Promise<void> {
  if (!(globalThis as { gc?: unknown }).gc)
    console.error('note: run with --expose-gc for accurate memory figures');
  if (runs('decisions')) decisionsBench();
  if (runs('check')) checkBench();
  if (runs('security')) securityBench(Number(process.env.BENCH_REFUSALS ?? 1_000_000));
  if (runs('v2-rules')) v2RulesBench(proposalsPerKind);
  if (runs('guard')) guardBench(proposalsPerKind);
  if (runs('bindings')) languageV2Bench(proposalsPerKind);
  if (runs('records')) recordsBench(proposalsPerKind);
  if (runs('v3-terms')) languageV3Bench(proposalsPerKind);
  if (runs('v3-scopes')) universalBench(proposalsPerKind);
  if (runs('v3-maps')) mapsBench(proposalsPerKind);
  if (runs('frame')) frameConditionsBench(proposalsPerKind);
  if (runs('policy')) policyBench(Math.min(proposalsPerKind, 20_000));
  if (runs('prolog')) prologBench(sizes, Number(process.env.BENCH_STEPS ?? 100_000));
  if (runs('adapters')) await adapterBench();
  if (runs('servers')) await serversBench();
  if (runs('stores')) await storesBench();
}

function decisionsBench(): void {
  const rows: string[][] = [];
  for (const rules of sizes) {
    const generated = generateSpec(rules);
    const checked = checkSpec(generated.text, generated.schema);
    if (!checked.ok)
      throw new Error(
        `bench spec of ${rules} rules has errors: ${checked.diagnostics[0]?.message}`,
      );
    const allowed = measureProposals(checked.value, rules, allowedProposal, 'allow');
    const refused = measureProposals(checked.value, rules, refusedProposal, 'revise');
    const memory = measureSessionMemory(checked.value, generated.groups);
    rows.push([
      rules.toLocaleString('en-US'),
      formatMicros(allowed.p50),
      formatMicros(allowed.p99),
      Math.round(allowed.perSecond).toLocaleString('en-US'),
      formatMicros(refused.p50),
      formatMicros(refused.p99),
      Math.round(refused.perSecond).toLocaleString('en-US'),
      (memory / 1024).toFixed(1),
    ]);
  }
  console.log(
    `Decisions per proposal (${proposalsPerKind.toLocaleString('en-US')} proposals per cell, best of ${rounds} rounds, over ${workingSet} rules spread across the spec, sessions of ${sessionLength.toLocaleString('en-US')} proposals; each proposal touches ${rulesPerAction} rules; µs, timer overhead subtracted)`,
  );
  console.log(
    table(
      [
        'rules',
        'allow p50',
        'allow p99',
        'allow/s',
        'refuse p50',
        'refuse p99',
        'refuse/s',
        'KiB/session',
      ],
      rows,
    ),
  );
  console.log('\nTargets: allow p50 ≤ 1 µs, refusal with feedback p50 ≤ 5 µs, at every size.');
}

function checkBench(): void {
  const rows = sizes.map((rules) => {
    const check = measureCheck(rules);
    return [
      rules.toLocaleString('en-US'),
      (check.text / 1024).toFixed(0),
      (check.parseCheck / 1e6).toFixed(1),
    ];
  });
  console.log('\nParse + check (median of 7 runs)');
  console.log(table(['rules', 'spec KiB', 'ms'], rows));
}

await main();
