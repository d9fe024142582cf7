import { basename } from 'node:path';
import {
  type Diagnostic,
  diagnosticToJson,
  renderDiagnostics,
  type Schema,
} from '../language/index.js';
import { loadStateSchema, loadToolSchema, mergeSchemas } from '../schema/index.js';
import { CliError, type CliIo } from './io.js';
import { InvalidUtf8Error } from './utf8.js';

/**
 * Reads a file argument; `-` is standard input. Missing files and bytes that are not
 * UTF-8 are input errors (exit 2); the latter name the line, column and byte offset.
 */
export async function readInput(io: CliIo, path: string, what: string): Promise<string> {
  try {
    return await (path === '-' ? io.readStdin() : io.readFile(path));
  } catch (error) {
    if (InvalidUtf8Error.isInstance(error)) {
      throw new CliError(
        `${displayName(path)}:${error.line}:${error.column}: the ${what} is ${error.message}; save it as UTF-8`,
        2,
      );
    }
    if (path === '-') throw error;
    const code = (error as { code?: string }).code;
    const reason =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : error instanceof Error
            ? error.message
            : String(error);
    throw new CliError(`cannot read ${what} '${path}': ${reason}`, 2);
  }
}

/**
 * Standard input can be read once: a second `-` would silently read nothing, so
 * naming it for two inputs is a usage error. `inputs` maps how each input is
 * named on the command line (`SPEC`, `--trace`) to its path.
 */
export function assertOneStandardInput(inputs: Readonly<Record<string, string | undefined>>): void {
  const fromStdin = Object.entries(inputs)
    .filter(([, path]) => path === '-')
    .map(([name]) => name);
  if (fromStdin.length > 1) {
    throw new CliError(
      `only one input can be read from standard input ('-'), but ${fromStdin.join(' and ')} both are`,
      2,
    );
  }
}

export function displayName(path: string): string {
  return path === '-' ? '<stdin>' : path;
}

export interface SchemaOptions {
  readonly states?: string;
  readonly tools?: string;
}

export interface LoadedSchema {
  readonly schema: Schema;
  readonly path: string;
  readonly warnings: readonly Diagnostic[];
}

/**
 * Loads the schema named by `--states` or `--tools`. A schema that does not load is
 * an input error: its diagnostics are printed and the command exits with 2.
 */
export async function loadSchemaOption(
  io: CliIo,
  options: SchemaOptions,
  required: boolean,
): Promise<LoadedSchema | undefined> {
  if (options.states !== undefined && options.tools !== undefined)
    return loadToolsAndStates(io, options.tools, options.states);
  const path = options.states ?? options.tools;
  if (path === undefined) {
    if (required) throw new CliError('a schema is required: give --states FILE or --tools FILE', 2);
    return undefined;
  }
  const text = await readInput(
    io,
    path,
    options.states !== undefined ? 'states file' : 'tools file',
  );
  const id = path === '-' ? 'stdin' : basename(path).replace(/\.json$/i, '');
  const result =
    options.states !== undefined ? loadStateSchema(text, { id }) : loadToolSchema(text, { id });
  if (!result.ok) {
    io.stderr(
      `${renderDiagnostics(result.diagnostics, undefined, { fileName: displayName(path), color: io.stderrIsTerminal })}\n`,
    );
    throw new CliError(`the schema '${displayName(path)}' could not be loaded`, 2);
  }
  return {
    schema: result.value,
    path,
    warnings: result.diagnostics.filter((diagnostic) => diagnostic.severity === 'warning'),
  };
}

/**
 * `--tools T --states S` (FORMATS.md §1): one schema of the tools' actions and results and
 * the host's states; a name both declare is an input error.
 */
async function loadToolsAndStates(
  io: CliIo,
  toolsPath: string,
  statesPath: string,
): Promise<LoadedSchema> {
  const tools = await loadSchemaOption(io, { tools: toolsPath }, true);
  const states = await loadSchemaOption(io, { states: statesPath }, true);
  const merged = mergeSchemas(tools!.schema, states!.schema);
  if (!merged.ok) {
    io.stderr(
      `${renderDiagnostics(merged.diagnostics, undefined, { fileName: displayName(statesPath), color: io.stderrIsTerminal })}\n`,
    );
    throw new CliError(
      `the tools '${displayName(toolsPath)}' and the states '${displayName(statesPath)}' declare the same name`,
      2,
    );
  }
  return {
    schema: merged.value,
    path: toolsPath,
    warnings: [...tools!.warnings, ...states!.warnings],
  };
}

export function diagnosticsJson(
  diagnostics: readonly Diagnostic[],
  fileName: string,
): Record<string, unknown>[] {
  return diagnostics.map((diagnostic) => diagnosticToJson(diagnostic, fileName));
}

export function countSeverities(diagnostics: readonly Diagnostic[]): {
  errors: number;
  warnings: number;
} {
  let errors = 0;
  let warnings = 0;
  for (const diagnostic of diagnostics) {
    if (diagnostic.severity === 'error') errors++;
    else warnings++;
  }
  return { errors, warnings };
}

export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Prints a JSON value as one line (JSON lines) or indented. */
export function printJson(io: CliIo, value: unknown, indent = true): void {
  io.stdout(`${JSON.stringify(value, null, indent ? 2 : undefined)}\n`);
}
