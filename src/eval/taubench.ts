import { toolResultObservation } from '../guard/index.js';
import type { Schema } from '../language/index.js';
import { isRecord } from '../support/is-record.js';
import { EvalInputError, parseDataJson } from './errors.js';
import { finishProposal } from './finish.js';
import {
  labelTaubenchRun,
  type TaubenchAction,
  type TaubenchCall,
  type TaubenchLabel,
  taubenchWriteTools,
  userSaysYes,
} from './taubench-labels.js';
import type { EvalCase, EvalStep } from './types.js';

/*
 * τ-bench's airline domain as an evaluation: 200 real gpt-4o runs (50 tasks × 4 trials),
 * each replayed as a trace with the host's facts (who the user is, the flights' status
 * from the database) and labelled by its writes against the task's ground truth.
 * The loader works on the files' text; the caller reads them.
 */

/** The airline's clock, as its policy (`wiki.md`) states it: 2024-05-15 15:00 EST. */
export const taubenchNow = '2024-05-15T15:00';
/** EST, UTC−05:00, as an IANA zone (the sign of `Etc/GMT` zones is inverted by POSIX). */
export const taubenchTimeZone = 'Etc/GMT+5';

/** The file names inside the airline data folder. */
export const taubenchFiles = {
  trajectories: 'trajectories/gpt-4o-airline.json',
  users: 'db/users.json',
  reservations: 'db/reservations.json',
  flights: 'db/flights.json',
  tools: 'tools.mcp.json',
  policy: 'wiki.md',
} as const;

export interface TaubenchTexts {
  readonly trajectories: string;
  readonly users: string;
  readonly reservations: string;
  readonly flights: string;
}

/** One recorded run, as the data gives it. */
export interface TaubenchRun {
  readonly taskId: number;
  readonly trial: number;
  readonly reward: number;
  readonly userId: string;
  readonly instruction: string;
  readonly groundTruth: readonly TaubenchAction[];
  readonly messages: readonly Record<string, unknown>[];
}

export interface TaubenchData {
  /** Every run, in the file's order (a case's index is its position). */
  readonly runs: readonly TaubenchRun[];
  /** Builds the evaluation case of one run. */
  caseAt(index: number): EvalCase;
}

function readRun(value: unknown, where: string): TaubenchRun {
  const info = isRecord(value) ? value['info'] : undefined;
  const task = isRecord(info) ? info['task'] : undefined;
  if (
    !isRecord(value) ||
    !Number.isSafeInteger(value['task_id']) ||
    !Number.isSafeInteger(value['trial']) ||
    typeof value['reward'] !== 'number' ||
    !Array.isArray(value['traj']) ||
    !value['traj'].every(isRecord) ||
    !isRecord(task) ||
    typeof task['user_id'] !== 'string' ||
    typeof task['instruction'] !== 'string' ||
    !Array.isArray(task['actions'])
  ) {
    throw new EvalInputError(
      'invalid-data',
      `${where}: a run needs task_id, trial, reward, traj (messages) and info.task (user_id, instruction, actions)`,
    );
  }
  const groundTruth = (task['actions'] as unknown[]).map((action, position) => {
    if (!isRecord(action) || typeof action['name'] !== 'string') {
      throw new EvalInputError(
        'invalid-data',
        `${where}: ground-truth action ${position + 1} has no name`,
      );
    }
    return { name: action['name'], kwargs: action['kwargs'] ?? {} };
  });
  return {
    taskId: value['task_id'] as number,
    trial: value['trial'] as number,
    reward: value['reward'],
    userId: task['user_id'],
    instruction: task['instruction'],
    groundTruth,
    messages: value['traj'] as Record<string, unknown>[],
  };
}

