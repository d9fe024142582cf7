import { checkSpec } from './checker/check.js';
import { checkPolicy } from './checker/composition.js';
import type { Spec } from './checker/spec.js';
import { CompiledSpecError } from './compiled-spec-format.js';
import { writeCompiledSpec } from './write-compiled-spec.js';

/**
 * Ties a compiled spec to its `source` where the parser and checker are loaded anyway
 * (Node: `createGuard(document)`): the source is checked again against the document's
 * schema and compiled, and the document must be exactly that compilation. Reading alone
 * (read-compiled-spec.ts) checks that a document is a spec the checker could have
 * produced; this checks that it is the one its source, which feedback and `explain`
 * quote, produces — so an edited value (`amount > 3000` where the source says 300) is
 * refused.
 */

/** The first place two JSON values differ, as a JSONPath; undefined when they are equal. */
function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (a === b) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return path;
  if (Array.isArray(a) !== Array.isArray(b)) return path;
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let index = 0; index < Math.max(a.length, b.length); index++) {
      const found = firstDifference(a[index], b[index], `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  for (const key of keys) {
    const found = firstDifference(left[key], right[key], `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Throws a `CompiledSpecError` unless `document` is what its source compiles to (`spec`:
 * it, read) — with the policy part, what both sources compile to (`policy`: it, read).
 */
export function requireCompiledFromSource(document: unknown, spec: Spec, policy?: Spec): void {
  const checked = checkSpec(spec.source, spec.schema);
  if (!checked.ok)
    throw new CompiledSpecError('$.source', 'the source does not check against the schema');
  const policyChecked = policy === undefined ? undefined : checkPolicy(policy.source, spec.schema);
  if (policyChecked !== undefined && !policyChecked.ok)
    throw new CompiledSpecError(
      '$.policy.source',
      'the policy source does not check against the schema',
    );
  // Through JSON text, as the document was: undefined fields and key order do not count.
  const compiled: unknown = JSON.parse(
    JSON.stringify(writeCompiledSpec(checked.value, policyChecked?.value)),
  );
  const given: unknown = JSON.parse(JSON.stringify(document));
  const difference = firstDifference(given, compiled, '$');
  if (difference !== undefined)
    throw new CompiledSpecError(difference, 'not what the source compiles to');
}
