import type { Command } from 'commander';
import { createClock } from '../../engine/index.js';
import {
  analyzeComposition,
  analyzeSpec,
  type Diagnostic,
  type GroundingSources,
  groundingCodes,
  renderDiagnostics,
  sortDiagnostics,
} from '../../language/index.js';
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
import { CliError, type CliIo } from '../io.js';
import type { CommandRegistration } from '../program.js';
import { sessionOptionsFromFlags } from '../session-options.js';
import { compiledDocumentOf, openCompiledDocument } from '../spec-loading.js';

interface CheckOptions {
  readonly policy?: string;
  readonly states?: string;
  readonly tools?: string;
  readonly json?: boolean;
  readonly instruction?: string;
  readonly now?: string;
  readonly timeZone?: string;
}

/**
 * `--instruction`: what the grounding check compares the spec's values with. Relative
 * days in it ("tomorrow", "Friday") count from `--now` in `--time-zone`, as `formalize`
 * resolved them (default: now, in the system's zone).
 */
function groundingFrom(options: CheckOptions): GroundingSources | undefined {
  if (options.instruction === undefined) {
    if (options.now !== undefined || options.timeZone !== undefined)
      throw new CliError('--now and --time-zone need --instruction', 2);
    return undefined;
  }
  const instruction = options.instruction.trim();
  if (instruction === '') throw new CliError('--instruction: the instruction is empty', 2);
  const timeZone = options.timeZone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  sessionOptionsFromFlags({ timeZone, ...(options.now !== undefined ? { now: options.now } : {}) });
  return { instruction, today: createClock(options.now ?? new Date(), timeZone).today };
}

/** A policy checked with the spec: its file, its text and its own diagnostics. */
interface CheckedPolicy {
  readonly name: string;
  readonly source: string;
  readonly diagnostics: readonly Diagnostic[];
}

/** What `check` found: the spec's diagnostics, the schema's warnings, the policy's. */
interface CheckReport {
  readonly fileName: string;
  readonly source: string;
  readonly schemaName: string | undefined;
  /** The schema's own warnings (types approximated as text), counted with the spec's. */
  readonly schemaWarnings: readonly Diagnostic[];
  readonly diagnostics: readonly Diagnostic[];
  readonly policy: CheckedPolicy | undefined;
}

/** The spec, its schema and its policy, read and checked (usage errors thrown as exit 2). */
async function checkFiles(
  io: CliIo,
  specPath: string,
  options: CheckOptions,
): Promise<CheckReport> {
  assertOneStandardInput({
    SPEC: specPath,
    '--policy': options.policy,
    '--states': options.states,
    '--tools': options.tools,
  });
  const grounding = groundingFrom(options);
  const text = await readInput(io, specPath, 'spec');
  const fileName = displayName(specPath);
  const document = compiledDocumentOf(text);
  // A compiled document holds its sources and its schema: they are checked as the texts.
  const opened =
    document === undefined
      ? undefined
      : await openCompiledDocument(io, document, fileName, options);
  const loaded = opened?.schema ?? (await loadSchemaOption(io, options, true));
  if (grounding && !loaded)
    throw new CliError('--instruction needs a schema: give --states FILE or --tools FILE', 2);
  if (options.policy !== undefined && !loaded)
    throw new CliError('--policy needs a schema: give --states FILE or --tools FILE', 2);
  const source = opened?.intent.source ?? text;
  const report = {
    fileName,
    source,
    schemaName: loaded ? displayName(loaded.path) : undefined,
    schemaWarnings: loaded?.warnings ?? [],
  };
  const diagnostics = analyzeSpec(source, loaded?.schema, {}, grounding);
  const policy = opened?.policy
    ? { name: `${fileName} (policy)`, source: opened.policy.source }
    : options.policy !== undefined
      ? { name: displayName(options.policy), source: await readInput(io, options.policy, 'policy') }
      : undefined;
  if (policy === undefined || !loaded) return { ...report, diagnostics, policy: undefined };
  const pair = analyzeComposition(source, policy.source, loaded.schema);
  // The grounding check judges the intent alone: the policy is the operator's, not the user's.
  const grounded = diagnostics.filter((diagnostic) => groundingCodes.has(diagnostic.code));
  return {
    ...report,
    diagnostics: sortDiagnostics([...pair.intent, ...grounded]),
    policy: { ...policy, diagnostics: pair.policy },
  };
}

