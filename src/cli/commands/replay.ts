import type { Command } from 'commander';
import {
  createSession,
  describeExpectation,
  expectationMismatch,
  type ObservationResult,
  parseTrace,
  type TraceEvent,
  type TraceProblem,
  type Verdict,
} from '../../engine/index.js';
import { replayTrace, type SessionStep, sessionTarget } from '../../engine/replay.js';
import { assertOneStandardInput, displayName, readInput } from '../inputs.js';
import { CliError, type CliIo } from '../io.js';
import type { CommandRegistration } from '../program.js';
import { sessionOptionsFromFlags } from '../session-options.js';
import { loadCheckedSpec } from '../spec-loading.js';

interface ReplayOptions {
  readonly policy?: string;
  readonly states?: string;
  readonly tools?: string;
  readonly trace: string;
  readonly now?: string;
  readonly timeZone?: string;
  readonly check?: boolean;
  readonly escalateAfter?: string;
  readonly unplanned?: string;
}

/** `intentguard replay SPEC --states S --trace T.jsonl [--now ISO] [--check]`. */
export const registerReplay: CommandRegistration = (program: Command, io, state) => {
  program
    .command('replay')
    .description(
      'Run a trace of proposals, observations and approvals through a session; print one JSON line per event.',
    )
    .argument('<spec>', 'the spec file, or - for standard input')
    .option(
      '--policy <file>',
      "the operator's policy (.policy), judging every proposal with the spec",
    )
    .option('--states <file>', 'a states schema (JSON)')
    .option('--tools <file>', 'tool schemas (ToolEmu, MCP tools/list, OpenAI tools)')
    .requiredOption('--trace <file>', 'the trace (.jsonl), or - for standard input')
    .option('--now <iso>', 'fix the session clock, e.g. 2025-03-14T12:00 (wall-clock time)')
    .option('--time-zone <zone>', 'IANA time zone of the session', 'UTC')
    .option(
      '--check',
      "compare verdicts with the trace's expect fields; report mismatches on stderr",
    )
    .option(
      '--escalate-after <n>',
      'identical hard refusals before a person is asked (default 3; 0 never)',
    )
    .option(
      '--unplanned <mode>',
      'what an unplanned critical action gets: revise (default) or confirm',
    )
    .addHelpText(
      'after',
      '\nExit codes: 0 replayed (all expectations met with --check), 1 the spec has errors or expectations failed, 2 usage or input error.',
    )
    .action(async (specPath: string, options: ReplayOptions) => {
      assertOneStandardInput({
        SPEC: specPath,
        '--states': options.states,
        '--tools': options.tools,
        '--trace': options.trace,
      });
      const sessionOptions = sessionOptionsFromFlags(options);
      const { spec, policy } = await loadCheckedSpec(io, specPath, options, true);
      const traceName = displayName(options.trace);
      const trace = parseTrace(await readInput(io, options.trace, 'trace'));
      if (!trace.ok) throw traceError(traceName, trace.diagnostics);
      const { events, lines } = trace.value;
      // Undo records cost memory per commit: kept only when the trace has failed calls.
      const rollback = events.some((event) => 'fail' in event);
      const session = createSession(spec, {
        ...sessionOptions,
        ...(rollback ? { rollback } : {}),
        ...(policy ? { policy } : {}),
      });
      const report = new Report(session, io, traceName, options.check === true);
      replayTrace<SessionStep>(sessionTarget(session), events, (step, event, index) => {
        report.step(step, event, lines[index]!);
      });
      const { passed, failed } = report;
      if (options.check) io.stderr(`${passed} passed, ${failed} failed\n`);
      state.exitCode = failed > 0 ? 1 : 0;
    });
};

/** All of a trace's problems, one line each, as one input error (exit 2). */
function traceError(traceName: string, problems: readonly TraceProblem[]): CliError {
  const located = problems.map(
    (problem) =>
      `${traceName}:${problem.line}${problem.column === undefined ? '' : `:${problem.column}`}: ${problem.message}`,
  );
  return new CliError(located.join('\nintentguard: '), 2);
}

/**
 * Prints one JSON line per replayed event and, with `--check`, counts what matches the
 * trace's expectations (the replay itself, with call ids naming confirmations and
 * commits, is the engine's `replayTrace`).
 */
class Report {
  passed = 0;
  failed = 0;

  constructor(
    readonly session: { status(): unknown },
    readonly io: CliIo,
    readonly traceName: string,
    readonly check: boolean,
  ) {}

  step(step: SessionStep, event: TraceEvent, line: number): void {
    if (step.kind === 'propose' && 'propose' in event) this.#propose(step.verdict, event, line);
    else if (step.kind === 'observe' && 'observe' in event) this.#observe(step.result, event, line);
    else if (step.kind === 'resolve' && 'resolve' in event) this.#resolve(step, event, line);
    else if (step.kind === 'fail') this.#fail(step, line);
  }

  #print(value: unknown): void {
    this.io.stdout(`${JSON.stringify(value)}\n`);
  }

  #failure(line: number, message: string): void {
    this.failed++;
    this.io.stderr(`${this.traceName}:${line}: ${message}\n`);
  }

  #propose(verdict: Verdict, event: Extract<TraceEvent, { propose: unknown }>, line: number): void {
    this.#print(verdict);
    if (!this.check || event.expect === undefined) return;
    const problems = expectationMismatch(verdict, event.expect);
    if (problems.length === 0) this.passed++;
    else
      this.#failure(
        line,
        `expected ${describeExpectation(event.expect)}: got ${problems.join(', ')}`,
      );
  }

  #observe(
    result: ObservationResult,
    event: Extract<TraceEvent, { observe: unknown }>,
    line: number,
  ): void {
    this.#print(result);
    if (!this.check) return;
    // A refused observation means the replayed state is not the trace's: it fails the
    // check unless the line says it expects the refusal.
    const expected = event.expect?.ok ?? true;
    if (result.ok === expected) {
      if (event.expect !== undefined) this.passed++;
    } else {
      this.#failure(
        line,
        result.ok
          ? 'expected the observation to be refused: it was applied'
          : `the observation was refused: ${result.problems.map((problem) => problem.message).join('; ')}`,
      );
    }
  }

  #resolve(
    step: Extract<SessionStep, { kind: 'resolve' }>,
    event: Extract<TraceEvent, { resolve: unknown }>,
    line: number,
  ): void {
    const { result, latest } = step;
    this.#print(result);
    if (!this.check) return;
    const expected = event.expect?.committed;
    // A resolve that answered a confirmation either committed, or was refused with the
    // verdict of the state now; anything else (nothing waiting, a verifier that failed)
    // never meets an expectation.
    const answered = result.ok || result.verdict !== undefined;
    if (expected === undefined ? !result.ok : !answered || result.committed !== expected)
      this.#failure(
        line,
        // The session answers the confirmation of the call the line names, never another.
        !answered && event.id !== undefined && latest !== undefined && event.id !== latest
          ? `the resolve names call "${event.id}", but the confirmation waiting is call "${latest}"'s`
          : expected === false && result.committed
            ? 'expected the approval not to commit: it was committed'
            : expected === true && answered
              ? `expected the approval to commit: ${result.message}`
              : result.message,
      );
    else if (expected !== undefined) this.passed++;
  }

  #fail(step: Extract<SessionStep, { kind: 'fail' }>, line: number): void {
    const { id, committed, rolledBack } = step;
    this.#print({ id, rolledBack, status: this.session.status() });
    if (this.check && committed && !rolledBack) {
      this.#failure(line, `the commit of call "${id}" could not be rolled back`);
    }
  }
}
