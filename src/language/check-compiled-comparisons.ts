import { type Bindings, fail } from './check-compiled-spec.js';
import type { CheckedArithmetic, CheckedComparison } from './checker/spec.js';
import { arithmeticKind, extremumKind, orderedKinds } from './value-shapes.js';

/*
 * Conditions on bindings (v3, LANGUAGE.md §9) and the arithmetic of bindings, typed as a
 * compiled spec is read, as the checker types them (checker/comparisons.ts, access.ts).
 * Only a spec with bindings has them, so they come with the check of paths
 * (`compiledPathChecks`, an engine part a page loads on demand).
 */

/** The kind of a bound value computed on (checker/access.ts `typeArithmetic`). */
export function arithmeticResult(
  expression: CheckedArithmetic,
  bindings: Bindings,
  path: string,
): string | undefined {
  switch (expression.kind) {
    case 'binding':
      if (!bindings.has(expression.name))
        fail(`${path}.name`, `$${expression.name} is used before anything binds it`);
      return bindings.get(expression.name)?.kind;
    case 'number':
      return 'number';
    case 'duration':
      if (!Number.isFinite(expression.seconds))
        fail(`${path}.seconds`, 'expected a finite duration');
      return 'duration';
    case 'operation': {
      const left = arithmeticResult(expression.left, bindings, `${path}.left`);
      const right = arithmeticResult(expression.right, bindings, `${path}.right`);
      const kind = arithmeticKind(left, expression.operator, right);
      if (kind === false)
        fail(path, `arithmetic on ${left ?? 'json'} and ${right ?? 'json'} does not type`);
      return kind;
    }
    case 'clock':
      if (expression.as === 'time' && expression.word !== 'now')
        fail(`${path}.word`, `${expression.word} is no time of day`);
      return expression.as;
    case 'extremum': {
      const left = arithmeticResult(expression.left, bindings, `${path}.left`);
      const right = arithmeticResult(expression.right, bindings, `${path}.right`);
      const kind = extremumKind(left, right);
      if (kind === false)
        fail(
          path,
          `${expression.function} of ${left ?? 'json'} and ${right ?? 'json'} does not type`,
        );
      return kind;
    }
  }
}

/**
 * A condition on bindings (v3) as the checker types it (checker/comparisons.ts): every
 * binding bound by a pattern of its rule or guard, both sides of one type, `kind` that type.
 */
function checkComparison(comparison: CheckedComparison, bindings: Bindings, path: string): void {
  const left = arithmeticResult(comparison.left, bindings, `${path}.left`);
  const right = arithmeticResult(comparison.right, bindings, `${path}.right`);
  const kind = left ?? right;
  if (left !== undefined && right !== undefined && left !== right)
    fail(path, `compares ${left} with ${right}`);
  if (comparison.kind !== kind) fail(`${path}.kind`, `expected ${kind ?? 'none (json)'}`);
  if (kind === 'duration') fail(path, 'a duration alone is no value');
  const plain = comparison.left.kind === 'binding' && comparison.right.kind === 'binding';
  if (
    kind !== undefined &&
    !orderedKinds.has(kind) &&
    (!plain || (comparison.operator !== '=' && comparison.operator !== '!='))
  )
    fail(path, `${kind} bindings compare with = and != only`);
}

/** A rule's or guard's conditions on its bindings, at `path` (`comparisons[i]` under it). */
export function checkCompiledComparisons(
  comparisons: readonly CheckedComparison[],
  bindings: Bindings,
  path: string,
): void {
  comparisons.forEach((comparison, index) => {
    checkComparison(comparison, bindings, `${path}.comparisons[${index}]`);
  });
}
