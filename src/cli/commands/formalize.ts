import type { Command } from 'commander';
import type {
  ChatModel,
  EmbeddingModel,
  FormalizeMode,
  FormalizeProgress,
  FormalizeResult,
  FormalizeRun,
  Recording,
} from '../../formalize/index.js';
import { formalizeLimits } from '../../formalize/limits.js';
import { groundingCodes, renderDiagnostics } from '../../language/index.js';
import type { MemoryEntry } from '../../store/index.js';
import { invisibleClass } from '../../support/printable-text.js';
import { chatModelFromFlags, defaultModel, modelCallOptions } from '../flags/model-flags.js';
import { decimal, wholeNumber } from '../flags.js';
import { displayName, loadSchemaOption, printJson, readInput } from '../inputs.js';
import { CliError, type CliIo } from '../io.js';
import { openMemory } from '../memory-store.js';
import type { CommandRegistration } from '../program.js';
import { sessionOptionsFromFlags } from '../session-options.js';
import { loadCheckedPolicy } from '../spec-loading.js';

const invisibleRun = new RegExp(`[${invisibleClass}]+`, 'gu');

interface FormalizeFlags {
  readonly states?: string;
  readonly tools?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly checkerModel?: string;
  readonly semanticCheck: boolean;
  readonly groundingCheck: boolean;
  readonly llmDecoder?: boolean;
  readonly mode?: string;
  readonly samples?: string;
  readonly rounds?: string;
  readonly temperature?: string;
  readonly maxOutputTokens?: string;
  readonly timeout?: string;
  readonly maxRetries?: string;
  readonly memory?: string;
  readonly memoryEmbeddings?: string;
  readonly record?: string;
  readonly now?: string;
  readonly timeZone?: string;
  readonly json?: boolean;
  readonly policy?: string;
}

/** The model used when neither --model nor INTENTGUARD_MODEL names one. */

/** The formalizer and the AI SDK are loaded only by this command: they take a while to import. */
type FormalizeModule = typeof import('../../formalize/index.js');

function modelError(module: FormalizeModule, error: unknown, flag: string): never {
  if (module.ModelError.isInstance(error)) throw new CliError(`${flag}: ${error.message}`, 2);
  throw error;
}

/** Model text on one terminal line: control characters as spaces. */
function oneLine(text: string): string {
  return text.replace(invisibleRun, ' ').trim();
}

function formatUsage(result: FormalizeResult): string {
  const { usage, costUsd, latencyMs, attempts } = result.report;
  const tokens = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  const cost = costUsd === null ? 'cost unknown' : `≈ $${costUsd.toFixed(4)}`;
  return `${attempts.length} model call${attempts.length === 1 ? '' : 's'}, ${tokens} tokens, ${cost}, ${(latencyMs / 1000).toFixed(1)} s`;
}

function progressLine(event: FormalizeProgress, samples: number): string | undefined {
  const who =
    samples > 1
      ? `sample ${(event.kind === 'sample' ? event.outcome.sample : event.kind === 'call' ? event.sample : event.attempt.sample) + 1}: `
      : '';
  if (event.kind === 'sample') {
    return event.outcome.ok
      ? `${who}valid spec`
      : `${who}failed — ${event.outcome.failure?.message ?? ''}`;
  }
  if (event.kind !== 'attempt') return undefined;
  const attempt = event.attempt;
  const retries =
    attempt.retries > 0
      ? ` (after ${attempt.retries} retr${attempt.retries === 1 ? 'y' : 'ies'})`
      : '';
  switch (attempt.outcome) {
    case 'invalid': {
      const errors = attempt.diagnostics.filter(
        (diagnostic) => diagnostic.severity === 'error',
      ).length;
      return `${who}round ${attempt.round + 1}: ${errors} error${errors === 1 ? '' : 's'} in the draft${retries}`;
    }
    case 'valid':
      return `${who}round ${attempt.round + 1}: the draft checks${retries}`;
    case 'ungrounded': {
      const found = attempt.diagnostics.filter((diagnostic) => groundingCodes.has(diagnostic.code));
      return `${who}round ${attempt.round + 1}: the draft checks, but ${found.length} of its values or omissions are not the instruction's${retries}`;
    }
    case 'agree':
      return `${who}the checker agrees${retries}`;
    case 'disagree':
      return `${who}the checker disagrees: ${attempt.discrepancies.map((item) => item.issue).join('; ')}${retries}`;
    case 'unparseable':
      return `${who}${attempt.stage} reply unreadable${attempt.problem ? `: ${attempt.problem}` : ''}${retries}`;
    case 'ambiguous':
      return `${who}round ${attempt.round + 1}: ${attempt.problem ?? 'several candidate specs'}; asked again${retries}`;
    case 'error':
      return `${who}${attempt.stage} call failed: ${attempt.error ?? ''}`;
    default:
      return attempt.stage === 'goal' ? `${who}goal extracted${retries}` : undefined;
  }
}

