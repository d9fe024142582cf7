import { join } from 'node:path';
import type { Command } from 'commander';
import {
  type CaseSpec,
  givenSpec,
  loadTaubench,
  parseCaseRange,
  policyOnlyIntent,
  type SpecProvider,
  type TaubenchConfiguration,
  type TaubenchData,
  taubenchFiles,
  taubenchNow,
  taubenchSchema,
  taubenchTimeZone,
} from '../../eval/index.js';
import type { Recording } from '../../formalize/index.js';
import type { Schema, Spec } from '../../language/index.js';
import { CliError, type CliIo } from '../io.js';
import { projectDataFolder, projectPath } from '../project-data.js';
import { loadCheckedPolicy } from '../spec-loading.js';
import {
  commonOptions,
  type EvalFlags,
  evaluate,
  formalizeOptionsOf,
  formalizingSpecs,
  inputError,
  recordedFormalizeOptions,
} from './eval.js';
import { fileSpec, readGivenSpecs, specFiles } from './eval-specs.js';

interface TaubenchFlags extends EvalFlags {
  readonly tasks?: string;
  readonly specs?: string;
  readonly data?: string;
  readonly tools?: string;
  readonly states?: string;
  readonly policy?: string;
}

/** The highest task id of the airline's test set (tasks 0–49). */
const lastTask = 49;

/** Where the airline's data and schema are when neither flags nor the environment say. */
export const taubenchDefaults = {
  data: projectDataFolder('taubench/airline'),
  tools: projectPath('examples/taubench/airline-tools.json'),
  states: projectPath('examples/taubench/airline-states.json'),
} as const;

async function readFileOf(io: CliIo, path: string, what: string, hint: string): Promise<string> {
  try {
    return await io.readFile(path);
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new CliError(
      `cannot read ${what} '${path}': ${code === 'ENOENT' ? 'no such file' : (error as Error).message} (${hint})`,
      2,
    );
  }
}

/** The spec file of a task under `--specs DIR`, without its extension (.intent or .json). */
const specNameOf = (taskId: number): string => `task-${taskId}`;

/**
 * Formalizes each task once, whatever its trials: the runs of one task share the
 * instruction, so they share the spec, and only the first trial carries the model's usage.
 */
function oncePerTask(data: TaubenchData, provider: SpecProvider): SpecProvider {
  const specs = new Map<number, Promise<CaseSpec>>();
  return async (evalCase) => {
    const taskId = data.runs[evalCase.index]?.taskId ?? -1;
    const earlier = specs.get(taskId);
    if (earlier !== undefined) {
      const shared = await earlier;
      return {
        ...shared,
        llm: { calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, latencyMs: 0 },
      };
    }
    const first = provider(evalCase);
    specs.set(taskId, first);
    return first;
  };
}

/** The runs and schema, and the tasks `--tasks` chose; any unreadable file is an input error. */
async function readTaubench(
  io: CliIo,
  flags: TaubenchFlags,
  directory: string,
): Promise<{ data: TaubenchData; schema: Schema; tasks: number[] }> {
  const dataHint = 'give --data DIR or set INTENTGUARD_TAUBENCH_DATA';
  const toolsPath = flags.tools ?? taubenchDefaults.tools;
  const statesPath = flags.states ?? taubenchDefaults.states;
  const toolsText = await readFileOf(io, toolsPath, 'the tools', 'give --tools FILE');
  const statesText = await readFileOf(io, statesPath, 'the host states', 'give --states FILE');
  const texts = {
    trajectories: await readFileOf(
      io,
      join(directory, taubenchFiles.trajectories),
      "τ-bench's runs",
      dataHint,
    ),
    users: await readFileOf(io, join(directory, taubenchFiles.users), "τ-bench's users", dataHint),
    reservations: await readFileOf(
      io,
      join(directory, taubenchFiles.reservations),
      "τ-bench's reservations",
      dataHint,
    ),
    flights: await readFileOf(
      io,
      join(directory, taubenchFiles.flights),
      "τ-bench's flights",
      dataHint,
    ),
  };
  try {
    const schema = taubenchSchema(
      { text: toolsText, name: toolsPath },
      { text: statesText, name: statesPath },
    );
    const data = loadTaubench(texts, schema);
    const tasks =
      flags.tasks !== undefined
        ? parseCaseRange(flags.tasks, lastTask)
        : Array.from({ length: lastTask + 1 }, (_, index) => index);
    return { data, schema, tasks };
  } catch (error) {
    inputError(error);
  }
}

