import type { checkCompiledComparisons } from './check-compiled-comparisons.js';
import type { checkPathConstraint } from './check-compiled-paths.js';
import type { checkCompiledScope } from './check-compiled-scopes.js';
import type { Literal } from './checker/literal.js';
import {
  answerPredicate,
  type CheckedComparison,
  type CheckedConstraint,
  type CheckedGuard,
  type CheckedPattern,
  type CheckedRule,
} from './checker/spec.js';
import { CompiledSpecError } from './compiled-spec-format.js';
import { allowedOperators, type Operator } from './operators.js';
import type {
  PredicateDeclaration,
  Schema,
  VariableDeclaration,
  VariableType,
} from './schema-model.js';
import { type Shape, shapeOf } from './value-shapes.js';

/**
 * The checker's type rules, run on a compiled spec as it is read (K1): a document is
 * untrusted, and its shapes being right says nothing of its types. A text literal for a
 * number, `~` on a number, a variable of another predicate, a path into a number, an
 * action in a Done rule, `not` on an action, a use of a binding nothing binds, a
 * `@repeat` limit below 1 — each would load and silently change what the spec decides (a
 * guard that never fires), while `source` still shows the spec as written. Every rule of
 * the checker that shapes what a checked spec holds is checked again here, over the
 * compiled form, by the same tables (operators.ts, value-shapes.ts); the first violation
 * throws a `CompiledSpecError` naming where, as a JSONPath.
 *
 * The schema carried in the document is taken as given, apart from its own consistency
 * (a tool's result predicate is the tool's, and observed): what the tools are, and which
 * are critical, only the host can vouch for — `readCompiledSpec(document, { schema })`
 * requires the document's schema to be the host's own.
 */

/**
 * What a rule (or guard) has bound so far: each binding's value kind (undefined: json), and
 * the atom that binds it. The alternatives of one rule share them, as the checker's do
 * (checker/check.ts resolves an atom once for all alternatives), so an atom they share
 * binds in each of them.
 */
export type Bindings = Map<string, { readonly kind: string | undefined; readonly atom: string }>;

export interface Where {
  readonly path: string;
  readonly bindings: Bindings;
  /**
   * The constraint, by its atom's place in the source and its place in the atom: the same
   * in each alternative that shares the atom.
   */
  readonly atom: string;
  /** Inside `not P(…)`: binds nothing. */
  readonly negated: boolean;
  /** Inside a filter: whether it may bind, and whether it is nested in another filter. */
  readonly filter?: { readonly binds: boolean; readonly nested: boolean };
}

export function fail(path: string, problem: string): never {
  throw new CompiledSpecError(path, problem);
}

