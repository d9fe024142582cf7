import type { GivenNode, ItemNode } from '../ast.js';
import { didYouMean } from '../suggest.js';
import { type NameScope, resolveConstraint, unknownNameHint } from './resolve.js';
import type { CheckedGiven } from './spec.js';

/**
 * The `given P(…)` facts of an intent (LANGUAGE.md §8): each names a state the schema
 * marks `"source": "user"` and sets its variables to constants (`=` only), keys
 * included, so that the fact is one definite instance. A policy states none.
 */
export function resolveGivens(items: readonly ItemNode[], scope: NameScope): CheckedGiven[] {
  const givens: CheckedGiven[] = [];
  for (const item of items) {
    if (item.kind !== 'given') continue;
    const given = resolveGiven(item, scope);
    if (given) givens.push(given);
  }
  return givens;
}

function resolveGiven(node: GivenNode, scope: NameScope): CheckedGiven | undefined {
  const name = node.predicate.name;
  const { diagnostics, schema } = scope;
  if (scope.role === 'policy') {
    diagnostics.report('given-in-policy', { range: node.range }, { name });
    return undefined;
  }
  const predicate = schema.predicates.get(name);
  const userFacts = [...schema.predicates.values()]
    .filter((candidate) => candidate.source === 'user')
    .map((candidate) => candidate.name);
  if (!predicate) {
    const names = [...schema.predicates.keys()];
    diagnostics.report(
      'unknown-predicate',
      { range: node.predicate.range },
      { name, hint: unknownNameHint(name, names, names) },
    );
    return undefined;
  }
  if (predicate.kind !== 'state' || predicate.source !== 'user') {
    diagnostics.report(
      'given-not-user',
      { range: node.predicate.range },
      {
        name,
        hint:
          didYouMean(name, userFacts) ||
          (userFacts.length > 0
            ? `The schema's facts from the user: ${userFacts.join(', ')}.`
            : 'Mark the state with "source": "user" in the schema if the user states it.'),
      },
    );
    return undefined;
  }
  const values: {
    variable: CheckedGiven['values'][number]['variable'];
    value: CheckedGiven['values'][number]['value'];
  }[] = [];
  let valid = true;
  for (const constraint of node.constraints) {
    const wrong =
      constraint.operator !== '='
        ? `'${constraint.operator}' is a condition, not a value; write '='`
        : constraint.subject !== undefined
          ? 'a path or function is not a variable; set the variable itself'
          : constraint.value.kind === 'binding' ||
              constraint.value.kind === 'arithmetic' ||
              constraint.value.kind === 'regex'
            ? 'the value must be a constant'
            : values.some((entry) => entry.variable.name === constraint.variable.name)
              ? `'${constraint.variable.name}' is set twice`
              : undefined;
    if (wrong !== undefined) {
      diagnostics.report('given-not-a-fact', { range: constraint.range }, { problem: wrong });
      valid = false;
      continue;
    }
    const checked = resolveConstraint(predicate, constraint, scope);
    if (!checked) {
      valid = false;
      continue;
    }
    values.push({ variable: checked.variable, value: checked.value });
  }
  const missing = predicate.keys.filter(
    (key) => !values.some((entry) => entry.variable.name === key),
  );
  if (valid && missing.length > 0) {
    diagnostics.report(
      'given-not-a-fact',
      { range: node.range },
      { problem: `the key ${missing.join(', ')} of ${name} must be given, to name one instance` },
    );
    valid = false;
  }
  return valid ? { predicate, values, range: node.range } : undefined;
}
