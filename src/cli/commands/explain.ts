import type { Command } from 'commander';
import { explainSpec } from '../../engine/index.js';
import { printJson } from '../inputs.js';
import type { CommandRegistration } from '../program.js';
import { sessionOptionsFromFlags } from '../session-options.js';
import { loadCheckedSpec } from '../spec-loading.js';

interface ExplainOptions {
  readonly policy?: string;
  readonly states?: string;
  readonly tools?: string;
  readonly now?: string;
  readonly timeZone?: string;
  readonly json?: boolean;
}

/**
 * `intentguard explain SPEC --states S.json`: the plan in plain language. A compiled
 * document explains as its source texts do; a composition's policy part as `--policy`.
 */
export const registerExplain: CommandRegistration = (program: Command, io, state) => {
  program
    .command('explain')
    .description('Explain a spec in plain language: its steps, the ways to finish, and its guards.')
    .argument(
      '<spec>',
      'the spec file or a compiled document (intentguard compile), or - for standard input',
    )
    .option('--states <file>', 'a states schema (JSON)')
    .option('--tools <file>', 'tool schemas (ToolEmu, MCP tools/list, OpenAI tools)')
    .option('--now <iso>', 'resolve today/now against this wall-clock time, e.g. 2025-03-14T12:00')
    .option('--time-zone <zone>', 'IANA time zone for --now values with an offset', 'UTC')
    .option('--policy <file>', "the operator's policy (.policy): explained after the spec")
    .option('--json', 'print the explanation as JSON')
    .addHelpText(
      'after',
      '\nExit codes: 0 explained, 1 the spec has errors, 2 usage or input error.',
    )
    .action(async (specPath: string, options: ExplainOptions) => {
      // Validated like replay's, so that a bad --now is a usage error, not a crash.
      const { timeZone } = sessionOptionsFromFlags(options);
      const { spec, policy } = await loadCheckedSpec(io, specPath, options, true);
      // Without --now, `today` is the real today (explainSpec alone would pick a fixed date).
      const now = options.now ?? new Date();
      const explanation = explainSpec(spec, { now, timeZone });
      const policyExplanation = policy ? explainSpec(policy, { now, timeZone }) : undefined;
      if (options.json)
        printJson(
          io,
          policyExplanation ? { ...explanation, policy: policyExplanation } : explanation,
        );
      else
        io.stdout(
          `${explanation.text}\n${policyExplanation ? `\nThe operator's policy (every call must also pass it):\n${policyExplanation.text}\n` : ''}`,
        );
      state.exitCode = 0;
    });
};
