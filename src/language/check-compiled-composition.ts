import { checkItems, checkPattern, fail, type PathCheck } from './check-compiled-spec.js';
import type { CheckedGuard, CheckedPattern, CheckedRule } from './checker/spec.js';
import type { Schema, VariableDeclaration } from './schema-model.js';

/**
 * The checker's rules for what only a composition holds (LANGUAGE.md §8), run as a
 * compiled document is read (read-compiled-composition.ts, loaded when a document has
 * them): the intent's `given` facts, and the policy part.
 */

/**
 * The intent's `given` facts (LANGUAGE.md §8), each the pattern `P(x = v, …)`: a state
 * the schema says the user states (`"source": "user"`), each variable set at most once,
 * with `=` to a constant of its type (typed as any constraint is), every key given.
 */
export function checkCompiledGivens(
  givens: readonly CheckedPattern[],
  pathCheck: PathCheck | undefined,
): void {
  givens.forEach((given, index) => {
    const path = `$.givens[${index}]`;
    const predicate = given.predicate;
    if (predicate.kind !== 'state' || predicate.source !== 'user')
      fail(`${path}.predicate`, 'a given fact names a state the user states ("source": "user")');
    if (given.absent !== undefined) fail(`${path}.absent`, 'a given fact has no absent(…)');
    const named = new Set<VariableDeclaration>();
    given.constraints.forEach((constraint, at) => {
      const where = `${path}.constraints[${at}]`;
      if (named.has(constraint.variable))
        fail(`${where}.variable`, `${constraint.variable.name} is set twice`);
      named.add(constraint.variable);
      if (
        constraint.operator !== '=' ||
        constraint.access !== undefined ||
        constraint.binding !== undefined ||
        constraint.value.kind === 'regex'
      )
        fail(where, 'a given fact sets a variable to a constant: variable = value');
    });
    checkPattern(given, path, new Map(), false, pathCheck);
    const missing = predicate.keys.filter(
      (key) => !given.constraints.some((constraint) => constraint.variable.name === key),
    );
    if (missing.length > 0)
      fail(
        `${path}.constraints`,
        `the key ${missing.join(', ')} of ${predicate.name} must be given`,
      );
  });
}

/**
 * What makes the policy part of a composition a policy (LANGUAGE.md §8), beyond the rules
 * every spec follows: no Done rule, and objectives of its own — a head the intent also
 * produces would let one side count the other's. (`refused A(…)` is the intent's alone:
 * its reader resolves the name only in the intent's items.)
 */
export function checkCompiledPolicy(
  rules: readonly CheckedRule[],
  guards: readonly CheckedGuard[],
  intentRules: readonly CheckedRule[],
  pathCheck: PathCheck | undefined,
  schema: Schema,
): void {
  const intentHeads = new Set(intentRules.filter((rule) => !rule.isDone).map((rule) => rule.head));
  rules.forEach((rule, index) => {
    const path = `$.policy.rules[${index}]`;
    if (rule.isDone) fail(`${path}.head`, 'a policy has no Done rule');
    if (intentHeads.has(rule.head))
      fail(`${path}.head`, `${rule.head} is also an objective of the intent`);
  });
  checkItems(schema, rules, guards, pathCheck);
}
