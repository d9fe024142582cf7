import type { Command } from 'commander';
import { analyzeSpec, renderDiagnostics } from '../../language/index.js';
import {
  assertOneStandardInput,
  countSeverities,
  diagnosticsJson,
  displayName,
  loadSchemaOption,
  plural,
  printJson,
  readInput,
} from '../inputs.js';
import type { CommandRegistration } from '../program.js';

interface CheckOptions {
  readonly states?: string;
  readonly tools?: string;
  readonly json?: boolean;
}

/** `intentguard check SPEC --states S.json | --tools T.json`: parse and type-check. */
export const registerCheck: CommandRegistration = (program: Command, io, state) => {
  program
    .command('check')
    .description(
      'Parse and type-check a spec against a schema; print diagnostics with source excerpts.',
    )
    .argument('<spec>', 'the spec file (.intent), or - for standard input')
    .option('--states <file>', 'a states schema (JSON, FORMATS.md §1)')
    .option(
      '--tools <file>',
      'tool schemas: ToolEmu toolkits, an MCP tools/list result or OpenAI tools',
    )
    .option('--json', 'print diagnostics as JSON')
    .addHelpText(
      'after',
      '\nExit codes: 0 no errors, 1 the spec has errors, 2 usage or input error.',
    )
    .action(async (specPath: string, options: CheckOptions) => {
      assertOneStandardInput({
        SPEC: specPath,
        '--states': options.states,
        '--tools': options.tools,
      });
      const loaded = await loadSchemaOption(io, options, true);
      const source = await readInput(io, specPath, 'spec');
      const fileName = displayName(specPath);
      const schemaName = loaded ? displayName(loaded.path) : undefined;
      // The schema's own warnings (types approximated as text) are part of what the
      // spec is checked against, so they are reported and counted with the spec's.
      const schemaWarnings = loaded?.warnings ?? [];
      const diagnostics = analyzeSpec(source, loaded?.schema);
      const { errors, warnings } = countSeverities([...schemaWarnings, ...diagnostics]);
      if (options.json) {
        printJson(io, {
          file: fileName,
          schema: schemaName ?? null,
          ok: errors === 0,
          errors,
          warnings,
          diagnostics: [
            ...diagnosticsJson(schemaWarnings, schemaName ?? fileName),
            ...diagnosticsJson(diagnostics, fileName),
          ],
        });
      } else {
        if (schemaWarnings.length > 0) {
          io.stdout(
            `${renderDiagnostics(schemaWarnings, undefined, { fileName: schemaName ?? fileName, color: io.stdoutIsTerminal })}\n\n`,
          );
        }
        if (diagnostics.length > 0) {
          io.stdout(
            `${renderDiagnostics(diagnostics, source, { fileName, color: io.stdoutIsTerminal })}\n\n`,
          );
        }
        io.stdout(
          `${fileName}: ${errors === 0 ? 'ok' : 'invalid'} — ${plural(errors, 'error')}, ${plural(warnings, 'warning')}\n`,
        );
      }
      state.exitCode = errors === 0 ? 0 : 1;
    });
};
