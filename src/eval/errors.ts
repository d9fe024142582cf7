import { IntentguardError } from '../language/index.js';

/** Stable codes of the evaluation harness's input errors. */
export type EvalInputErrorCode =
  /** The benchmark's data folder or one of its files is missing or unreadable. */
  | 'missing-data'
  /** A data file is not what it should be (not JSON, wrong shape, labels missing). */
  | 'invalid-data'
  /** A dataset line is malformed. */
  | 'invalid-dataset'
  /** `--cases` is not a list of indexes and ranges within the benchmark. */
  | 'invalid-case-range'
  /** A spec named by `--specs` is missing. */
  | 'missing-spec'
  /** An earlier results file that cannot be resumed. */
  | 'invalid-results';

/**
 * Input the harness cannot evaluate — located (file and line) where it has a place.
 * The command line turns it into exit code 2.
 */
export class EvalInputError extends IntentguardError {
  static override readonly marker = 'intentguard.error.EvalInputError';
  static readonly errorName = 'IntentguardEvalInputError';
  override readonly name = EvalInputError.errorName;
  override readonly code: EvalInputErrorCode;

  constructor(code: EvalInputErrorCode, message: string) {
    super({ code, message });
    this.code = code;
  }
}

/** A data file's JSON; text that is not JSON is an `invalid-data` error naming the file. */
export function parseDataJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new EvalInputError('invalid-data', `${file}: not JSON: ${(error as Error).message}`);
  }
}
