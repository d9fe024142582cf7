import type { EngineParts } from '../engine/engine-parts.js';
import type { Schema } from '../language/schema-model.js';
import { IntentguardError } from '../support/errors.js';
import type { toolResultObservation } from './tool-results.js';

/** The reader of tools' outputs (tool-results.ts). */
export type ToolResultReader = typeof toolResultObservation;

/**
 * The parts a guard is given (`GuardOptions.parts`): the engine's (engine-parts.ts) and
 * the reader of tools' outputs. The guard's Node entry points (`createGuard`,
 * `restoreGuard`) give all of them by default (all-guard-parts.ts); a page's guard from
 * a compiled spec loads the reader only when its schema declares a tool's result, so a
 * page whose schema declares none — a web app's states — never downloads it.
 */
export interface GuardParts extends EngineParts {
  /**
   * Without it, a guard over a schema that declares a tool's result is refused when it is
   * created: a tool's output is never dropped because its reader is missing.
   */
  readonly toolResults?: ToolResultReader;
}

/** Whether the schema declares a tool's result predicate: reading outputs then needs the reader. */
export function declaresToolResults(schema: Schema): boolean {
  for (const predicate of schema.predicates.values())
    if (predicate.resultPredicate !== undefined) return true;
  return false;
}

/** The reader, for a guard over `schema`; undefined where the schema declares no tool result (outputs then observe nothing). */
export function toolResultReader(schema: Schema, parts: GuardParts): ToolResultReader | undefined {
  if (!declaresToolResults(schema)) return undefined;
  if (parts.toolResults === undefined)
    throw new IntentguardError({
      code: 'missing-part',
      message:
        "The schema declares tools' results, and the reader of tools' outputs is not given (parts.toolResults).",
    });
  return parts.toolResults;
}

/** Loads the reader, for a page's guard (with the engine's on-demand part: tool-results-part.ts). */
export async function loadToolResultReader(): Promise<ToolResultReader> {
  return (await import('./tool-results-part.js')).toolResultObservation;
}
