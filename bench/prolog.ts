import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSession, type Session } from '../src/engine/index.js';
import { checkSpec } from '../src/language/index.js';
import {
  allowedProposal,
  generateSpec,
  groupSize,
  preparingObservation,
  rulesPerAction,
  workingRules,
  workingSet,
} from './generate.js';
import { table } from './measure.js';
import { refineActProgram } from './refineact-verifier.js';

/**
 * The side-by-side with SWI-Prolog: the bench's chain of rules (generate.ts) in two Prolog
 * programs, the same ten allowed steps checked and counted in a loop in all three, in one
 * run. Issue #3's reference is the first: a RefineAct-style step check in SWI-Prolog,
 * in-process, with first-argument indexing (refineact-verifier.ts: the refiner's facts and
 * the verifier of the RefineAct paper, §4.3–4.4). The second is the least a clause program
 * can do: each rule as one clause, the step's rule found by indexing, its goal counted.
 * Prolog receives its steps already as terms; the engine reads each proposal from its
 * JSON-shaped object, decides, commits and renders the verdict. Needs `swipl` on the PATH
 * (Debian: `apt install swi-prolog-nox`) or in `SWIPL`.
 */
const now = '2025-03-14T12:00';
const rounds = 3;

/**
 * The timing of a program that defines `steps/1` (a list of `p(A, X, T)`) and `step/3`:
 * failure-driven loops over the same steps, one checking them and one doing nothing but
 * walking them, whose time is subtracted; the best of the rounds, in µs per step. `main`
 * first checks that every step passes, and runs `afterTiming` (goals that must succeed)
 * before it prints.
 */
function measuredLoop(steps: number, afterTiming = ''): string[] {
  return [
    'none(_, _, _).',
    `timed(Ps, Goal, Us) :- statistics(cputime, T0), ( between(1, ${steps}, _), member(p(A, X, T), Ps), call(Goal, A, X, T), fail ; true ), statistics(cputime, T1), Us is (T1 - T0) * 1e6 / (${steps} * ${workingSet}).`,
    `round(Us) :- steps(Ps), timed(Ps, step, S), timed(Ps, none, E), Us is S - E.`,
    `main :- steps(Ps), forall(member(p(A, X, T), Ps), (step(A, X, T) -> true ; (format("a step is refused~n"), halt(1)))), findall(U, (between(1, ${rounds}, _), round(U)), Us), min_list(Us, Best), ${afterTiming}format("~6f~n", [Best]).`,
  ];
}

/**
 * The minimal clause program: `Step<r>: Screen<g>(level >= 1, mode in [on, auto], when < 19:00) & Act<a>(x = r, target = "t<g>") -> Goal<r>`
 * as `fires(Act<a>, r, t<g>, Goal<r>)` reading `screen/4`; a step is the first clause that
 * fires, its goal counted.
 */
function minimalProgram(rules: number, steps: number): string {
  const lines = [':- dynamic screen/4.', ':- discontiguous fires/4.'];
  const groups = new Set(workingRules(rules).map((rule) => Math.floor(rule / groupSize)));
  // The observed screens: level 5, mode on, 18:00 (as preparingObservation).
  for (const group of groups) lines.push(`screen(${group}, 5, on, ${18 * 3600}).`);
  for (let rule = 0; rule < rules; rule++) {
    const group = Math.floor(rule / groupSize);
    const action = `'Act${Math.floor(rule / rulesPerAction)}'`;
    lines.push(
      `fires(${action}, ${rule}, 't${group}', 'Goal${rule}') :- screen(${group}, L, M, W), L >= 1, memberchk(M, [on, auto]), W < ${19 * 3600}.`,
    );
  }
  // A step: the rule that fires, committed by counting its goal (as the engine's achieved).
  lines.push('step(A, X, T) :- fires(A, X, T, Goal), !, flag(Goal, N, N + 1).');
  lines.push('steps(Ps) :- Ps = [');
  lines.push(
    workingRules(rules)
      .map(
        (rule) =>
          `  p('Act${Math.floor(rule / rulesPerAction)}', ${rule}, 't${Math.floor(rule / groupSize)}')`,
      )
      .join(',\n'),
  );
  lines.push('].');
  lines.push(...measuredLoop(steps));
  return `${lines.join('\n')}\n`;
}

