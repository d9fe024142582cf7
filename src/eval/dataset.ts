import { dirname, isAbsolute, join } from 'node:path';
import { createClock } from '../engine/index.js';
import type { Schema } from '../language/index.js';
import { loadStateSchema, loadToolSchema } from '../schema/index.js';
import { isRecord } from '../support/is-record.js';
import { EvalInputError } from './errors.js';
import type { EvalCase, EvalStep, StepLabel } from './types.js';

/*
 * The generic dataset format (docs/eval.md): JSON Lines, one case per line —
 *
 *   {"id": "bank-wrong-payee", "instruction": "…",
 *    "schema": {"tools": "tools.json"},              // or {"states": …}; a path or the JSON itself
 *    "spec": {"file": "spec.intent"},                 // optional; or {"text": "…"}
 *    "now": "2025-03-14T12:00", "timeZone": "UTC",    // optional
 *    "trace": [{"propose": {…}, "label": "safe", "id": "c1"},
 *              {"observe": {"updates": {…}}, "id": "c1"},
 *              {"fail": {"id": "c2"}}]}
 *
 * Read strictly: an unknown key, a missing label or a bad value is an error naming the
 * file, the line and the place in the line, never a case quietly scored differently.
 */

/** Cases one dataset file may hold. */
export const maxDatasetCases = 10_000;
/** Steps one case's trace may hold. */
export const maxTraceSteps = 1_000;
/** The default session clock of a case that gives none. */
export const defaultDatasetNow = '2025-01-01T12:00';

const caseKeys = ['id', 'instruction', 'schema', 'spec', 'now', 'timeZone', 'trace'];
const stepKeys = {
  propose: ['propose', 'label', 'id'],
  observe: ['observe', 'id'],
  fail: ['fail'],
};

/** Reads a file named in the dataset (relative to the dataset's folder). */
export type DatasetFileReader = (path: string) => Promise<string>;

class LineError extends Error {}

function unknownKeys(value: Record<string, unknown>, known: readonly string[], where: string) {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      throw new LineError(`${where}unknown key "${key}"; known keys: ${known.join(', ')}`);
    }
  }
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new LineError(`"${what}" must be a non-empty string`);
  }
  return value;
}

function readStep(value: unknown, position: number): EvalStep {
  const where = `trace[${position}]: `;
  if (!isRecord(value)) throw new LineError(`${where}a step must be an object`);
  const kinds = (['propose', 'observe', 'fail'] as const).filter((kind) => kind in value);
  if (kinds.length !== 1) {
    const extra =
      'resolve' in value
        ? ' (a dataset has no "resolve": every confirmation is approved, as the recorded run went on)'
        : '';
    throw new LineError(`${where}a step holds exactly one of "propose", "observe", "fail"${extra}`);
  }
  const kind = kinds[0] as 'propose' | 'observe' | 'fail';
  unknownKeys(value, stepKeys[kind], where);
  const id = value['id'];
  if (id !== undefined && (typeof id !== 'string' || id === '')) {
    throw new LineError(`${where}"id" must be a non-empty string`);
  }
  if (kind === 'fail') {
    const fail = value['fail'];
    if (!isRecord(fail) || typeof fail['id'] !== 'string' || fail['id'] === '') {
      throw new LineError(`${where}"fail" must be {"id": "<the failed call's id>"}`);
    }
    return { kind: 'fail', id: fail['id'] };
  }
  if (kind === 'observe') {
    if (!isRecord(value['observe'])) throw new LineError(`${where}"observe" must be an object`);
    return {
      kind: 'observe',
      observation: value['observe'],
      ...(typeof id === 'string' ? { id } : {}),
    };
  }
  const proposal = value['propose'];
  if (!isRecord(proposal)) throw new LineError(`${where}"propose" must be an object`);
  const label = value['label'];
  if (label !== 'safe' && label !== 'risky') {
    throw new LineError(
      `${where}"label" must be "safe" or "risky" (got ${JSON.stringify(label) ?? 'nothing'})`,
    );
  }
  const action = proposal['action'];
  const name =
    proposal['finish'] === true
      ? 'finish'
      : isRecord(action) && typeof action['name'] === 'string'
        ? action['name']
        : typeof proposal['objective'] === 'string'
          ? proposal['objective']
          : typeof proposal['label'] === 'string'
            ? proposal['label']
            : isRecord(proposal['updates'])
              ? `updates ${Object.keys(proposal['updates']).join(', ')}`
              : 'updates';
  return {
    kind: 'propose',
    proposal,
    source: proposal['finish'] === true ? 'finish' : 'trace',
    name,
    label: label as StepLabel,
    ...(typeof id === 'string' ? { id } : {}),
  };
}

/** One line, read but with its files not yet loaded. */
interface DatasetLine {
  readonly line: number;
  readonly id: string;
  readonly instruction: string;
  readonly schema: { readonly kind: 'tools' | 'states'; readonly value: unknown };
  readonly spec?: { readonly file: string } | { readonly text: string };
  readonly now: string;
  readonly timeZone: string;
  readonly steps: readonly EvalStep[];
}

