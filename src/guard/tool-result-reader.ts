import type { Schema } from '../language/schema-model.js';
import { IntentguardError } from '../support/errors.js';
import type { toolResultObservation } from './tool-results.js';

/**
 * Where a guard finds the reader of tools' outputs (tool-results.ts). It is registered
 * at once by the root guard (tool-results-eager.ts), and loaded on demand by a page's
 * guard from a compiled spec whose schema declares a tool's result (`loadToolResultReader`),
 * so a page whose schema declares none — a web app's states — never downloads it. A
 * guard over a schema that declares one is refused when it is created without it: a
 * tool's output is never dropped because its reader is missing.
 */

type ToolResultReader = typeof toolResultObservation;

let registered: ToolResultReader | undefined;

export function provideToolResultReader(reader: ToolResultReader): void {
  registered ??= reader;
}

/** Whether the schema declares a tool's result predicate: reading outputs then needs the reader. */
export function declaresToolResults(schema: Schema): boolean {
  for (const predicate of schema.predicates.values())
    if (predicate.resultPredicate !== undefined) return true;
  return false;
}

/** The reader, for a guard over `schema`; undefined where the schema declares no tool result (outputs then observe nothing). */
export function toolResultReader(schema: Schema): ToolResultReader | undefined {
  if (!declaresToolResults(schema)) return undefined;
  if (registered === undefined)
    throw new IntentguardError({
      code: 'missing-part',
      message:
        "The schema declares tools' results, and the reader of tools' outputs is not loaded (loadToolResultReader).",
    });
  return registered;
}

/** Loads and registers the reader (a no-op where it is registered). */
export async function loadToolResultReader(): Promise<void> {
  if (registered === undefined)
    provideToolResultReader((await import('./tool-results.js')).toolResultObservation);
}
