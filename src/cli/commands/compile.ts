import type { Command } from 'commander';
import { analyzeComposition, checkSpec, renderDiagnostics } from '../../language/index.js';
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
import { loadCheckedPolicy } from '../spec-loading.js';

interface CompileOptions {
  readonly states?: string;
  readonly tools?: string;
  readonly output?: string;
  readonly policy?: string;
}

/**
 * `intentguard compile SPEC --states S.json | --tools T.json [-o OUT]`: check a spec and
 * write it as a compiled spec (FORMATS.md §8), the JSON a page or service enforces with
 * `loadCompiledGuard` / `createGuard` without parsing or checking it again. With
 * `--policy P`, the spec and the operator's policy composed, as one document whose
 * readers enforce both (LANGUAGE.md §8).
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
    .option(
      '--policy <file>',
      "the operator's policy (.policy), written into the same document and enforced with the spec",
    )
    .option('-o, --output <file>', 'write the compiled spec here (default: standard output)')
    .addHelpText(
      'after',
      '\nExit codes: 0 written, 1 the spec has errors (nothing is written), 2 usage or input error.',
    )
    .action(async (specPath: string, options: CompileOptions) => {
      assertOneStandardInput({
        SPEC: specPath,
        '--policy': options.policy,
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
      // Fail closed: a policy with errors writes nothing (loadCheckedPolicy ends with exit 1).
      const policy =
        options.policy === undefined
          ? undefined
          : await loadCheckedPolicy(io, options.policy, loaded.schema, fileName);
      if (policy !== undefined && options.policy !== undefined) {
        // The pair's own errors (an objective of both files) are refused by every reader.
        const pair = analyzeComposition(source, policy.source, loaded.schema);
        const policyName = displayName(options.policy);
        const errors = [...pair.intent, ...pair.policy].filter(
          (diagnostic) => diagnostic.severity === 'error',
        );
        if (errors.length > 0) {
          const color = io.stderrIsTerminal;
          io.stderr(
            `${[
              renderDiagnostics(pair.intent, source, { fileName, color }),
              renderDiagnostics(pair.policy, policy.source, { fileName: policyName, color }),
            ]
              .filter((part) => part !== '')
              .join('\n')}\n\n`,
          );
          io.stderr(
            `${fileName} with ${policyName}: invalid — ${plural(errors.length, 'error')}; nothing was written\n`,
          );
          state.exitCode = 1;
          return;
        }
      }
      const text = `${JSON.stringify(writeCompiledSpec(result.value, policy?.policy))}\n`;
      if (options.output === undefined) io.stdout(text);
      else {
        await io.writeFile(options.output, text);
        io.stderr(`${fileName}: compiled to ${options.output}\n`);
      }
      state.exitCode = 0;
    });
};