/** SWI-Prolog's µs per step of `program`; a text saying why when it cannot be run or fails. */
function prologMicros(program: string): number | string {
  const folder = mkdtempSync(join(tmpdir(), 'intentguard-prolog-'));
  try {
    const file = join(folder, 'chain.pl');
    writeFileSync(file, program);
    const run = spawnSync(process.env.SWIPL ?? 'swipl', ['-q', '-g', 'main', '-t', 'halt', file], {
      encoding: 'utf8',
      timeout: 600_000,
    });
    if (run.error) return `not run (${run.error.message}; apt install swi-prolog-nox)`;
    const micros = Number.parseFloat(run.stdout.trim());
    if (run.status !== 0 || !Number.isFinite(micros))
      return `failed: ${(run.stderr || run.stdout).trim().slice(0, 200)}`;
    return micros;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The engine's µs of CPU per allowed step in a loop, sessions of 1,000 steps (creation
 * not timed); best of rounds. CPU time on both sides: the machine may be shared.
 */
function engineMicros(rules: number, steps: number): number {
  const generated = generateSpec(rules);
  const checked = checkSpec(generated.text, generated.schema);
  if (!checked.ok)
    throw new Error(`bench spec of ${rules} rules: ${checked.diagnostics[0]?.message}`);
  const spec = checked.value;
  const proposals = workingRules(rules).map(allowedProposal);
  const groups = new Set(workingRules(rules).map((rule) => Math.floor(rule / groupSize)));
  const prepared = (): Session => {
    const session = createSession(spec, { now, escalateAfter: 0 });
    for (const group of groups) session.observe(preparingObservation(group));
    return session;
  };
  const total = steps * workingSet;
  const block = 1_000;
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds + 1; round++) {
    let elapsed = 0;
    for (let done = 0; done < total; done += block) {
      const session = prepared();
      const started = process.cpuUsage();
      for (let index = 0; index < block; index++) {
        if (session.propose(proposals[index % workingSet]).decision !== 'allow')
          throw new Error('bench: an allowed step was refused');
      }
      const used = process.cpuUsage(started);
      elapsed += used.user + used.system;
    }
    // The first round warms the JIT up.
    if (round > 0) best = Math.min(best, elapsed / total);
  }
  return best;
}

/** The RefineAct-style verifier's program, with its refusal checks run after timing. */
function refineActMeasured(rules: number, steps: number): string {
  return `${refineActProgram(rules, workingRules(rules))}${measuredLoop(steps, 'refusals_hold, ').join('\n')}\n`;
}

export function prologBench(sizes: readonly number[], steps: number): void {
  const micros = (prolog: number | string): string =>
    typeof prolog === 'number' ? prolog.toFixed(2) : prolog;
  const faster = (prolog: number | string, engine: number): string =>
    typeof prolog === 'number' ? `${(prolog / engine).toFixed(1)}×` : '–';
  const rows = sizes.map((rules) => {
    const engine = engineMicros(rules, steps);
    const refineAct = prologMicros(refineActMeasured(rules, steps));
    const minimal = prologMicros(minimalProgram(rules, steps));
    return [
      rules.toLocaleString('en-US'),
      engine.toFixed(2),
      micros(refineAct),
      faster(refineAct, engine),
      micros(minimal),
      faster(minimal, engine),
    ];
  });
  console.log(
    `\nSide by side with SWI-Prolog: the same chain, the same ${workingSet} allowed steps checked and counted in a loop (${(steps * workingSet).toLocaleString('en-US')} steps, best of ${rounds} rounds; mean µs of CPU time per step). Two Prolog programs: the RefineAct-style step check (bench/refineact-verifier.ts: refined steps, risky-action patterns, chain resolution, state tracking) is issue #3's reference, against which the target is set (≥ 5× faster); the minimal clause check (one clause per rule, the first that fires, its goal counted) is the least a Prolog program can do. "faster" is Prolog's µs over intentguard's.`,
  );
  console.log(
    table(
      ['rules', 'intentguard µs', 'RefineAct-style µs', 'faster', 'minimal clauses µs', 'faster'],
      rows,
    ),
  );
}

if (process.argv[1]?.endsWith('prolog.js'))
  prologBench([10, 100, 1_000, 10_000], Number(process.env.BENCH_STEPS ?? 20_000));
