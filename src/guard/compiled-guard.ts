import type { RegexCompiler } from '../language/compiled-spec-format.js';
import { readCompiledSpec } from '../language/read-compiled-spec.js';
import { checkGuardOptions, IntentGuard } from './guard-core.js';
import type { Guard, GuardOptions } from './types.js';

/**
 * A guard from a compiled spec (`intentguard compile`, FORMATS.md §8), for pages and
 * services that enforce specs checked elsewhere: it carries no lexer, parser, checker or
 * diagnostics, and loads the regex engine (re2js) only when the spec has a regex.
 */

/** Whether a (possibly hostile) document holds a regex anywhere, looked for without trusting its shape. */
export function compiledSpecHasRegex(document: unknown): boolean {
  const pending: unknown[] = [document];
  // Bounded like the reader: a document too large for it is refused there anyway.
  for (let seen = 0; pending.length > 0 && seen < 5_000_000; seen++) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (
      !Array.isArray(value) &&
      Object.hasOwn(value, 'kind') &&
      (value as { kind: unknown }).kind === 'regex'
    )
      return true;
    for (const item of Array.isArray(value) ? value : Object.values(value)) pending.push(item);
  }
  return false;
}

/**
 * Reads a compiled spec (which may come from the network: it is validated, and anything
 * malformed throws `CompiledSpecError` with its JSONPath) and starts a guard over it,
 * once the parts the spec needs are loaded. Decides exactly as `createGuard(specText,
 * schema, options)` on the spec it was compiled from.
 *
 * @example
 * const compiled = await (await fetch('/task.compiled.json')).json();
 * const guard = await loadCompiledGuard(compiled, { finishWaitsForResults: false });
 */
export async function loadCompiledGuard(document: unknown, options?: GuardOptions): Promise<Guard> {
  const checked = checkGuardOptions(options);
  let regex: RegexCompiler | undefined;
  // Loaded on demand: a page whose spec has no regex never downloads the engine.
  if (compiledSpecHasRegex(document)) regex = (await import('../language/regex.js')).compileRegex;
  return new IntentGuard(readCompiledSpec(document, regex ? { regex } : {}), checked);
}
