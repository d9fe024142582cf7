import { type Bindings, checkPattern, fail, type PathCheck } from './check-compiled-spec.js';
import { answerPredicate, type CheckedScope } from './checker/spec.js';

/**
 * A scope (LANGUAGE.md §9) as the checker makes it (checker/universal.ts): state patterns
 * with bindings of their own (in a copy of the bindings outside), nested scopes, and for
 * `forall` a conclusion — its last nested scope — that binds nothing new. Returns the
 * bindings the scope sees.
 */
export function checkCompiledScope(
  scope: CheckedScope,
  path: string,
  outer: Bindings,
  isDone: boolean,
  pathCheck: PathCheck | undefined,
): Bindings {
  const inner = scope.scopes ?? [];
  if (scope.states.length === 0 && inner.length === 0 && scope.comparisons === undefined)
    fail(path, 'a scope holds at least one atom');
  if (scope.scopes !== undefined && inner.length === 0) fail(`${path}.scopes`, 'expected scopes');
  if ((scope.universal as boolean | undefined) === false)
    fail(`${path}.universal`, 'expected true or nothing');
  if (scope.universal === true && inner.length === 0)
    fail(`${path}.scopes`, 'a forall ends with its conclusion');
  const bindings: Bindings = new Map(outer);
  const atoms = scope.states.map((pattern, index) => ({ pattern, at: `${path}.states[${index}]` }));
  atoms.sort((a, b) => a.pattern.range.start.offset - b.pattern.range.start.offset);
  for (const { pattern, at } of atoms) {
    if (pattern.predicate.kind !== 'state')
      fail(`${at}.predicate`, 'a scope ranges over state and results, never an action');
    if (pattern.predicate === answerPredicate && !isDone)
      fail(`${at}.predicate`, 'Answer holds only in Done rules');
    checkPattern(pattern, at, bindings, false, pathCheck);
  }
  // Conditions on bindings read every binding of the scope and those outside it.
  if (scope.comparisons !== undefined) {
    if (pathCheck === undefined)
      fail(`${path}.comparisons`, 'the spec compares bindings, and their check is not given');
    pathCheck.comparisons(scope.comparisons, bindings, path);
  }
  inner.forEach((child, index) => {
    const at = `${path}.scopes[${index}]`;
    const seen = checkCompiledScope(child, at, bindings, isDone, pathCheck);
    if (scope.universal !== true || index !== inner.length - 1) return;
    for (const name of seen.keys())
      if (!bindings.has(name))
        fail(at, `the conclusion of a forall binds $${name}, which its left side does not`);
  });
  return bindings;
}
