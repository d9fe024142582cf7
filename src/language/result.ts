import type { Diagnostic } from './diagnostics/diagnostic.js';

/**
 * What the public parse/check/load functions return: the value when there are no
 * errors, and always every diagnostic (warnings included). Functions named
 * `…OrThrow` wrap these and throw `IntentguardDiagnosticsError`.
 */
export type Result<T> =
  | { readonly ok: true; readonly value: T; readonly diagnostics: readonly Diagnostic[] }
  | { readonly ok: false; readonly value?: undefined; readonly diagnostics: readonly Diagnostic[] };

export function success<T>(value: T, diagnostics: readonly Diagnostic[] = []): Result<T> {
  return { ok: true, value, diagnostics };
}

export function failure<T>(diagnostics: readonly Diagnostic[]): Result<T> {
  return { ok: false, diagnostics };
}

/** Thrown by the `…OrThrow` variants; carries the diagnostics as data. */
export class IntentguardDiagnosticsError extends Error {
  static readonly errorName = 'IntentguardDiagnosticsError';
  override readonly name = IntentguardDiagnosticsError.errorName;

  constructor(readonly diagnostics: readonly Diagnostic[]) {
    const first = diagnostics.find((diagnostic) => diagnostic.severity === 'error');
    super(first ? `${first.code}: ${first.message}` : 'invalid input');
  }

  static isInstance(value: unknown): value is IntentguardDiagnosticsError {
    return value instanceof Error && value.name === IntentguardDiagnosticsError.errorName;
  }
}

export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw new IntentguardDiagnosticsError(result.diagnostics);
}
