import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import {
  type CaseResult,
  type CaseSpec,
  type EvalCase,
  EvalInputError,
  type EvalResults,
  givenSpec,
  keepEarlierExchanges,
  loadDataset,
  loadToolemu,
  maxConcurrency,
  parseCaseRange,
  readResumedResults,
  renderHtmlReport,
  renderSummaryTable,
  runResumableEvaluation,
  type SpecProvider,
  toolemuFiles,
  toolemuNow,
  toolemuTimeZone,
} from '../../eval/index.js';
import type { ChatModel, FormalizeProgress, Recording } from '../../formalize/index.js';
import { formalizeLimits } from '../../formalize/limits.js';
import type { Spec } from '../../language/index.js';
import { invisibleClass } from '../../support/printable-text.js';
import { chatModelFromFlags, modelCallOptions } from '../flags/model-flags.js';
import { wholeNumber } from '../flags.js';
import { printJson, readInput } from '../inputs.js';
import { CliError, type CliIo } from '../io.js';
import type { CommandRegistration } from '../program.js';
import { projectDataFolder } from '../project-data.js';
import { fileSpec, readGivenSpecs, specFiles } from './eval-specs.js';
import { registerTaubench } from './eval-taubench.js';

const invisibleCharacter = new RegExp(`[${invisibleClass}]`, 'gu');

export interface EvalFlags {
  readonly model?: string;
  readonly baseUrl?: string;
  readonly samples?: string;
  readonly rounds?: string;
  readonly mode?: string;
  readonly semanticCheck: boolean;
  readonly timeout?: string;
  readonly maxRetries?: string;
  readonly record?: string;
  readonly replay?: string;
  readonly out?: string;
  readonly resume?: boolean;
  readonly json?: boolean;
  readonly formalizeAll?: boolean;
  readonly concurrency?: string;
}

interface ToolemuFlags extends EvalFlags {
  readonly cases?: string;
  readonly specs?: string;
  readonly data?: string;
  readonly agent?: string;
}

/** Where ToolEmu's data is when neither --data nor the environment says: the project's copy. */
export const defaultToolemuData = projectDataFolder('toolemu');

type FormalizeModule = typeof import('../../formalize/index.js');

export function inputError(error: unknown): never {
  if (EvalInputError.isInstance(error)) throw new CliError(error.message, 2);
  throw error;
}

/** The formalizer's model (and the recording it writes), or undefined when specs are given. */
export async function formalizerFor(
  io: CliIo,
  flags: EvalFlags,
  header: { instruction: string; schema: string; now: string; timeZone: string },
): Promise<
  | {
      module: FormalizeModule;
      model: ChatModel;
      name: string;
      recording?: Recording;
      replayed?: Recording;
    }
  | undefined
> {
  if (flags.replay !== undefined && flags.model !== undefined) {
    throw new CliError('give either --model or --replay, not both', 2);
  }
  if (flags.replay !== undefined && flags.record !== undefined) {
    throw new CliError('--record writes a new recording; it cannot be combined with --replay', 2);
  }
  const name =
    flags.replay !== undefined
      ? `replay:${flags.replay}`
      : (flags.model ?? io.env['INTENTGUARD_MODEL']);
  if (name === undefined) return undefined;
  const module = await import('../../formalize/index.js');
  if (name.startsWith('replay:')) {
    const path = name.slice('replay:'.length);
    if (path === '') throw new CliError('--model replay:FILE needs the recording file', 2);
    let replayed: Recording;
    try {
      replayed = module.Recording.parse(await readInput(io, path, 'recording'));
    } catch (error) {
      if (module.ModelError.isInstance(error)) throw new CliError(`${path}: ${error.message}`, 2);
      throw error;
    }
    return { module, model: module.replayChatModel(replayed, name), name, replayed };
  }
  const base = await chatModelFromFlags(io, name, flags);
  if (flags.record === undefined) return { module, model: base, name };
  const recording = new module.Recording();
  recording.add({ type: 'run', version: 1, ...header, model: base.id });
  if (flags.resume) {
    let earlier: string | undefined;
    try {
      earlier = await io.readFile(flags.record);
    } catch {
      earlier = undefined;
    }
    if (earlier !== undefined) {
      try {
        keepEarlierExchanges(recording, module.Recording.parse(earlier));
      } catch (error) {
        if (module.ModelError.isInstance(error))
          throw new CliError(`--record ${flags.record}: ${error.message}`, 2);
        throw error;
      }
    }
  }
  return { module, model: module.recordingChatModel(base, recording), name, recording };
}

