import { IntentguardError } from '../support/errors.js';
import type { Diagnostic } from './diagnostics/diagnostic.js';

/**
 * What the public parse/check/load functions return: the value when there are no
 * errors, and always every problem found (warnings included). `P` is the kind of
 * problem: diagnostics for specs and schemas, `TraceProblem`s for traces. `unwrap`
 * turns a failure into a thrown `IntentguardDiagnosticsError`.
 */
export type Result<T, P = Diagnostic> =
  | { readonly ok: true; readonly value: T; readonly diagnostics: readonly P[] }
  | { readonly ok: false; readonly value?: undefined; readonly diagnostics: readonly P[] };

export function success<T, P = Diagnostic>(value: T, diagnostics: readonly P[] = []): Result<T, P> {
  return { ok: true, value, diagnostics };
}

export function failure<T, P = Diagnostic>(diagnostics: readonly P[]): Result<T, P> {
  return { ok: false, diagnostics };
}

/** Thrown by `unwrap`; carries the diagnostics as data. Code `invalid-input`. */
export class IntentguardDiagnosticsError extends IntentguardError {
  static override readonly marker = 'intentguard.error.IntentguardDiagnosticsError';
  static readonly errorName = 'IntentguardDiagnosticsError';
  override readonly name = IntentguardDiagnosticsError.errorName;
  override readonly code = 'invalid-input';

  constructor(readonly diagnostics: readonly Diagnostic[]) {
    const first = diagnostics.find((diagnostic) => diagnostic.severity === 'error');
    super({
      code: 'invalid-input',
      message: first ? `${first.code}: ${first.message}` : 'invalid input',
    });
  }
}

/** The value of a successful result; a failure throws `IntentguardDiagnosticsError`. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new IntentguardDiagnosticsError(result.diagnostics);
}