/** What a failed run prints on stderr: the reason and, for a spec that never checked, its errors. */
function reportFailure(io: CliIo, result: Extract<FormalizeResult, { ok: false }>): void {
  const { code, message } = result.failure;
  if (code === 'semantic-disagreement') {
    // Only here is the instruction a likely cause: the spec checked, and the checker
    // read it as something else than the instruction says.
    io.stderr(
      `intentguard: no spec: the checker found that the spec does not say what the instruction says: ${message}\n` +
        'If the instruction is ambiguous, make it more precise and run again.\n',
    );
  } else if (code === 'ungrounded-spec') {
    // The model kept writing values the user did not give: an injected instruction or
    // tool text is the likely cause, never a reason to relax the check.
    io.stderr(
      `intentguard: no spec: its values do not all come from the instruction: ${message}\n` +
        'If the instruction or the tools carry text from someone else (a pasted note, an email), remove it and run again.\n',
    );
  } else if (code === 'checker-unusable') {
    io.stderr(
      `intentguard: no spec: the semantic check could not be completed: ${message}\n` +
        'This is a problem of the checker model, not of the instruction: try another --checker-model, ' +
        'or --no-semantic-check to rely on the static checks alone.\n',
    );
  } else {
    io.stderr(`intentguard: no valid spec: ${message}\n`);
  }
  const lastCheck = [...result.report.attempts]
    .reverse()
    .find((attempt) => attempt.stage === 'check');
  if (code === 'semantic-disagreement' && lastCheck && lastCheck.discrepancies.length > 0) {
    io.stderr('\nWhat the checker said:\n');
    for (const item of lastCheck.discrepancies)
      io.stderr(`- ${oneLine(item.issue)}${item.fix ? ` (fix: ${oneLine(item.fix)})` : ''}\n`);
  }
  const failed = new Set(
    result.report.samples.filter((sample) => !sample.ok).map((sample) => sample.sample),
  );
  for (const sample of failed) {
    const last = [...result.report.attempts]
      .reverse()
      .find((attempt) => attempt.sample === sample && attempt.stage === 'encode');
    if (last?.outcome === 'ambiguous') {
      io.stderr(
        `\nThe last reply (round ${last.round + 1}): ${last.problem ?? 'several candidate specs'}.\n`,
      );
      continue;
    }
    if (last?.outcome !== 'invalid' && last?.outcome !== 'ungrounded') continue;
    const prefix =
      failed.size > 1 || result.report.samples.length > 1 ? ` of sample ${sample + 1}` : '';
    const ungrounded = last.outcome === 'ungrounded';
    io.stderr(
      `\nThe last draft${prefix} (round ${last.round + 1}) had these ${ungrounded ? 'ungrounded values' : 'errors'}:\n`,
    );
    io.stderr(
      `${renderDiagnostics(
        last.diagnostics.filter((diagnostic) =>
          ungrounded ? groundingCodes.has(diagnostic.code) : diagnostic.severity === 'error',
        ),
        last.reply,
        { fileName: 'reply', color: io.stderrIsTerminal },
      )}\n`,
    );
  }
}

async function modelsFor(
  module: FormalizeModule,
  io: CliIo,
  flags: FormalizeFlags,
  instruction: string,
): Promise<{ model: ChatModel; checker: ChatModel; replayed?: Recording }> {
  const name = flags.model ?? io.env['INTENTGUARD_MODEL'] ?? defaultModel;
  if (name.startsWith('replay:')) {
    const path = name.slice('replay:'.length);
    if (path === '') throw new CliError('--model replay:FILE needs the recording file', 2);
    const text = await readInput(io, path, 'recording');
    let recording: Recording;
    try {
      recording = module.Recording.parse(text);
    } catch (error) {
      modelError(module, error, `--model ${name}`);
    }
    const run = recording.run;
    if (run && run.instruction.trim() !== instruction) {
      throw new CliError(
        `the recording '${displayName(path)}' is of another instruction: ${JSON.stringify(run.instruction)}`,
        2,
      );
    }
    const model = module.replayChatModel(recording, name);
    return { model, checker: model, replayed: recording };
  }
  const model = await chatModelFromFlags(io, name, flags);
  const checker =
    flags.checkerModel !== undefined
      ? await chatModelFromFlags(io, flags.checkerModel, flags, '--checker-model')
      : model;
  return { model, checker };
}