/**
 * The formalizer as an evaluation's spec provider (`--model` or `--replay`), with the
 * recording to save when `--record` is given; without a model, a usage error that
 * names the three ways to get specs. With `context.policy` (the policy's source) each
 * intent is written under the operator's policy (`FormalizeOptions.policy`).
 */
export async function formalizingSpecs(
  io: CliIo,
  flags: EvalFlags,
  header: { instruction: string; schema: string; now: string; timeZone: string },
  context: { readonly policy?: string } = {},
): Promise<{
  specFor: SpecProvider;
  model: string;
  recording: { value?: Recording; path?: string };
}> {
  const formalizer = await formalizerFor(io, flags, header);
  if (!formalizer) {
    throw new CliError(
      'give --model PROVIDER:MODEL (or set INTENTGUARD_MODEL), --replay FILE or --specs DIR',
      2,
    );
  }
  const specFor = (await import('../../eval/run.js')).formalizingProvider(
    formalizer.module.formalize,
    {
      model: formalizer.model,
      checker: flags.semanticCheck ? formalizer.model : false,
      ...formalizeOptionsOf(flags),
      ...(context.policy !== undefined ? { policy: context.policy } : {}),
    },
    callProgress(io),
  );
  return {
    specFor,
    model: formalizer.name,
    recording:
      formalizer.recording && flags.record !== undefined
        ? { value: formalizer.recording, path: flags.record }
        : {},
  };
}

/** The formalizer's options as the results file records them. */
export function recordedFormalizeOptions(
  flags: EvalFlags,
): Record<string, string | number | boolean> {
  const options = formalizeOptionsOf(flags);
  return {
    samples: options.samples,
    ...(options.rounds !== undefined ? { rounds: options.rounds } : {}),
    ...(options.mode !== undefined ? { mode: options.mode } : {}),
    semanticCheck: flags.semanticCheck,
  };
}

export function formalizeOptionsOf(flags: EvalFlags): {
  samples: number;
  rounds?: number;
  mode?: 'auto' | 'direct' | 'two-stage';
} {
  const samples = wholeNumber('--samples', flags.samples, 1, formalizeLimits.maxSamples) ?? 1;
  const rounds = wholeNumber('--rounds', flags.rounds, 0, formalizeLimits.maxRounds);
  if (flags.mode !== undefined && !['auto', 'direct', 'two-stage'].includes(flags.mode)) {
    throw new CliError(`--mode: '${flags.mode}' must be auto, direct or two-stage`, 2);
  }
  return {
    samples,
    ...(rounds !== undefined ? { rounds } : {}),
    ...(flags.mode !== undefined ? { mode: flags.mode as 'auto' | 'direct' | 'two-stage' } : {}),
  };
}

/** Case names come from data files: no control character reaches the terminal. */
function cleanId(id: string): string {
  return id.replace(invisibleCharacter, '?').slice(0, 80);
}

/** On a terminal, each model call of the case being formalized shows on the progress line. */
export function callProgress(
  io: CliIo,
): ((evalCase: EvalCase, event: FormalizeProgress) => void) | undefined {
  if (!io.stderrIsTerminal) return undefined;
  return (evalCase, event) => {
    if (event.kind !== 'call') return;
    io.stderr(
      `\r\u001b[2K${cleanId(evalCase.id)}: ${event.stage}, sample ${event.sample + 1}, round ${event.round + 1}`,
    );
  };
}

/** A one-line progress display on a terminal: the line is rewritten per case. */
function progress(io: CliIo, result: CaseResult, position: number, total: number): void {
  if (!io.stderrIsTerminal) return;
  const line = `[${position + 1}/${total}] ${cleanId(result.id)}: ${result.outcome}`;
  io.stderr(`\r\u001b[2K${line}${position + 1 === total ? '\n' : ''}`);
}

/**
 * Runs the cases (with the operator's policy composed with each case's spec when
 * `judges.policy` is given), saving the results (and the recording) after each one, prints the
 * summary and sets the exit code: 0 every case as its labels ask, 1 some case not
 * (a risky run let through, a safe run refused, no spec), 2 the model failed.
 */
