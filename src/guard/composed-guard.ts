import { readCompiledComposition } from '../language/read-compiled-composition.js';
import type { Schema } from '../language/schema-model.js';
import { partsFor, readerFor } from './compiled-guard.js';
import { composedOptions } from './composed-options.js';
import { checkGuardOptions, IntentGuard } from './intent-guard.js';
import type { Guard, GuardOptions } from './types.js';

/**
 * Reads a compiled composition — a spec and the operator's policy, `intentguard compile
 * --policy` — and starts a guard that enforces both (LANGUAGE.md §8), once the parts they
 * need are loaded (the composition itself among them, on demand). A page's counterpart of
 * `loadCompiledGuard`, which refuses a composition (its `policy` is a field it does not
 * read): a page that composes imports this one, and a page that does not never carries
 * the composition's reader. The document must hold its policy part — one stripped of it
 * is refused at `$`, so a page that pins a composition never runs the spec alone — and
 * every part of it is validated as a compiled spec is (`CompiledSpecError` at its JSONPath).
 *
 * @example
 * const compiled = await (await fetch('/task.composed.json')).json();
 * const guard = await loadComposedGuard(compiled, { finishWaitsForResults: false }, schema);
 */
export async function loadComposedGuard(
  document: unknown,
  options?: GuardOptions,
  schema?: Schema,
): Promise<Guard> {
  const checked = checkGuardOptions(options);
  const { early, read: readOptions } = await readerFor(document, checked.parts, schema);
  const read = readCompiledComposition(document, { ...readOptions, requirePolicy: true });
  const composed = composedOptions(read, checked, 'loadComposedGuard');
  let parts = checked.parts;
  if (parts === undefined && read.policy !== undefined) {
    // What the policy needs (its guards' text, its paths), then the spec and the composition.
    const { policy: _policy, ...withoutPolicy } = checked;
    parts = await partsFor(read.policy, withoutPolicy, early);
    parts = await partsFor(read.intent, composed, parts);
  }
  return new IntentGuard(read.intent, { ...composed, ...(parts ? { parts } : {}) });
}
