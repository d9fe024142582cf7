import type { AtomNode, ComparisonAtom, ScopedNegationAtom, UniversalAtom } from '../ast.js';
import type { SourceRange } from '../source-range.js';
import { resolveComparison } from './comparisons.js';
import { type BindingInfo, type NameScope, resolveAtom } from './resolve.js';
import type { CheckedComparison, CheckedPattern, CheckedScope } from './spec.js';

/*
 * Scoped negation and universals (LANGUAGE.md §9): `not (A & B)` holds when no assignment
 * satisfies its atoms together; `forall(A => B)` is `not (A & not (B))`. Bindings the rule
 * makes anywhere in its body are used inside; bindings first made inside are local to the
 * scope (the same name in a sibling scope is another variable). A scope holds state and
 * result patterns only: objectives do not depend on bindings, and the action is the
 * proposal itself.
 */

/** A scope atom of a rule body, or not one. */
export function isScopeAtom(atom: AtomNode): atom is ScopedNegationAtom | UniversalAtom {
  return atom.kind === 'scoped-not' || atom.kind === 'forall';
}

/**
 * Resolves a scope atom with the rule's bindings (`scope.bindings`, read, never written):
 * its local bindings live in a copy. Undefined when something in it is an error (reported).
 */
export function resolveScope(
  atom: ScopedNegationAtom | UniversalAtom,
  scope: NameScope,
): CheckedScope | undefined {
  const bindings = new Map(scope.bindings ?? []);
  const local: NameScope = { ...scope, bindings, negated: false };
  if (atom.kind === 'scoped-not')
    return resolveConjunction(atom.atoms, local, "'not (…)'", atom.range);
  const condition = resolveConjunction(atom.condition, local, "'forall'", atom.range);
  const before = new Set(bindings.keys());
  const inner = new Map(bindings);
  const conclusion = resolveConjunction(
    atom.conclusion,
    { ...local, bindings: inner },
    "'forall'",
    atom.range,
  );
  let binds = false;
  for (const [name, info] of inner) {
    if (before.has(name)) continue;
    reportNewBinding(name, info, scope);
    binds = true;
  }
  if (condition === undefined || conclusion === undefined || binds) return undefined;
  return {
    ...condition,
    scopes: [...(condition.scopes ?? []), conclusion],
    universal: true,
  };
}

function reportNewBinding(name: string, info: BindingInfo, scope: NameScope): void {
  scope.diagnostics.report('forall-binds', { range: info.range }, { binding: `$${name}` });
}

/** The atoms of one scope, in order: patterns bind as in a body; `not` nests a scope. */
function resolveConjunction(
  atoms: readonly AtomNode[],
  scope: NameScope,
  where: string,
  range: SourceRange,
): CheckedScope | undefined {
  const states: CheckedPattern[] = [];
  const scopes: CheckedScope[] = [];
  const nested: (ScopedNegationAtom | UniversalAtom)[] = [];
  const conditions: ComparisonAtom[] = [];
  let invalid = false;
  for (const atom of atoms) {
    if (isScopeAtom(atom)) {
      nested.push(atom);
      continue;
    }
    if (atom.kind === 'comparison') {
      conditions.push(atom);
      continue;
    }
    if (atom.kind === 'disjunction') {
      scope.diagnostics.report('disjunction-in-scope', { range: atom.range }, { where });
      invalid = true;
      continue;
    }
    const resolved = resolveAtom(atom, scope);
    if (resolved.kind === 'invalid') {
      invalid = true;
    } else if (resolved.kind === 'objective') {
      scope.diagnostics.report(
        'objective-in-scope',
        { range: atom.range },
        { name: resolved.condition.name, where },
      );
      invalid = true;
    } else if (resolved.pattern.predicate.kind === 'action') {
      scope.diagnostics.report(
        'action-in-scope',
        { range: atom.range },
        { name: resolved.pattern.predicate.name, where },
      );
      invalid = true;
    } else if (resolved.kind === 'negation') {
      // `not P(…)` inside a scope is a scope of its own, judged with the scope's bindings.
      scopes.push({ states: [resolved.pattern], range: resolved.pattern.range });
    } else {
      states.push(resolved.pattern);
    }
  }
  // Conditions on bindings (`not (P(price = $q) & $q < $p)`) read every binding the scope
  // sees, wherever in it they are made; they bind nothing.
  const comparisons: CheckedComparison[] = [];
  for (const atom of conditions) {
    const checked = resolveComparison(atom, scope.bindings ?? new Map(), scope, 'rule');
    if (checked === undefined) invalid = true;
    else comparisons.push(checked);
  }
  // Nested scopes see every binding of this one, wherever in it they are made.
  for (const atom of nested) {
    const inner = resolveScope(atom, scope);
    if (inner === undefined) invalid = true;
    else scopes.push(inner);
  }
  if (invalid) return undefined;
  return {
    states,
    ...(comparisons.length > 0 ? { comparisons } : {}),
    ...(scopes.length > 0 ? { scopes } : {}),
    range,
  };
}