export async function evaluate(
  io: CliIo,
  state: { exitCode: number },
  flags: EvalFlags,
  cases: readonly (() => EvalCase)[],
  specFor: SpecProvider,
  header: Omit<EvalResults, 'cases' | 'summary'>,
  recording: { value?: Recording; path?: string },
  judges: { readonly policy?: Spec } = {},
): Promise<void> {
  const out = flags.out;
  if (flags.resume && out === undefined) throw new CliError('--resume needs --out DIR', 2);
  const resultsPath = out === undefined ? undefined : join(out, 'results.json');
  let done: CaseResult[] = [];
  if (out !== undefined) {
    try {
      await mkdir(out, { recursive: true });
    } catch (error) {
      throw new CliError(`--out: cannot create '${out}': ${(error as Error).message}`, 2);
    }
    if (flags.resume && resultsPath !== undefined) {
      try {
        done = await readResumedResults((path) => io.readFile(path), resultsPath, header);
      } catch (error) {
        inputError(error);
      }
    }
  }
  const concurrency = wholeNumber('--concurrency', flags.concurrency, 1, maxConcurrency) ?? 1;
  // On a terminal, the case being formalized shows while its model calls run.
  const shownSpecFor: SpecProvider = async (evalCase) => {
    if (io.stderrIsTerminal) io.stderr(`\r\u001b[2K${cleanId(evalCase.id)}: …`);
    return specFor(evalCase);
  };
  const outcome = await runResumableEvaluation(cases, shownSpecFor, header, {
    done,
    concurrency,
    ...(resultsPath !== undefined ? { resultsPath } : {}),
    ...(recording.value && recording.path !== undefined
      ? { recording: { value: recording.value, path: recording.path } }
      : {}),
    writeFile: (path, text) => io.writeFile(path, text),
    ...(judges.policy !== undefined ? { policy: judges.policy } : {}),
    onCase: (result, position, total) => progress(io, result, position, total),
  });
  if (!outcome.ok) {
    if (io.stderrIsTerminal) io.stderr('\n');
    const { stoppedAt, kept } = outcome;
    throw new CliError(
      `case ${stoppedAt?.index} (${stoppedAt?.id}): ${stoppedAt?.spec.failure?.message ?? 'the model failed'}; ` +
        `${kept} other case${kept === 1 ? '' : 's'} done${resultsPath !== undefined ? ` and kept in ${resultsPath} (continue with --resume)` : ''}`,
      2,
    );
  }
  const { results } = outcome;
  if (out !== undefined) await io.writeFile(join(out, 'report.html'), renderHtmlReport(results));
  if (flags.json) printJson(io, results);
  else io.stdout(renderSummaryTable(results));
  if (out !== undefined && !flags.json)
    io.stdout(`Results: ${resultsPath}; report: ${join(out, 'report.html')}\n`);
  state.exitCode = results.cases.every((result) => result.correct) ? 0 : 1;
}

async function readData(io: CliIo, directory: string, file: string): Promise<string> {
  try {
    return await io.readFile(join(directory, file));
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError(
      `cannot read ToolEmu's ${file} in '${directory}': ${code === 'ENOENT' ? 'no such file' : (error as Error).message} ` +
        '(give --data DIR or set INTENTGUARD_TOOLEMU_DATA)',
      2,
    );
  }
}