async function runTaubench(
  io: CliIo,
  state: { exitCode: number },
  flags: TaubenchFlags,
): Promise<void> {
  const directory = flags.data ?? io.env['INTENTGUARD_TAUBENCH_DATA'] ?? taubenchDefaults.data;
  if (flags.specs !== undefined && (flags.model !== undefined || flags.replay !== undefined)) {
    throw new CliError('--specs evaluates given specs; it takes no --model or --replay', 2);
  }
  // Bad formalizer flags are usage errors before any file is read.
  formalizeOptionsOf(flags);
  const { data, schema, tasks: allTasks } = await readTaubench(io, flags, directory);
  let tasks = allTasks;
  // Fail closed: a policy that does not check is reported and nothing runs (exit 1).
  const checkedPolicy =
    flags.policy === undefined
      ? undefined
      : await loadCheckedPolicy(io, flags.policy, schema, 'task-<id>.intent');
  const policy = checkedPolicy?.policy;
  const formalizes = flags.model !== undefined || flags.replay !== undefined;

  let specFor: SpecProvider;
  let model: string;
  let configuration: TaubenchConfiguration = policy ? 'composed' : 'intent only';
  let judges: { readonly policy?: Spec } = policy !== undefined ? { policy } : {};
  const recording: { value?: Recording; path?: string } = {};
  if (flags.specs !== undefined) {
    const specsDirectory = flags.specs;
    const files = await specFiles(specsDirectory);
    if (flags.tasks === undefined) tasks = tasks.filter((task) => files.has(specNameOf(task)));
    const missing = tasks.filter((task) => !files.has(specNameOf(task)));
    if (missing.length > 0) {
      throw new CliError(
        `--specs: no spec for task${missing.length === 1 ? '' : 's'} ${missing.slice(0, 10).join(', ')}${missing.length > 10 ? ', …' : ''} in '${specsDirectory}' (write task-<id>.intent, or compile it to task-<id>.json)`,
        2,
      );
    }
    if (tasks.length === 0)
      throw new CliError(
        `--specs: '${specsDirectory}' holds no task-<id>.intent or task-<id>.json files`,
        2,
      );
    const pathOf = (taskId: number): string =>
      join(specsDirectory, files.get(specNameOf(taskId)) ?? '');
    const given = await readGivenSpecs(io, tasks.map(pathOf), flags.policy);
    // Documents compiled with --policy carry it: each case is judged by its own.
    if (given.composed) configuration = 'composed';
    // Every case's spec carries the policy (its document's, or --policy checked against
    // the spec's own schema), read once per file: a task's trials share it.
    judges = {};
    const read = new Map<string, CaseSpec>();
    specFor = async (evalCase): Promise<CaseSpec> => {
      const path = pathOf(data.runs[evalCase.index]?.taskId ?? -1);
      let spec = read.get(path);
      if (spec === undefined) {
        spec = fileSpec(evalCase, given.texts.get(path) ?? '', path, checkedPolicy);
        read.set(path, spec);
      }
      return spec;
    };
    model = `specs:${specsDirectory}`;
  } else if (policy !== undefined && !formalizes) {
    // The policy alone: each task's intent lets it do anything and finish (policyOnlyIntent).
    configuration = 'policy only';
    const intent = policyOnlyIntent(schema);
    specFor = async (evalCase) => givenSpec(evalCase, intent, 'generated', 'policy-only intent');
    model = `policy:${flags.policy}`;
  } else {
    const formalizing = await formalizingSpecs(
      io,
      flags,
      {
        instruction: `intentguard eval taubench --tasks ${flags.tasks ?? 'all'}`,
        schema: 'taubench-airline',
        now: taubenchNow,
        timeZone: taubenchTimeZone,
      },
      // Formalized with the policy as context: each intent is written for its task alone.
      checkedPolicy !== undefined ? { policy: checkedPolicy.source } : {},
    );
    specFor = oncePerTask(data, formalizing.specFor);
    model = formalizing.model;
    Object.assign(recording, formalizing.recording);
  }
  const chosen = new Set(tasks);
  const indexes = data.runs.flatMap((run, index) => (chosen.has(run.taskId) ? [index] : []));
  await evaluate(
    io,
    state,
    flags,
    indexes.map((index) => () => data.caseAt(index)),
    specFor,
    {
      version: 1,
      benchmark: 'taubench',
      source: directory,
      model,
      options: {
        configuration,
        ...(flags.policy !== undefined ? { policy: flags.policy } : {}),
        ...(flags.tasks !== undefined ? { tasks: flags.tasks } : {}),
        ...recordedFormalizeOptions(flags),
      },
    },
    recording,
    judges,
  );
}

/** `intentguard eval taubench`: τ-bench's 200 airline runs (docs/eval.md). */
export function registerTaubench(group: Command, io: CliIo, state: { exitCode: number }): void {
  commonOptions(
    group
      .command('taubench')
      .description("Evaluate on τ-bench's airline domain: 200 real gpt-4o runs of 50 tasks.")
      .option(
        '--tasks <list>',
        'task ids and ranges, e.g. 0-49 or 0-9,20 (default all; every trial)',
      )
      .option(
        '--specs <dir>',
        'evaluate the intents DIR/task-<id>.intent (or compiled documents DIR/task-<id>.json) instead of formalizing',
      )
      .option(
        '--policy <file>',
        "the operator's policy, composed with each task's intent; alone (no --specs, --model or --replay), the policy only",
      )
      .option(
        '--data <dir>',
        "the airline data folder (default $INTENTGUARD_TAUBENCH_DATA, else the repository's data/taubench/airline)",
      )
      .option(
        '--tools <file>',
        "the tools (default the repository's examples/taubench/airline-tools.json)",
      )
      .option(
        '--states <file>',
        "the host's states: SessionUser, FlightStatus (default examples/taubench/airline-states.json)",
      ),
  ).action(async (flags: TaubenchFlags) => {
    await runTaubench(io, state, flags);
  });
}