/** The settings of `formalize` the flags give: numbers in range, one of the three modes. */
function settingsOf(flags: FormalizeFlags): {
  samples: number;
  rounds?: number;
  temperature?: number;
  maxOutputTokens?: number;
  mode?: FormalizeMode;
} {
  const samples = wholeNumber('--samples', flags.samples, 1, formalizeLimits.maxSamples) ?? 1;
  const rounds = wholeNumber('--rounds', flags.rounds, 0, formalizeLimits.maxRounds);
  const temperature = decimal('--temperature', flags.temperature, 0, 2);
  const maxOutputTokens = wholeNumber('--max-output-tokens', flags.maxOutputTokens, 100, 200_000);
  if (flags.mode !== undefined && !['auto', 'direct', 'two-stage'].includes(flags.mode)) {
    throw new CliError(`--mode: '${flags.mode}' must be auto, direct or two-stage`, 2);
  }
  return {
    samples,
    ...(rounds !== undefined ? { rounds } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...(flags.mode !== undefined ? { mode: flags.mode as FormalizeMode } : {}),
  };
}

function memoryEmbeddingsFor(
  module: FormalizeModule,
  io: CliIo,
  flags: FormalizeFlags,
): EmbeddingModel | undefined {
  if (flags.memoryEmbeddings === undefined) return undefined;
  try {
    return module.createEmbeddingModel(flags.memoryEmbeddings, {
      env: io.env,
      ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
    });
  } catch (error) {
    modelError(module, error, '--memory-embeddings');
  }
}

/** Stage 1 that could not be read is not dropped in silence: say so whatever the outcome. */
function warnOfGoalProblems(io: CliIo, run: FormalizeRun, samples: number): void {
  for (const sample of run.result.report.samples) {
    if (sample.goalProblem === undefined) continue;
    const who = samples > 1 ? ` of sample ${sample.sample + 1}` : '';
    io.stderr(
      `intentguard: warning: the goal analysis (stage 1)${who} could not be read (${oneLine(sample.goalProblem)}); the spec was refined from the instruction alone.\n`,
    );
  }
}

/** The spec file on stdout, or why there is none on stderr; on a terminal, what it cost. */
function printRun(
  io: CliIo,
  run: FormalizeRun,
  entry: MemoryEntry | undefined,
  memoryPath: string | undefined,
): void {
  const { result } = run;
  if (result.ok && run.specFile !== undefined) {
    io.stdout(run.specFile);
    if (run.warnings.length > 0) {
      io.stderr(
        `${renderDiagnostics(run.warnings, run.specFile, { fileName: 'spec', color: io.stderrIsTerminal })}\n`,
      );
    }
    if (entry && memoryPath !== undefined) {
      io.stderr(
        `Remembered as entry ${entry.id}; once the task is done, record how it went: ` +
          `intentguard memory record ${entry.id} success|failure --memory ${memoryPath}\n`,
      );
    }
    if (io.stderrIsTerminal) io.stderr(`${formatUsage(result)}\n`);
  } else if (!result.ok) {
    reportFailure(io, result);
    if (io.stderrIsTerminal) io.stderr(`${formatUsage(result)}\n`);
  }
}

async function runFormalize(
  io: CliIo,
  state: { exitCode: number },
  instructionArgument: string,
  flags: FormalizeFlags,
): Promise<void> {
  const instruction = instructionArgument.trim();
  if (instruction === '') throw new CliError('the instruction is empty', 2);
  if (instruction.length > formalizeLimits.maxInstructionLength) {
    throw new CliError(
      `the instruction is longer than ${formalizeLimits.maxInstructionLength} characters`,
      2,
    );
  }
  const settings = settingsOf(flags);
  const loaded = await loadSchemaOption(io, flags, true);
  if (!loaded) throw new CliError('a schema is required: give --states FILE or --tools FILE', 2);
  // Fail closed: nothing is formalized under a policy that does not check (exit 1).
  const policy =
    flags.policy === undefined
      ? undefined
      : await loadCheckedPolicy(io, flags.policy, loaded.schema, 'SPEC');
  const module = await import('../../formalize/index.js');
  const { model, checker, replayed } = await modelsFor(module, io, flags, instruction);
  // A replay rebuilds the recorded prompts, which hold the recorded date and time.
  const now = flags.now ?? replayed?.run?.now ?? new Date().toISOString();
  // The user's own zone by default: "before 7 PM" means 7 PM where they are.
  const timeZone =
    flags.timeZone ??
    replayed?.run?.timeZone ??
    (Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  sessionOptionsFromFlags({ now, timeZone });
  const recording = flags.record !== undefined ? new module.Recording() : undefined;
  const memoryEmbeddings = memoryEmbeddingsFor(module, io, flags);
  const memory = flags.memory !== undefined ? await openMemory(flags.memory) : undefined;
  try {
    const run = await module.runFormalize({
      instruction,
      schema: loaded.schema,
      model,
      checker: flags.semanticCheck ? checker : false,
      grounding: flags.groundingCheck,
      ...(policy ? { policy: policy.source } : {}),
      ...(flags.llmDecoder ? { decoder: checker } : {}),
      ...settings,
      now,
      timeZone,
      ...(recording ? { recording } : {}),
      ...(memory ? { memory } : {}),
      ...(memoryEmbeddings ? { memoryEmbeddings } : {}),
      ...(io.stderrIsTerminal && !flags.json
        ? {
            onProgress: (event: FormalizeProgress) => {
              const line = progressLine(event, settings.samples);
              if (line !== undefined) io.stderr(`${line}\n`);
            },
          }
        : {}),
    });
    if (recording && flags.record !== undefined)
      await io.writeFile(flags.record, recording.toJsonl());
    if (!flags.json) warnOfGoalProblems(io, run, settings.samples);
    const entry = memory && run.experience ? memory.record(run.experience) : undefined;
    if (flags.json) {
      printJson(
        io,
        module.formalizeRunJson(run, {
          schema: displayName(loaded.path),
          ...(entry ? { memory: { entry: entry.id, outcome: entry.outcome } } : {}),
        }),
      );
    } else printRun(io, run, entry, flags.memory);
    const { result } = run;
    const inputProblem =
      !result.ok && ['model-error', 'aborted', 'invalid-input'].includes(result.failure.code);
    state.exitCode = result.ok ? 0 : inputProblem ? 2 : 1;
  } finally {
    memory?.close();
  }
}

/**
 * `intentguard formalize "INSTRUCTION" --states S.json | --tools T.json [--model P:M] …`:
 * autoformalize an instruction into a checked spec; and `intentguard memory …`, which
 * records whether formalized specs worked.
 */
export const registerFormalize: CommandRegistration = (program: Command, io, state) => {
  const command = program
    .command('formalize')
    .description('Derive a checked spec from an instruction with an LLM; print the spec.')
    .argument('<instruction>', 'the user instruction, in quotes')
    .option('--states <file>', 'a states schema (JSON)')
    .option('--tools <file>', 'tool schemas (ToolEmu, MCP tools/list, OpenAI tools)')
    .option(
      '--policy <file>',
      "the operator's policy: the spec is written for the task alone, under it (LANGUAGE.md §8)",
    )
    .option(
      '--model <provider:model>',
      `openai:MODEL, anthropic:MODEL, ollama:MODEL, openai-compatible:MODEL or replay:FILE (default $INTENTGUARD_MODEL or ${defaultModel})`,
    )
    .option(
      '--base-url <url>',
      'the provider endpoint, e.g. http://localhost:8000/v1 for vLLM or llama.cpp',
    )
    .option(
      '--checker-model <provider:model>',
      'a separate model for the semantic check (default: --model)',
    )
    .option(
      '--no-semantic-check',
      'skip the decode-and-compare check (syntax and types are always checked)',
    )
    .option(
      '--no-grounding-check',
      "skip the check that the spec's values come from the instruction (ungrounded values fail the run)",
    )
    .option(
      '--llm-decoder',
      'read the spec back with the checker model instead of deterministically',
    )
    .option('--mode <mode>', 'auto (default: two-stage for tool schemas), direct or two-stage')
    .option(
      '--samples <n>',
      `independent samples for majority voting (1–${formalizeLimits.maxSamples}, default 1)`,
    )
    .option(
      '--rounds <n>',
      `correction rounds per sample (0–${formalizeLimits.maxRounds}, default 3)`,
    )
    .option('--temperature <t>', 'sampling temperature (default 0, or 0.7 with several samples)')
    .option('--max-output-tokens <n>', 'per model call (default 2000; more for reasoning models)');
  modelCallOptions(command)
    .option('--memory <db>', 'experience memory (SQLite): prime the prompt, remember the result')
    .option(
      '--memory-embeddings <provider:model>',
      'recall remembered instructions by embedding similarity, e.g. openai:text-embedding-3-small',
    )
    .option('--record <file>', 'write every model exchange to this JSON-lines file')
    .option(
      '--now <iso>',
      "today's date and time for the prompt, e.g. 2025-03-14T12:00 (default: now)",
    )
    .option('--time-zone <zone>', "IANA time zone (default: the system's)")
    .option('--json', 'print the result with every attempt, its diagnostics and usage as JSON')
    .addHelpText(
      'after',
      '\nKeys: OPENAI_API_KEY (and OPENAI_BASE_URL), ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL), OLLAMA_BASE_URL.\n' +
        'Exit codes: 0 a checked spec was printed, 1 no valid spec resulted, 2 usage, input, key or connection error.',
    )
    .action(async (instruction: string, flags: FormalizeFlags) => {
      await runFormalize(io, state, instruction, flags);
    });
};
