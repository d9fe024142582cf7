import type { Command } from 'commander';
import { parseWithDiagnostics, print, renderDiagnostics } from '../../language/index.js';
import { countSeverities, diagnosticsJson, displayName, printJson, readInput } from '../inputs.js';
import { CliError } from '../io.js';
import type { CommandRegistration } from '../program.js';

interface FmtOptions {
  readonly write?: boolean;
  readonly check?: boolean;
  readonly json?: boolean;
}

/** `intentguard fmt SPEC [--write]`: the canonical ASCII form. */
export const registerFmt: CommandRegistration = (program: Command, io, state) => {
  program
    .command('fmt')
    .description('Print the canonical form of a spec (ASCII operators, one rule per line).')
    .argument('<spec>', 'the spec file, or - for standard input')
    .option('--write', 'rewrite the file in place')
    .option('--check', 'exit 1 if the file is not in canonical form; print nothing else')
    .option('--json', 'print {"file", "formatted", "changed"} as JSON')
    .addHelpText(
      'after',
      '\nExit codes: 0 formatted, 1 syntax errors (or not canonical with --check), 2 usage or input error.',
    )
    .action(async (specPath: string, options: FmtOptions) => {
      if (options.write && specPath === '-')
        throw new CliError('--write needs a file, not standard input', 2);
      const source = await readInput(io, specPath, 'spec');
      const fileName = displayName(specPath);
      const parsed = parseWithDiagnostics(source);
      const { errors } = countSeverities(parsed.diagnostics);
      if (errors > 0) {
        if (options.json) {
          printJson(io, {
            file: fileName,
            ok: false,
            diagnostics: diagnosticsJson(parsed.diagnostics, fileName),
          });
        } else {
          io.stderr(
            `${renderDiagnostics(parsed.diagnostics, source, { fileName, color: io.stderrIsTerminal })}\n`,
          );
          io.stderr(`${fileName}: not formatted — fix the syntax errors first\n`);
        }
        state.exitCode = 1;
        return;
      }
      const formatted = print(parsed.value.ast);
      const changed = formatted !== source;
      if (options.json) printJson(io, { file: fileName, ok: true, changed, formatted });
      else if (options.check) {
        if (changed) io.stderr(`${fileName}: not in canonical form\n`);
      } else if (options.write) {
        if (changed) await io.writeFile(specPath, formatted);
        io.stderr(`${fileName}: ${changed ? 'formatted' : 'already canonical'}\n`);
      } else io.stdout(formatted);
      state.exitCode = options.check && changed ? 1 : 0;
    });
};
