import type { DiagnosticCode, SchemaProblemCode } from '../language/diagnostics/catalog.js';
import {
  createDiagnostic,
  DiagnosticBag,
  type DiagnosticData,
} from '../language/diagnostics/diagnostic.js';
import { failure, type Result, success } from '../language/result.js';
import type { Schema } from '../language/schema-model.js';
import { errorMessage } from '../support/error-message.js';
import { resolveSchemaLimits, type SchemaLimits } from './limits.js';

/** What every loader threads through its helpers: where problems go, and the limits. */
export class LoadContext {
  readonly bag: DiagnosticBag;
  // The same `$ref` target can be reached from many places; report its problems once.
  readonly #reported = new Set<string>();

  constructor(readonly limits: SchemaLimits) {
    this.bag = new DiagnosticBag(limits.maxDiagnostics);
  }

  /** A schema problem told by a reason and an optional hint, under its kind's code. */
  problem(code: SchemaProblemCode, path: string, reason: string, hint?: string): void {
    this.bag.report(code, { path }, hint === undefined ? { reason } : { reason, hint });
  }

  /** Reports a diagnostic unless the same code was already reported at the same path. */
  reportOnce(code: DiagnosticCode, path: string, data: DiagnosticData): void {
    const key = `${code} ${path}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.bag.report(code, { path }, data);
  }
}

/**
 * Runs a loader so that it never throws: an exception (a throwing getter in a value
 * handed in, a bug) becomes a `schema-invalid` error and the load fails closed.
 */
export function runLoader<T = Schema>(
  limits: Partial<SchemaLimits> | undefined,
  load: (context: LoadContext) => T | undefined,
): Result<T> {
  let context: LoadContext | undefined;
  try {
    context = new LoadContext(resolveSchemaLimits(limits));
    const value = load(context);
    if (value === undefined || context.bag.hasErrors) return failure(context.bag.items);
    return success(value, context.bag.items);
  } catch (error) {
    const reason = `The schema could not be read: ${errorMessage(error)}`;
    const diagnostic = createDiagnostic('schema-invalid', { path: '$' }, { reason });
    return failure([...(context?.bag.items ?? []), diagnostic]);
  }
}