/** Structural equality of two read values (key order aside). */
export function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  const keysB = Object.keys(b).filter((key) => (b as Record<string, unknown>)[key] !== undefined);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      same((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

export function typeText(type: VariableType): string {
  if (type.kind === 'enum') return `enum[${type.values.join(', ')}]`;
  return type.kind === 'list' ? `list<${type.element}>` : type.kind;
}

/** Whether a literal is a value of a scalar type, as the checker types one (checker/literal.ts). */
function scalarFits(literal: Literal, type: VariableType): boolean {
  switch (type.kind) {
    case 'text':
      return literal.kind === 'text';
    case 'number':
    case 'boolean':
      return literal.kind === type.kind;
    case 'date':
      return literal.kind === 'date' || (literal.kind === 'relative' && literal.as === 'date');
    case 'time':
      return (
        literal.kind === 'time' ||
        (literal.kind === 'relative' && literal.as === 'time' && literal.value === 'now')
      );
    case 'datetime':
      return (
        literal.kind === 'datetime' || (literal.kind === 'relative' && literal.as === 'datetime')
      );
    case 'enum':
      return literal.kind === 'enum' && type.values.includes(literal.value);
    case 'list':
      return false;
  }
}

/**
 * Whether `literal` is what the checker makes of a value compared with `operator` on a
 * value of `type` (checker/literal.ts `typeConstraintValue`).
 */
function literalFits(literal: Literal, operator: Operator, type: VariableType): boolean {
  if (operator === 'matches' || operator === 'not matches') return literal.kind === 'regex';
  const list = (element: VariableType) =>
    literal.kind === 'list' && literal.elements.every((item) => scalarFits(item, element));
  if (type.kind === 'list') {
    const element: VariableType = { kind: type.element };
    if (operator === 'contains' || operator === 'not contains') return scalarFits(literal, element);
    if (operator === '~' || operator === '!~') return literal.kind === 'text';
    return list(element);
  }
  if (operator === 'in' || operator === 'not in') return list(type);
  if (['contains', 'not contains', '~', '!~'].includes(operator)) return literal.kind === 'text';
  return scalarFits(literal, type);
}

/**
 * The check of paths, filters and bindings (check-compiled-paths.ts), of conditions on
 * bindings (check-compiled-comparisons.ts) and of scopes (check-compiled-scopes.ts), given by the reader's caller (`ReadCompiledSpecOptions.pathCheck`,
 * `compiledPathChecks`): only a spec that has them needs it, and such a spec needs the
 * engine's evaluators of paths too, so a page loads it with them (engine/on-demand-part.ts).
 * A spec with a path, a binding or a scope is refused without it: its types are never taken
 * as checked.
 */
export interface PathCheck {
  readonly constraint: typeof checkPathConstraint;
  readonly comparisons: typeof checkCompiledComparisons;
  readonly scope: typeof checkCompiledScope;
}

/** One constraint, as the checker would have typed it on `variable` (of shape `start`). */
function checkConstraint(
  constraint: CheckedConstraint,
  start: Shape,
  variable: VariableDeclaration,
  where: Where,
  pathCheck: PathCheck | undefined,
): void {
  if (constraint.variable !== variable && !same(constraint.variable, variable))
    fail(
      `${where.path}.variable`,
      `expected ${variable.name === 'it' ? 'the element it' : variable.name}`,
    );
  let compared = variable.type;
  // Without a path, the variable's declared type is compared (a json variable as text).
  if (constraint.access !== undefined || constraint.binding !== undefined) {
    if (pathCheck === undefined)
      fail(
        where.path,
        'the spec has a path or a binding, and their check is not given (parts.paths)',
      );
    const typed = pathCheck.constraint(constraint, start, where, (inner, shape, element, at) =>
      checkConstraint(inner, shape, element, at, pathCheck),
    );
    // A binding is checked whole there.
    if (typed === undefined) return;
    compared = typed;
  }
  if (!allowedOperators(compared).includes(constraint.operator))
    fail(
      `${where.path}.operator`,
      `${constraint.operator} is not defined on ${typeText(compared)}`,
    );
  if (!literalFits(constraint.value, constraint.operator, compared))
    fail(
      `${where.path}.value`,
      `not a value for ${constraint.operator} on ${typeText(compared)} (found ${constraint.value.kind})`,
    );
}

export function checkPattern(
  pattern: CheckedPattern,
  path: string,
  bindings: Bindings,
  negated: boolean,
  pathCheck: PathCheck | undefined,
): void {
  const predicate = pattern.predicate;
  const atom = `${pattern.range.start.offset}:${pattern.range.end.offset}`;
  pattern.constraints.forEach((constraint, index) => {
    const at = `${path}.constraints[${index}]`;
    const variable = predicate.variables.find((candidate) => candidate === constraint.variable);
    if (variable === undefined) fail(`${at}.variable`, `expected a variable of ${predicate.name}`);
    checkConstraint(
      constraint,
      shapeOf(variable),
      variable,
      {
        path: at,
        bindings,
        atom: `${atom}#${index}`,
        negated,
      },
      pathCheck,
    );
  });
  pattern.absent?.forEach((variable, index) => {
    if (predicate.kind !== 'action')
      fail(`${path}.absent`, 'absent(…) names arguments of an action');
    if (!predicate.variables.includes(variable))
      fail(`${path}.absent[${index}]`, `expected a variable of ${predicate.name}`);
  });
}

function checkRule(
  rule: CheckedRule,
  path: string,
  objectives: ReadonlySet<string>,
  schema: Schema,
  bindings: Bindings,
  pathCheck: PathCheck | undefined,
): void {
  if (!rule.isDone && (schema.predicates.has(rule.head) || rule.head === answerPredicate.name))
    fail(`${path}.head`, `${rule.head} is a predicate, not an objective`);
  if (rule.isDone && rule.action !== undefined) fail(`${path}.action`, 'a Done rule has no action');
  if (rule.isDone && (rule.confirm !== undefined || rule.repeat !== undefined))
    fail(path, 'a Done rule has no @confirm or @repeat');
  if (rule.alternative !== undefined && !rule.id.endsWith(rule.alternative.suffix))
    fail(`${path}.alternative.suffix`, `the id ${rule.id} does not end with it`);
  const repeat = rule.repeat;
  if (repeat?.limit !== undefined && repeat.limit < 1)
    fail(`${path}.repeat.limit`, 'expected a whole number of at least 1');
  if (repeat?.per !== undefined && !rule.action?.predicate.variables.includes(repeat.per))
    fail(`${path}.repeat.per`, "expected an argument of the rule's action");
  // A binding is bound before it is used: the rule's atoms in the order of the text.
  const atoms: { pattern: CheckedPattern; path: string; negated: boolean }[] = [
    ...rule.states.map((pattern, index) => ({
      pattern,
      path: `${path}.states[${index}]`,
      negated: false,
    })),
    ...(rule.negations ?? []).map((pattern, index) => ({
      pattern,
      path: `${path}.negations[${index}]`,
      negated: true,
    })),
    ...(rule.action ? [{ pattern: rule.action, path: `${path}.action`, negated: false }] : []),
  ];
  for (const atom of atoms) {
    const kind = atom.pattern.predicate.kind;
    if (atom.path.endsWith('.action') ? kind !== 'action' : kind !== 'state')
      fail(
        `${atom.path}.predicate`,
        atom.negated
          ? 'not names a state predicate, never an action'
          : `expected ${atom.path.endsWith('.action') ? 'an action' : 'a state'} predicate`,
      );
    if (atom.pattern.predicate === answerPredicate && !rule.isDone)
      fail(`${atom.path}.predicate`, 'Answer holds only in Done rules');
  }
  atoms.sort(
    (a, b) =>
      a.pattern.range.start.offset - b.pattern.range.start.offset ||
      Number(a.negated) - Number(b.negated),
  );
  for (const atom of atoms)
    checkPattern(atom.pattern, atom.path, bindings, atom.negated, pathCheck);
  checkComparisons(rule.comparisons, bindings, path, pathCheck);
  // Scopes are judged once every binding of the body is made: they see all of them.
  if (rule.scopes !== undefined && pathCheck === undefined)
    fail(`${path}.scopes`, 'the spec has scopes, and their check is not given (parts.paths)');
  rule.scopes?.forEach((scope, index) => {
    pathCheck?.scope(scope, `${path}.scopes[${index}]`, bindings, rule.isDone, pathCheck);
  });
  rule.objectives.forEach((condition, index) => {
    const at = `${path}.objectives[${index}]`;
    if (!objectives.has(condition.name))
      fail(`${at}.name`, `${condition.name} is not the head of a rule`);
    if (condition.count < 0) fail(`${at}.count`, 'expected a count of at least 0');
    if (condition.negated === true && (condition.operator !== '=' || condition.count !== 0))
      fail(at, 'not Name is Name = 0');
  });
}

function checkGuard(
  guard: CheckedGuard,
  path: string,
  schema: Schema,
  pathCheck: PathCheck | undefined,
): void {
  if (schema.predicates.get(guard.pattern.predicate.name) !== guard.pattern.predicate)
    fail(`${path}.pattern.predicate`, 'a guard names a predicate of the schema');
  const bindings: Bindings = new Map();
  checkPattern(guard.pattern, `${path}.pattern`, bindings, false, pathCheck);
  checkComparisons(guard.comparisons, bindings, path, pathCheck);
}

function checkComparisons(
  comparisons: readonly CheckedComparison[] | undefined,
  bindings: Bindings,
  path: string,
  pathCheck: PathCheck | undefined,
): void {
  if (comparisons === undefined) return;
  // Judged by the join, which comes with the check of bindings (parts.paths).
  if (pathCheck === undefined)
    fail(
      `${path}.comparisons`,
      'the spec compares bindings, and their check is not given (parts.paths)',
    );
  pathCheck.comparisons(comparisons, bindings, path);
}

/** The schema's own consistency: a tool's action and its result predicate name each other. */
function checkSchema(schema: Schema): void {
  [...schema.predicates.values()].forEach((predicate: PredicateDeclaration, index) => {
    const at = `$.schema.predicates[${index}]`;
    if (predicate.resultPredicate !== undefined) {
      const result = schema.predicates.get(predicate.resultPredicate);
      if (predicate.kind !== 'action' || result?.resultOf !== predicate.name)
        fail(`${at}.resultPredicate`, 'expected the result predicate of this action');
    }
    if (predicate.resultOf !== undefined) {
      const action = schema.predicates.get(predicate.resultOf);
      if (predicate.kind !== 'state' || action?.resultPredicate !== predicate.name)
        fail(`${at}.resultOf`, 'expected the action whose result this is');
      // Only the tool reports its result (schema/tool-predicates.ts).
      if (predicate.observed !== true || predicate.critical)
        fail(`${at}.observed`, "a tool's result is observed, and not critical");
    }
  });
}

/** Runs the checker's type rules over a compiled spec that was read; throws at the first violation. */
export function checkCompiledSpec(
  schema: Schema,
  rules: readonly CheckedRule[],
  guards: readonly CheckedGuard[],
  pathCheck: PathCheck | undefined,
): void {
  checkSchema(schema);
  if (!rules.some((rule) => rule.isDone)) fail('$.rules', 'a spec has a Done rule');
  checkItems(schema, rules, guards, pathCheck);
}

/** A spec's rules and guards (a composition's policy part's too, its paths moved under `$.policy`). */
export function checkItems(
  schema: Schema,
  rules: readonly CheckedRule[],
  guards: readonly CheckedGuard[],
  pathCheck: PathCheck | undefined,
): void {
  const objectives = new Set(rules.filter((rule) => !rule.isDone).map((rule) => rule.head));
  // The alternatives of a rule share its bindings (by the id they share, before the suffix).
  const shared = new Map<string, Bindings>();
  rules.forEach((rule, index) => {
    const alternative = rule.alternative;
    let bindings: Bindings = new Map();
    if (alternative !== undefined) {
      const base = rule.id.slice(0, rule.id.length - alternative.suffix.length);
      bindings = shared.get(base) ?? bindings;
      shared.set(base, bindings);
    }
    checkRule(rule, `$.rules[${index}]`, objectives, schema, bindings, pathCheck);
  });
  guards.forEach((guard, index) => {
    checkGuard(guard, `$.guards[${index}]`, schema, pathCheck);
  });
}

/** Requires the document's schema to be the host's (`ReadCompiledSpecOptions.schema`), predicate for predicate. */
export function requireSchema(schema: Schema, expected: Schema): void {
  [...schema.predicates.entries()].forEach(([name, predicate], index) => {
    const own = expected.predicates.get(name);
    if (own === undefined || !same(predicate, own))
      fail(
        `$.schema.predicates[${index}]`,
        own === undefined
          ? `${name} is not a predicate of the given schema`
          : `${name} differs from its declaration in the given schema`,
      );
  });
  for (const name of expected.predicates.keys())
    if (!schema.predicates.has(name))
      fail('$.schema.predicates', `${name} of the given schema is missing`);
}