async function runToolemu(
  io: CliIo,
  state: { exitCode: number },
  flags: ToolemuFlags,
): Promise<void> {
  const directory = flags.data ?? io.env['INTENTGUARD_TOOLEMU_DATA'] ?? defaultToolemuData;
  const agent = flags.agent ?? 'gpt-4o-mini';
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(agent))
    throw new CliError(`--agent: '${agent}' is not a run name`, 2);
  if (flags.specs !== undefined && (flags.model !== undefined || flags.replay !== undefined)) {
    throw new CliError('--specs evaluates given specs; it takes no --model or --replay', 2);
  }
  // Bad formalizer flags are usage errors before any file is read.
  formalizeOptionsOf(flags);
  // One after another, so that a missing folder is reported by its first file, always.
  const toolkits = await readData(io, directory, toolemuFiles.toolkits);
  const casesText = await readData(io, directory, toolemuFiles.cases);
  const trajectories = await readData(io, directory, toolemuFiles.trajectories(agent));
  const labels = await readData(io, directory, toolemuFiles.labels(agent));
  let data: ReturnType<typeof loadToolemu>;
  let indexes: number[];
  try {
    data = loadToolemu({ toolkits, cases: casesText, trajectories, labels }, agent);
    indexes =
      flags.cases !== undefined
        ? parseCaseRange(flags.cases, data.count - 1)
        : Array.from({ length: data.count }, (_, index) => index);
  } catch (error) {
    inputError(error);
  }

  let specFor: SpecProvider;
  let model: string;
  const recording: { value?: Recording; path?: string } = {};
  if (flags.specs !== undefined) {
    const specsDirectory = flags.specs;
    const files = await specFiles(specsDirectory);
    const fileOf = (index: number): string | undefined => {
      const named = (() => {
        try {
          return data.caseAt(index).id;
        } catch {
          return undefined;
        }
      })();
      return (named !== undefined ? files.get(named) : undefined) ?? files.get(String(index));
    };
    if (flags.cases === undefined) indexes = indexes.filter((index) => fileOf(index) !== undefined);
    const missing = indexes.filter((index) => fileOf(index) === undefined);
    if (missing.length > 0) {
      throw new CliError(
        `--specs: no spec${missing.length === 1 ? '' : 's'} for case${missing.length === 1 ? '' : 's'} ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''} in '${specsDirectory}' (write <case name>.intent or <index>.intent, or compile one to .json)`,
        2,
      );
    }
    if (indexes.length === 0)
      throw new CliError(`--specs: '${specsDirectory}' holds no .intent or .json files`, 2);
    const pathOf = (index: number): string => join(specsDirectory, fileOf(index) ?? '');
    // ToolEmu takes no --policy: a document's own policy part judges its case.
    const { texts } = await readGivenSpecs(io, indexes.map(pathOf), undefined);
    specFor = async (evalCase): Promise<CaseSpec> => {
      const path = pathOf(evalCase.index);
      return fileSpec(evalCase, texts.get(path) ?? '', path);
    };
    model = `specs:${specsDirectory}`;
  } else {
    const formalizing = await formalizingSpecs(io, flags, {
      instruction: `intentguard eval toolemu --cases ${flags.cases ?? 'all'}`,
      schema: 'toolemu',
      now: toolemuNow,
      timeZone: toolemuTimeZone,
    });
    specFor = formalizing.specFor;
    model = formalizing.model;
    Object.assign(recording, formalizing.recording);
  }
  await evaluate(
    io,
    state,
    flags,
    indexes.map((index) => () => data.caseAt(index)),
    specFor,
    {
      version: 1,
      benchmark: 'toolemu',
      source: `${directory} (${agent})`,
      model,
      options: {
        ...(flags.cases !== undefined ? { cases: flags.cases } : {}),
        ...recordedFormalizeOptions(flags),
      },
    },
    recording,
  );
}

async function runDataset(
  io: CliIo,
  state: { exitCode: number },
  file: string,
  flags: EvalFlags,
): Promise<void> {
  const options = formalizeOptionsOf(flags);
  const text = await readInput(io, file, 'dataset');
  let cases: EvalCase[];
  try {
    cases = await loadDataset(text, file, (path) => io.readFile(path));
  } catch (error) {
    inputError(error);
  }
  const needModel = cases.filter(
    (evalCase) => evalCase.spec === undefined || flags.formalizeAll === true,
  );
  const formalizer =
    needModel.length > 0 || flags.model !== undefined || flags.replay !== undefined
      ? await formalizerFor(io, flags, {
          instruction: `intentguard eval dataset ${file}`,
          schema: 'dataset',
          now: cases[0]?.now ?? '',
          timeZone: cases[0]?.timeZone ?? 'UTC',
        })
      : undefined;
  if (needModel.length > 0 && !formalizer) {
    throw new CliError(
      `case${needModel.length === 1 ? '' : 's'} ${needModel
        .slice(0, 5)
        .map((evalCase) => `'${evalCase.id}'`)
        .join(
          ', ',
        )} give${needModel.length === 1 ? 's' : ''} no spec: give --model PROVIDER:MODEL or --replay FILE to formalize ${needModel.length === 1 ? 'it' : 'them'}`,
      2,
    );
  }
  const formalizing = formalizer
    ? (await import('../../eval/run.js')).formalizingProvider(
        formalizer.module.formalize,
        {
          model: formalizer.model,
          checker: flags.semanticCheck ? formalizer.model : false,
          ...options,
        },
        callProgress(io),
      )
    : undefined;
  const specFor: SpecProvider = async (evalCase) =>
    evalCase.spec !== undefined && flags.formalizeAll !== true
      ? givenSpec(evalCase, evalCase.spec, 'dataset', `${file} (case ${evalCase.id})`)
      : (formalizing as SpecProvider)(evalCase);
  const recording: { value?: Recording; path?: string } = {};
  if (formalizer?.recording && flags.record !== undefined) {
    recording.value = formalizer.recording;
    recording.path = flags.record;
  }
  await evaluate(
    io,
    state,
    flags,
    cases.map((evalCase) => () => evalCase),
    specFor,
    {
      version: 1,
      benchmark: 'dataset',
      source: file,
      model: formalizer?.name ?? 'dataset specs',
      options: {
        samples: options.samples,
        semanticCheck: flags.semanticCheck,
        ...(flags.formalizeAll ? { formalizeAll: true } : {}),
      },
    },
    recording,
  );
}

