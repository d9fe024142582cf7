import type { Command } from 'commander';
import { createSession } from '../../engine/index.js';
import { assertOneStandardInput, displayName, readInput } from '../inputs.js';
import type { CommandRegistration } from '../program.js';
import { sessionOptionsFromFlags } from '../session-options.js';
import { loadCheckedSpec } from '../spec-loading.js';
import { describeExpectation, expectationMismatch, parseTrace } from '../trace.js';

interface ReplayOptions {
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
      const { spec } = await loadCheckedSpec(io, specPath, options);
      const traceName = displayName(options.trace);
      const events = parseTrace(await readInput(io, options.trace, 'trace'), traceName);
      const session = createSession(spec, sessionOptions);
      let passed = 0;
      let failed = 0;
      for (const event of events) {
        if (event.kind === 'propose') {
          const verdict = session.propose(event.proposal);
          io.stdout(`${JSON.stringify(verdict)}\n`);
          if (options.check && event.expect) {
            const problems = expectationMismatch(verdict, event.expect);
            if (problems.length === 0) passed++;
            else {
              failed++;
              io.stderr(
                `${traceName}:${event.line}: expected ${describeExpectation(event.expect)}: got ${problems.join(', ')}\n`,
              );
            }
          }
        } else if (event.kind === 'observe') {
          const result = session.observe(event.observation);
          io.stdout(`${JSON.stringify(result)}\n`);
          // A refused observation means the replayed state is not the trace's: it fails
          // the check unless the line says it expects the refusal.
          if (options.check) {
            const expected = event.expectOk ?? true;
            if (result.ok === expected) {
              if (event.expectOk !== undefined) passed++;
            } else {
              failed++;
              io.stderr(
                `${traceName}:${event.line}: ${
                  result.ok
                    ? 'expected the observation to be refused: it was applied'
                    : `the observation was refused: ${result.problems.map((problem) => problem.message).join('; ')}`
                }\n`,
              );
            }
          }
        } else {
          const result = session.resolve(event.approved);
          io.stdout(`${JSON.stringify(result)}\n`);
          if (options.check && !result.ok) {
            failed++;
            io.stderr(`${traceName}:${event.line}: ${result.message}\n`);
          }
        }
      }
      if (options.check) io.stderr(`${passed} passed, ${failed} failed\n`);
      state.exitCode = failed > 0 ? 1 : 0;
    });
};
