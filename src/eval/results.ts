import { isRecord } from '../support/is-record.js';
import { EvalInputError } from './errors.js';
import { caseOutcomes } from './score.js';
import type { CaseResult, EvalResults } from './types.js';

/** The options a resumed run must share with the earlier one: which judges ran. */
const resumedOptions = ['configuration', 'policy'] as const;

/**
 * Reads an earlier results file to resume from: its cases are kept when it is the same
 * benchmark, source and model (and, when `expected.options` is given, the same
 * configuration and policy); anything else is an `invalid-results` error (resuming
 * would mix two evaluations in one report).
 */
export function readResults(
  text: string,
  file: string,
  expected: Pick<EvalResults, 'benchmark' | 'source' | 'model'> &
    Partial<Pick<EvalResults, 'options'>>,
): CaseResult[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EvalInputError('invalid-results', `${file}: not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value) || value['version'] !== 1 || !Array.isArray(value['cases'])) {
    throw new EvalInputError('invalid-results', `${file}: not an intentguard eval results file`);
  }
  for (const key of ['benchmark', 'source', 'model'] as const) {
    if (value[key] !== expected[key]) {
      throw new EvalInputError(
        'invalid-results',
        `${file}: it holds a run with ${key} ${JSON.stringify(value[key])}, not ${JSON.stringify(expected[key])}; use another --out`,
      );
    }
  }
  if (expected.options !== undefined) {
    const options = isRecord(value['options']) ? value['options'] : {};
    for (const key of resumedOptions) {
      if (options[key] !== expected.options[key]) {
        throw new EvalInputError(
          'invalid-results',
          `${file}: it holds a run with ${key} ${JSON.stringify(options[key] ?? null)}, not ${JSON.stringify(expected.options[key] ?? null)}; use another --out`,
        );
      }
    }
  }
  const cases = value['cases'] as unknown[];
  for (const [position, item] of cases.entries()) {
    if (
      !isRecord(item) ||
      typeof item['id'] !== 'string' ||
      typeof item['index'] !== 'number' ||
      !caseOutcomes.includes(item['outcome'] as never) ||
      !isRecord(item['llm']) ||
      !isRecord(item['spec']) ||
      !Array.isArray(item['verdicts'])
    ) {
      throw new EvalInputError(
        'invalid-results',
        `${file}: case ${position + 1} is not a case result`,
      );
    }
  }
  return cases as CaseResult[];
}
