/**
 * Why formalization produced no spec, as stable codes (the CLI's `--json` and the
 * API report them; text is rendered from them).
 */
export const formalizeFailureCodes = [
  /** The instruction is empty or too long. */
  'invalid-input',
  /** The spec still had errors after the last repair round. */
  'invalid-spec',
  /** The checker still found discrepancies after the last revision round. */
  'semantic-disagreement',
  /**
   * The spec checked, but uses values the instruction does not give (or drops a number or
   * an approval it asks for), still after one repair (`checkGrounding`).
   */
  'ungrounded-spec',
  /** The checker's replies could not be read as a verdict. */
  'checker-unusable',
  /** A model call failed after its retries (network, HTTP error, timeout, missing replay). */
  'model-error',
  /** The run was aborted. */
  'aborted',
  /** Fewer samples than the quorum produced a valid spec. */
  'no-quorum',
] as const;

export type FormalizeFailureCode = (typeof formalizeFailureCodes)[number];

export interface FormalizeFailure {
  readonly code: FormalizeFailureCode;
  readonly message: string;
}