function printCheckJson(io: CliIo, report: CheckReport, errors: number, warnings: number): void {
  const { fileName, schemaName, schemaWarnings, diagnostics, policy } = report;
  printJson(io, {
    file: fileName,
    schema: schemaName ?? null,
    ok: errors === 0,
    errors,
    warnings,
    ...(policy ? { policy: policy.name } : {}),
    diagnostics: [
      ...diagnosticsJson(schemaWarnings, schemaName ?? fileName),
      ...diagnosticsJson(diagnostics, fileName),
      ...(policy ? diagnosticsJson(policy.diagnostics, policy.name) : []),
    ],
  });
}

/** `NAME: ok — 0 errors, 1 warning`: one file's verdict line. */
function verdictLine(name: string, diagnostics: readonly Diagnostic[]): string {
  const { errors, warnings } = countSeverities(diagnostics);
  return `${name}: ${errors === 0 ? 'ok' : 'invalid'} — ${plural(errors, 'error')}, ${plural(warnings, 'warning')}\n`;
}

function printCheckText(io: CliIo, report: CheckReport): void {
  const { fileName, source, schemaName, schemaWarnings, diagnostics, policy } = report;
  const color = io.stdoutIsTerminal;
  if (schemaWarnings.length > 0)
    io.stdout(
      `${renderDiagnostics(schemaWarnings, undefined, { fileName: schemaName ?? fileName, color })}\n\n`,
    );
  if (diagnostics.length > 0)
    io.stdout(`${renderDiagnostics(diagnostics, source, { fileName, color })}\n\n`);
  if (policy && policy.diagnostics.length > 0)
    io.stdout(
      `${renderDiagnostics(policy.diagnostics, policy.source, { fileName: policy.name, color })}\n\n`,
    );
  if (policy) io.stdout(verdictLine(policy.name, policy.diagnostics));
  io.stdout(verdictLine(fileName, [...schemaWarnings, ...diagnostics]));
}

/**
 * `intentguard check SPEC --states S.json | --tools T.json`: parse and type-check. SPEC
 * may be a compiled document: read as every reader does, then its intent (and its
 * policy part, named `DOCUMENT (policy)`) checked as the source texts would be.
 */
export const registerCheck: CommandRegistration = (program: Command, io, state) => {
  program
    .command('check')
    .description(
      'Parse and type-check a spec against a schema; print diagnostics with source excerpts. A compiled document is read (a tampered one is refused) and its sources checked over its schema.',
    )
    .argument(
      '<spec>',
      'the spec file (.intent) or a compiled document (intentguard compile), or - for standard input',
    )
    .option('--states <file>', 'a states schema (JSON, FORMATS.md §1)')
    .option(
      '--tools <file>',
      'tool schemas: ToolEmu toolkits, an MCP tools/list result or OpenAI tools',
    )
    .option(
      '--policy <file>',
      "the operator's policy (.policy, LANGUAGE.md §8): check both together, each file's diagnostics under its own name",
    )
    .option('--json', 'print diagnostics as JSON')
    .option(
      '--instruction <text>',
      "the instruction the spec was formalized from: warn where the spec's values do not come from it",
    )
    .option('--now <iso>', 'the date "tomorrow" and weekdays in --instruction count from')
    .option('--time-zone <zone>', "IANA time zone of --now (default: the system's)")
    .addHelpText(
      'after',
      '\nExit codes: 0 no errors, 1 the spec has errors, 2 usage or input error.',
    )
    .action(async (specPath: string, options: CheckOptions) => {
      const report = await checkFiles(io, specPath, options);
      const { errors, warnings } = countSeverities([
        ...report.schemaWarnings,
        ...report.diagnostics,
        ...(report.policy?.diagnostics ?? []),
      ]);
      if (options.json) printCheckJson(io, report, errors, warnings);
      else printCheckText(io, report);
      state.exitCode = errors === 0 ? 0 : 1;
    });
};
