import { Command, CommanderError } from 'commander';
import { registerAudit } from './commands/audit.js';
import { registerCheck } from './commands/check.js';
import { registerCompile } from './commands/compile.js';
import { registerDemo } from './commands/demo.js';
import { registerEval } from './commands/eval.js';
import { registerExplain } from './commands/explain.js';
import { registerFmt } from './commands/fmt.js';
import { registerFormalize } from './commands/formalize.js';
import { registerMcpProxy } from './commands/mcp-proxy.js';
import { registerMemory } from './commands/memory.js';
import { registerReplay } from './commands/replay.js';
import { registerServe } from './commands/serve.js';
import { CliError, type CliIo } from './io.js';
import { missingPackagesProblem } from './optional-packages.js';
import { version } from './version.js';

/** A command module: adds its subcommand to the program. Actions set `state.exitCode`. */
export type CommandRegistration = (
  program: Command,
  io: CliIo,
  state: { exitCode: number },
) => void;

const registrations: readonly CommandRegistration[] = [
  registerCheck,
  registerCompile,
  registerFmt,
  registerExplain,
  registerReplay,
  registerFormalize,
  registerMemory,
  registerDemo,
  registerEval,
  registerServe,
  registerAudit,
  registerMcpProxy,
];

/**
 * Runs the `intentguard` command line with `argv` (without `node` and the script)
 * and returns the exit code: 0 success, 1 a negative result, 2 a usage or input error.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const state = { exitCode: 0 };
  const program = new Command('intentguard')
    .description(
      'Formal intent specs for LLM agents: check every proposed action against what the user asked.',
    )
    .version(version, '-v, --version')
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .exitOverride();
  for (const registration of registrations) registration(program, io, state);
  // The top-level command that runs (`audit` for `audit verify`): what a missing optional
  // package is reported for.
  let running: string | undefined;
  program.hook('preAction', (_, action) => {
    let command = action;
    while (command.parent && command.parent !== program) command = command.parent;
    running = command.name();
  });
  for (const command of program.commands) {
    command.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return state.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successful exits; everything else commander reports is usage.
      // `commander.help` is also how commander reports a missing or unknown command
      // (`intentguard`, `intentguard help nope`): it prints the help to stderr with a
      // non-zero code, and that is a usage error.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return error.exitCode === 0 ? 0 : 2;
      return 2;
    }
    if (CliError.isInstance(error)) {
      io.stderr(`intentguard: ${error.message}\n`);
      return error.exitCode;
    }
    const missing = await missingPackagesProblem(running, error);
    if (missing !== undefined) {
      io.stderr(`${missing}\n`);
      return 2;
    }
    io.stderr(
      `intentguard: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 2;
  }
}
