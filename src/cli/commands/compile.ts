import type { Command } from 'commander';
import { checkSpec, renderDiagnostics } from '../../language/index.js';
import { writeCompiledSpec } from '../../language/write-compiled-spec.js';
import {
  assertOneStandardInput,
  countSeverities,
  displayName,
  loadSchemaOption,
  plural,
  readInput,
} from '../inputs.js';
import type { CommandRegistration } from '../program.js';

interface CompileOptions {
  readonly states?: string;
  readonly tools?: string;
  readonly output?: string;
}

/**
 * `intentguard compile SPEC --states S.json | --tools T.json [-o OUT]`: check a spec and
 * write it as a compiled spec (FORMATS.md §8), the JSON a page or service enforces with
 * `loadCompiledGuard` / `createGuard` without parsing or checking it again.
 */
export const registerCompile: CommandRegistration = (program: Command, io, state) => {
  program
    .command('compile')
    .description(
      'Check a spec against a schema and write it as a compiled spec (JSON data a page enforces without the parser).',
    )
    .argument('<spec>', 'the spec file (.intent), or - for standard input')
    .option('--states <file>', 'a states schema (JSON, FORMATS.md §1)')
    .option(
      '--tools <file>',
      'tool schemas: ToolEmu toolkits, an MCP tools/list result or OpenAI tools',
    )
    .option('-o, --output <file>', 'write the compiled spec here (default: standard output)')
    .addHelpText(
      'after',
      '\nExit codes: 0 written, 1 the spec has errors (nothing is written), 2 usage or input error.',
    )
    .action(async (specPath: string, options: CompileOptions) => {
      assertOneStandardInput({
        SPEC: specPath,
        '--states': options.states,
        '--tools': options.tools,
      });
      const loaded = await loadSchemaOption(io, options, true);
      if (loaded === undefined) return;
      const source = await readInput(io, specPath, 'spec');
      const fileName = displayName(specPath);
      const result = checkSpec(source, loaded.schema);
      if (!result.ok) {
        const { errors, warnings } = countSeverities(result.diagnostics);
        io.stderr(
          `${renderDiagnostics(result.diagnostics, source, { fileName, color: io.stderrIsTerminal })}\n\n`,
        );
        io.stderr(
          `${fileName}: invalid — ${plural(errors, 'error')}, ${plural(warnings, 'warning')}; nothing was written\n`,
        );
        state.exitCode = 1;
        return;
      }
      const text = `${JSON.stringify(writeCompiledSpec(result.value))}\n`;
      if (options.output === undefined) io.stdout(text);
      else {
        await io.writeFile(options.output, text);
        io.stderr(`${fileName}: compiled to ${options.output}\n`);
      }
      state.exitCode = 0;
    });
};