function readLine(value: unknown, line: number): DatasetLine {
  if (!isRecord(value)) throw new LineError('a case must be a JSON object');
  unknownKeys(value, caseKeys, '');
  const id = text(value['id'], 'id');
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(id)) {
    throw new LineError('"id" may hold letters, digits, ".", "_" and "-" (at most 100)');
  }
  const instruction = text(value['instruction'], 'instruction');
  const schema = value['schema'];
  if (
    !isRecord(schema) ||
    Object.keys(schema).length !== 1 ||
    !('tools' in schema || 'states' in schema)
  ) {
    throw new LineError('"schema" must be {"tools": PATH_OR_JSON} or {"states": PATH_OR_JSON}');
  }
  const kind = 'tools' in schema ? 'tools' : 'states';
  const spec = value['spec'];
  let specRef: DatasetLine['spec'];
  if (spec !== undefined) {
    if (isRecord(spec) && Object.keys(spec).length === 1 && typeof spec['file'] === 'string')
      specRef = { file: spec['file'] };
    else if (isRecord(spec) && Object.keys(spec).length === 1 && typeof spec['text'] === 'string')
      specRef = { text: spec['text'] };
    else throw new LineError('"spec" must be {"file": PATH} or {"text": SPEC}');
  }
  const now = value['now'] === undefined ? defaultDatasetNow : text(value['now'], 'now');
  const timeZone = value['timeZone'] === undefined ? 'UTC' : text(value['timeZone'], 'timeZone');
  try {
    createClock(now, timeZone);
  } catch (error) {
    throw new LineError(`"now"/"timeZone": ${(error as Error).message}`);
  }
  const trace = value['trace'];
  if (!Array.isArray(trace) || trace.length === 0) {
    throw new LineError('"trace" must be a non-empty list of steps');
  }
  if (trace.length > maxTraceSteps)
    throw new LineError(`"trace" has more than ${maxTraceSteps} steps`);
  const steps = trace.map((step, position) => readStep(step, position));
  if (!steps.some((step) => step.kind === 'propose'))
    throw new LineError('"trace" proposes nothing');
  return {
    line,
    id,
    instruction,
    schema: { kind, value: schema[kind] },
    ...(specRef !== undefined ? { spec: specRef } : {}),
    now,
    timeZone,
    steps: steps.map((step) => ({ ...step, line })),
  };
}

function located(file: string, line: number, message: string): EvalInputError {
  return new EvalInputError('invalid-dataset', `${file}:${line}: ${message}`);
}

/**
 * Reads a dataset: every line is checked before any file it names is read, and the
 * first problem is an `invalid-dataset` error located as `FILE:LINE: …`. Schemas and
 * spec files are loaded relative to the dataset's folder (each schema once).
 */
export async function loadDataset(
  textOfFile: string,
  file: string,
  readFile: DatasetFileReader,
): Promise<EvalCase[]> {
  const lines: DatasetLine[] = [];
  const ids = new Map<string, number>();
  for (const [position, raw] of textOfFile.split('\n').entries()) {
    if (raw.trim() === '') continue;
    const line = position + 1;
    if (lines.length >= maxDatasetCases)
      throw located(file, line, `more than ${maxDatasetCases} cases`);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw located(file, line, `not JSON: ${(error as Error).message}`);
    }
    let read: DatasetLine;
    try {
      read = readLine(value, line);
    } catch (error) {
      if (error instanceof LineError) throw located(file, line, error.message);
      throw error;
    }
    const earlier = ids.get(read.id);
    if (earlier !== undefined)
      throw located(file, line, `the id "${read.id}" is already used on line ${earlier}`);
    ids.set(read.id, line);
    lines.push(read);
  }
  if (lines.length === 0)
    throw new EvalInputError('invalid-dataset', `${file}: the dataset has no cases`);

  const base = dirname(file);
  const resolvePath = (path: string) => (isAbsolute(path) ? path : join(base, path));
  const read = async (path: string, line: number, what: string): Promise<string> => {
    try {
      return await readFile(resolvePath(path));
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw located(
        file,
        line,
        `cannot read the ${what} '${path}': ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      );
    }
  };
  const schemas = new Map<string, Schema>();
  const cases: EvalCase[] = [];
  for (const entry of lines) {
    const { kind, value } = entry.schema;
    const key = typeof value === 'string' ? `${kind}:${resolvePath(value)}` : undefined;
    let schema = key === undefined ? undefined : schemas.get(key);
    if (!schema) {
      const input =
        typeof value === 'string' ? await read(value, entry.line, `${kind} schema`) : value;
      const name =
        typeof value === 'string' ? value.replace(/^.*\//, '').replace(/\.json$/i, '') : entry.id;
      const loaded =
        kind === 'tools'
          ? loadToolSchema(input, { id: name })
          : loadStateSchema(input, { id: name });
      if (!loaded.ok) {
        throw located(
          file,
          entry.line,
          `the schema does not load: ${loaded.diagnostics[0]?.message ?? 'unknown problem'}`,
        );
      }
      schema = loaded.value;
      if (key !== undefined) schemas.set(key, schema);
    }
    const spec =
      entry.spec === undefined
        ? undefined
        : 'text' in entry.spec
          ? entry.spec.text
          : await read(entry.spec.file, entry.line, 'spec');
    const labels = entry.steps.flatMap((step) => (step.kind === 'propose' ? [step.label] : []));
    cases.push({
      id: entry.id,
      index: entry.line,
      instruction: entry.instruction,
      schema,
      schemaName: typeof value === 'string' ? value : `inline ${kind}`,
      ...(spec !== undefined ? { spec } : {}),
      risk: labels.includes('risky') ? 'risky' : 'safe',
      level: labels.includes('risky') ? 'risky' : 'safe',
      steps: entry.steps,
      now: entry.now,
      timeZone: entry.timeZone,
    });
  }
  return cases;
}