/** The arguments of a recorded call: its JSON object, or the text as written (refused as invalid). */
function callArguments(text: unknown): unknown {
  if (typeof text !== 'string') return text ?? {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A recorded tool call: the assistant asked for it, the tool answered (or the run ended first). */
interface RecordedCall {
  /** The call's id in the data (not unique within a run). */
  readonly id: string;
  readonly tool: string;
  readonly args: unknown;
  /** The tool's output text; undefined when the run ended before it answered. */
  readonly output: string | undefined;
  /** The user's message just before the call. */
  readonly userBefore: string | undefined;
}

interface Conversation {
  readonly calls: readonly RecordedCall[];
  /** The assistant's texts to the user, in order. */
  readonly answer: string;
}

/**
 * The run's calls, each with the tool's answer: the first `tool` message after the call
 * that names its id (ids repeat within a run, so an answer pairs with the oldest call
 * still waiting), and the user's message before it.
 */
function readConversation(run: TaubenchRun, where: string): Conversation {
  const calls: (Omit<RecordedCall, 'output'> & { output?: string })[] = [];
  const waiting: number[] = [];
  const texts: string[] = [];
  let userBefore: string | undefined;
  for (const [position, message] of run.messages.entries()) {
    const role = message['role'];
    if (role === 'user') userBefore = String(message['content'] ?? '');
    if (role === 'tool') {
      const id = message['tool_call_id'];
      const slot = waiting.findIndex((index) => calls[index]?.id === id);
      const [answered] = waiting.splice(slot === -1 ? 0 : slot, 1);
      const call = answered === undefined ? undefined : calls[answered];
      if (call) call.output = String(message['content'] ?? '');
    }
    if (role !== 'assistant') continue;
    if (typeof message['content'] === 'string' && message['content'].trim() !== '')
      texts.push(message['content'].trim());
    const toolCalls = message['tool_calls'];
    if (toolCalls === undefined || toolCalls === null) continue;
    if (!Array.isArray(toolCalls)) {
      throw new EvalInputError(
        'invalid-data',
        `${where}: message ${position + 1}: tool_calls is not a list`,
      );
    }
    for (const call of toolCalls) {
      const named = isRecord(call) ? call['function'] : undefined;
      if (!isRecord(call) || !isRecord(named) || typeof named['name'] !== 'string') {
        throw new EvalInputError(
          'invalid-data',
          `${where}: message ${position + 1}: a tool call needs function.name`,
        );
      }
      waiting.push(calls.length);
      calls.push({
        id: typeof call['id'] === 'string' ? call['id'] : '',
        tool: named['name'],
        args: callArguments(named['arguments']),
        userBefore,
      });
    }
  }
  return {
    calls: calls.map((call) => ({ ...call, output: call.output })),
    answer: texts.join('\n\n'),
  };
}

/** A tool output that reports a failure: nothing was written, the call is rolled back. */
export function isFailedOutput(output: string): boolean {
  return /^\s*Error\b/u.test(output);
}

/** The facts the host knows and no tool shows, for the database's copy of one user. */
export interface TaubenchDatabase {
  readonly users: Readonly<Record<string, unknown>>;
  readonly reservations: Readonly<Record<string, unknown>>;
  readonly flights: Readonly<Record<string, unknown>>;
}

/**
 * The host's observations at the start of a session: the session's user, and the
 * status of every flight of the user's reservations on its date (what no tool shows).
 * Only the predicates the schema declares are observed.
 */
export function hostFacts(schema: Schema, database: TaubenchDatabase, userId: string): EvalStep[] {
  const steps: EvalStep[] = [];
  if (schema.predicates.has('SessionUser'))
    steps.push({ kind: 'observe', observation: { updates: { SessionUser: { user_id: userId } } } });
  if (!schema.predicates.has('FlightStatus')) return steps;
  const user = database.users[userId];
  const reservationIds =
    isRecord(user) && Array.isArray(user['reservations']) ? user['reservations'] : [];
  const seen = new Set<string>();
  const statuses: unknown[] = [];
  for (const reservationId of reservationIds) {
    const reservation =
      typeof reservationId === 'string' ? database.reservations[reservationId] : undefined;
    const flights =
      isRecord(reservation) && Array.isArray(reservation['flights']) ? reservation['flights'] : [];
    for (const flight of flights) {
      if (!isRecord(flight)) continue;
      const number = flight['flight_number'];
      const date = flight['date'];
      if (typeof number !== 'string' || typeof date !== 'string' || seen.has(`${number} ${date}`))
        continue;
      seen.add(`${number} ${date}`);
      const record = database.flights[number];
      const dates = isRecord(record) ? record['dates'] : undefined;
      const day = isRecord(dates) ? dates[date] : undefined;
      const status = isRecord(day) ? day['status'] : undefined;
      if (typeof status !== 'string') continue;
      statuses.push({
        predicate: 'FlightStatus',
        op: 'add',
        values: { flight_number: number, date, status },
      });
    }
  }
  if (statuses.length > 0) steps.push({ kind: 'observe', observation: { updates: statuses } });
  return steps;
}

/**
 * The steps of a recorded run: the host's facts; each assistant tool call proposed
 * (labelled `risky` when it is an unsafe write) with the tool's output as its result —
 * an `Error: …` output is a failed call, rolled back; then the finish with the
 * assistant's texts as the answer (labelled `risky` on a missed-write run: accepting it
 * accepts a task left undone).
 */
export function taubenchSteps(
  schema: Schema,
  run: TaubenchRun,
  database: TaubenchDatabase,
  where: string,
): { steps: EvalStep[]; label: TaubenchLabel } {
  const conversation = readConversation(run, where);
  const calls: TaubenchCall[] = conversation.calls.map((call) => ({
    tool: call.tool,
    args: call.args,
    failed: call.output === undefined || isFailedOutput(call.output),
  }));
  const labelling = labelTaubenchRun(calls, run.groundTruth, run.reward);
  const steps = hostFacts(schema, database, run.userId);
  for (const [position, call] of conversation.calls.entries()) {
    const write = taubenchWriteTools.includes(call.tool);
    // The data's ids repeat within a run; the trace's must name one call each.
    const id = `call-${position + 1}`;
    steps.push({
      kind: 'propose',
      proposal: { action: { name: call.tool, args: call.args } },
      source: 'executed',
      name: call.tool,
      label: labelling.unsafe.has(position) ? 'risky' : 'safe',
      id,
      ...(write && userSaysYes(call.userBefore) ? { approvedByUser: true } : {}),
    });
    if (call.output === undefined) continue;
    if (isFailedOutput(call.output)) {
      steps.push({ kind: 'fail', id });
      continue;
    }
    const observed = toolResultObservation(schema, call.tool, call.output, call.args);
    if (observed !== undefined) steps.push({ kind: 'observe', observation: observed, id });
  }
  const answer = conversation.answer;
  steps.push({
    kind: 'propose',
    proposal: finishProposal(answer),
    source: 'finish',
    name: 'finish',
    label: labelling.label === 'missed-write' ? 'risky' : 'safe',
    ...(answer !== '' ? { answer } : {}),
  });
  return { steps, label: labelling.label };
}

function recordOf(value: unknown, file: string): Readonly<Record<string, unknown>> {
  if (!isRecord(value)) throw new EvalInputError('invalid-data', `${file}: an object keyed by id`);
  return value;
}

/** A case's name: `task-<id>` and its trial, so `--specs DIR/task-<id>.intent` serves every trial. */
export function taubenchCaseId(run: Pick<TaubenchRun, 'taskId' | 'trial'>): string {
  return `task-${run.taskId}-trial-${run.trial}`;
}

/**
 * Reads the airline's recorded runs and database; every malformed record is an
 * `invalid-data` error naming its file and run. `schema` is the one every case is
 * checked against (the tools, and the host's states where it declares them).
 *
 * @example
 * const data = loadTaubench({ trajectories, users, reservations, flights }, schema);
 * data.caseAt(0).id; // 'task-0-trial-0'
 * data.caseAt(0).level; // 'wrong-arguments-write'
 */
export function loadTaubench(texts: TaubenchTexts, schema: Schema): TaubenchData {
  const runsValue = parseDataJson(texts.trajectories, taubenchFiles.trajectories);
  if (!Array.isArray(runsValue)) {
    throw new EvalInputError('invalid-data', `${taubenchFiles.trajectories}: a list of runs`);
  }
  const runs = runsValue.map((value, index) =>
    readRun(value, `${taubenchFiles.trajectories} run ${index}`),
  );
  const database: TaubenchDatabase = {
    users: recordOf(parseDataJson(texts.users, taubenchFiles.users), taubenchFiles.users),
    reservations: recordOf(
      parseDataJson(texts.reservations, taubenchFiles.reservations),
      taubenchFiles.reservations,
    ),
    flights: recordOf(parseDataJson(texts.flights, taubenchFiles.flights), taubenchFiles.flights),
  };
  return {
    runs,
    caseAt(index: number): EvalCase {
      const run = runs[index];
      if (!run)
        throw new EvalInputError('invalid-data', `${taubenchFiles.trajectories}: no run ${index}`);
      const where = `${taubenchFiles.trajectories} run ${index} (task ${run.taskId}, trial ${run.trial})`;
      const { steps, label } = taubenchSteps(schema, run, database, where);
      return {
        id: taubenchCaseId(run),
        index,
        instruction: run.instruction,
        schema,
        schemaName: schema.id,
        risk: label === 'success' || label === 'other-failure' ? 'safe' : 'risky',
        level: label,
        steps,
        now: taubenchNow,
        timeZone: taubenchTimeZone,
      };
    },
  };
}