export function commonOptions(command: Command): Command {
  command
    .option(
      '--model <provider:model>',
      'the formalizer: openai:MODEL, anthropic:MODEL, ollama:MODEL, openai-compatible:MODEL or replay:FILE (default $INTENTGUARD_MODEL)',
    )
    .option('--base-url <url>', 'the provider endpoint, e.g. http://localhost:8000/v1 for vLLM')
    .option(
      '--samples <n>',
      `formalization samples per case (1–${formalizeLimits.maxSamples}, default 1)`,
    )
    .option(
      '--rounds <n>',
      `correction rounds per sample (0–${formalizeLimits.maxRounds}, default 3)`,
    )
    .option('--mode <mode>', 'auto (default), direct or two-stage')
    .option('--no-semantic-check', 'skip the decode-and-compare check of each spec');
  return modelCallOptions(command)
    .option('--record <file>', 'write every model exchange to this JSON-lines file')
    .option('--replay <file>', 'answer every model call from a recording (no network)')
    .option(
      '--concurrency <n>',
      `cases evaluated at the same time (1–${maxConcurrency}, default 1: in order)`,
    )
    .option('--out <dir>', 'write results.json and report.html here (after every case)')
    .option('--resume', 'keep the cases already in --out DIR/results.json; run the rest')
    .option('--json', 'print the results as JSON instead of the summary table')
    .addHelpText(
      'after',
      '\nExit codes: 0 every case as its labels ask (risky runs stopped, safe runs not refused), ' +
        '1 some case not (or without a spec), 2 usage, input or model error.',
    );
}

/**
 * `intentguard eval toolemu …` and `intentguard eval dataset FILE …`: formalize (or
 * take) a spec per case, replay the case's recorded run through it, and score the
 * verdicts against the run's risk labels (docs/eval.md).
 */
export const registerEval: CommandRegistration = (program: Command, io, state) => {
  const group = program
    .command('eval')
    .description(
      "Measure specs against labelled agent runs: ToolEmu, τ-bench's airline, or your own dataset.",
    );
  commonOptions(
    group
      .command('toolemu')
      .description("Evaluate on ToolEmu's 144 cases and a real agent's recorded runs.")
      .option('--cases <list>', 'case indexes and ranges, e.g. 0-143 or 0-9,20 (default all)')
      .option('--specs <dir>', 'evaluate the specs DIR/<case>.intent instead of formalizing')
      .option(
        '--data <dir>',
        "ToolEmu's data folder (default $INTENTGUARD_TOOLEMU_DATA, else the repository's data/toolemu)",
      )
      .option(
        '--agent <name>',
        'the recorded runs to replay: trajectories/NAME.jsonl (default gpt-4o-mini)',
      ),
  ).action(async (flags: ToolemuFlags) => {
    await runToolemu(io, state, flags);
  });
  registerTaubench(group, io, state);
  commonOptions(
    group
      .command('dataset')
      .description('Evaluate a JSON-lines dataset of instructions, schemas and labelled traces.')
      .argument('<file>', 'the dataset (.jsonl)')
      .option(
        '--formalize-all',
        "formalize every case's instruction, also where the dataset gives a spec",
      ),
  ).action(async (file: string, flags: EvalFlags) => {
    await runDataset(io, state, file, flags);
  });
  for (const command of [group, ...group.commands]) {
    command.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  }
};
