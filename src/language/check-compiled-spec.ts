import type { Literal } from './checker/literal.js';
import {
  answerPredicate,
  type CheckedAccess,
  type CheckedArithmetic,
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
import {
  arithmeticKind,
  bindingKind,
  bindingOperators,
  elementShape,
  elementVariable,
  isListShape,
  jsonList,
  projectionShape,
  type Shape,
  shapeOf,
  shapeType,
} from './value-shapes.js';

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
type Bindings = Map<string, { readonly kind: string | undefined; readonly atom: string }>;

interface Where {
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

function fail(path: string, problem: string): never {
  throw new CompiledSpecError(path, problem);
}

/** Structural equality of two read values (key order aside). */
function same(a: unknown, b: unknown): boolean {
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

function typeText(type: VariableType): string {
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

/** The type a literal suggests for a json value (checker/access.ts `naturalType`). */
function naturalType(literal: Literal, operator: Operator): VariableType {
  if (operator.endsWith('matches') || operator.endsWith('contains') || operator.endsWith('~'))
    return { kind: 'text' };
  switch (literal.kind) {
    case 'number':
    case 'boolean':
    case 'date':
    case 'time':
    case 'datetime':
      return { kind: literal.kind };
    case 'relative':
      return { kind: literal.as };
    case 'list': {
      const first = literal.elements[0];
      return first === undefined ? { kind: 'text' } : naturalType(first, '=');
    }
    default:
      return { kind: 'text' };
  }
}

/** What the operator compares, from the subject's shape and the literal (checker/access.ts). */
function comparedType(shape: Shape, literal: Literal, operator: Operator): VariableType {
  if (shape.kind === 'type') return shape.type;
  const natural = naturalType(literal, operator);
  if (shape.kind === 'json' || shape.kind === 'record') return natural;
  return { kind: 'list', element: natural.kind === 'number' ? 'number' : 'text' };
}

/**
 * Walks a path as the checker types it (checker/access.ts `walk`), checking each filter's
 * constraints on the way; returns the shape the path reaches.
 */
function walkSteps(start: Shape, access: CheckedAccess, where: Where): Shape {
  let shape = start;
  access.steps.forEach((step, index) => {
    const at = `${where.path}.access.steps[${index}]`;
    if (step.kind === 'field') {
      if (shape.kind === 'type')
        fail(
          `${at}.name`,
          `a path into a value of type ${typeText(shape.type)}, which has no fields`,
        );
      if (shape.kind === 'record' || shape.kind === 'records') {
        const declared = shape.declaration.record?.fields.find(
          (field) => (field.sourcePath?.[0] ?? field.name) === step.name,
        );
        if (declared === undefined) fail(`${at}.name`, `${step.name} is not a field of the record`);
        shape = shape.kind === 'record' ? shapeOf(declared) : projectionShape(declared);
      }
      return;
    }
    const element = elementShape(shape);
    if (element === undefined) fail(at, 'a filter on a value that is not a list');
    // Only a filter that stands for some element binds (LANGUAGE.md §7).
    const binds =
      !where.negated &&
      (access.function === undefined || access.function === 'any' || access.exists === true) &&
      where.filter === undefined;
    step.constraints.forEach((constraint, inner) => {
      checkConstraint(constraint, element, elementVariable(element), {
        path: `${at}.constraints[${inner}]`,
        bindings: where.bindings,
        atom: `${where.atom}.${index}.${inner}`,
        negated: where.negated,
        filter: { binds, nested: where.filter !== undefined },
      });
    });
    const joins = step.constraints.some(
      (constraint) => constraint.binding !== undefined || constraint.access?.joins === true,
    );
    if ((step.joins === true) !== joins)
      fail(`${at}.joins`, joins ? 'expected true: the filter uses a binding' : 'expected no joins');
    if (shape.kind === 'json') shape = jsonList;
  });
  return shape;
}

/** The shape compared after the path, the function and `as` (checker/access.ts `typeAccess`). */
function accessShape(start: Shape, constraint: CheckedConstraint, where: Where): Shape {
  const access = constraint.access!;
  let shape = walkSteps(start, access, where);
  const joins = access.steps.some((step) => step.kind === 'filter' && step.joins === true);
  if ((access.joins === true) !== joins)
    fail(
      `${where.path}.access.joins`,
      joins ? 'expected true: a filter joins' : 'expected no joins',
    );
  const fn = access.function;
  const at = `${where.path}.access`;
  // A bare filtered list `list[…]` is `count(list[…]) >= 1` (parser.ts), no other.
  if (access.exists === true) {
    if (
      fn !== 'count' ||
      access.steps[access.steps.length - 1]?.kind !== 'filter' ||
      access.coercion !== undefined ||
      constraint.operator !== '>=' ||
      constraint.value.kind !== 'number' ||
      constraint.value.value !== 1
    )
      fail(
        `${at}.exists`,
        'only a bare filtered list, count(list[…]) >= 1, stands for some element',
      );
  }
  if (access.matches !== undefined && fn !== 'count')
    fail(`${at}.matches`, 'a regex on the subject only counts elements: count(list matches /r/)');
  if (fn !== undefined) {
    const element = elementShape(shape);
    if (fn === 'len') {
      if (element === undefined && !(shape.kind === 'type' && shape.type.kind === 'text'))
        fail(`${at}.function`, 'len takes a text or a list');
      shape = { kind: 'type', type: { kind: 'number' } };
    } else if (element === undefined) fail(`${at}.function`, `${fn} takes a list`);
    else if (fn === 'count') {
      const textual =
        element.kind === 'json' || (element.kind === 'type' && element.type.kind === 'text');
      if (access.matches !== undefined && !textual)
        fail(`${at}.matches`, 'only text elements can match a regular expression');
      shape = { kind: 'type', type: { kind: 'number' } };
    } else shape = element;
  }
  if (access.coercion !== undefined) {
    const textual = shape.kind === 'json' || (shape.kind === 'type' && shape.type.kind === 'text');
    if (!textual) fail(`${at}.coercion`, 'only text (and json values) can be read as another type');
    shape = { kind: 'type', type: { kind: access.coercion } };
  }
  return shape;
}

/** The kind of a bound value computed on (checker/access.ts `typeArithmetic`). */
function arithmeticResult(
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
  }
}

const orderOperators = new Set<Operator>(['<', '<=', '>', '>=']);

function checkBinding(constraint: CheckedConstraint, shape: Shape, where: Where): void {
  const binding = constraint.binding!;
  const at = `${where.path}.binding`;
  if (!bindingOperators.includes(constraint.operator))
    fail(`${where.path}.operator`, `a binding is not compared with ${constraint.operator}`);
  if (constraint.value.kind !== 'text' || constraint.value.value !== `$${binding.name}`)
    fail(`${where.path}.value`, `expected the placeholder "$${binding.name}"`);
  if (where.filter?.nested === true) fail(at, 'a binding in a filter inside another filter');
  const isList = isListShape(shape);
  const elementKind = bindingKind(isList ? (elementShape(shape) ?? shape) : shape);
  const recorded = binding.kind;
  if (binding.binds) {
    if (constraint.operator !== '=' || binding.arithmetic !== undefined)
      fail(at, 'only `= $x` binds');
    if (where.negated) fail(at, 'nothing binds inside not');
    if (where.filter !== undefined && !where.filter.binds)
      fail(at, 'this filter does not stand for one element, so it cannot bind');
    const earlier = where.bindings.get(binding.name);
    if (earlier !== undefined && earlier.atom !== where.atom)
      fail(`${at}.name`, `$${binding.name} is bound twice`);
    if (binding.each !== isList) fail(`${at}.each`, `expected ${isList}`);
    if (recorded !== elementKind)
      fail(`${at}.kind`, `expected ${elementKind ?? 'no kind (json values)'}`);
    where.bindings.set(binding.name, { kind: elementKind, atom: where.atom });
    return;
  }
  if (!where.bindings.has(binding.name))
    fail(`${at}.name`, `$${binding.name} is used, and nothing before it binds it`);
  const known = where.bindings.get(binding.name)?.kind;
  const useKind = constraint.operator.endsWith('contains')
    ? isList
      ? elementKind
      : bindingKind(shape) === 'text' || shape.kind === 'json'
        ? (known ?? 'text')
        : bindingKind(shape)
    : elementKind;
  let kind = known ?? useKind;
  if (binding.arithmetic !== undefined) {
    const computed = arithmeticResult(binding.arithmetic, where.bindings, `${at}.arithmetic`);
    if (computed !== undefined && useKind !== undefined && computed !== useKind)
      fail(`${at}.arithmetic`, `computes a ${computed}, compared with a ${useKind}`);
    kind = computed ?? useKind;
  } else if (known !== undefined && useKind !== undefined && known !== useKind)
    fail(`${at}.name`, `$${binding.name} holds ${known} values, compared with a ${useKind}`);
  if (recorded !== kind) fail(`${at}.kind`, `expected ${kind ?? 'no kind (json values)'}`);
  if (binding.each !== (isList && !constraint.operator.endsWith('contains')))
    fail(`${at}.each`, `expected ${isList && !constraint.operator.endsWith('contains')}`);
  if (
    orderOperators.has(constraint.operator) &&
    kind !== undefined &&
    !['number', 'date', 'time', 'datetime'].includes(kind)
  )
    fail(`${where.path}.operator`, `${constraint.operator} does not order ${kind} values`);
}

/** One constraint, as the checker would have typed it on `variable` (of shape `start`). */
function checkConstraint(
  constraint: CheckedConstraint,
  start: Shape,
  variable: VariableDeclaration,
  where: Where,
): void {
  if (constraint.variable !== variable && !same(constraint.variable, variable))
    fail(
      `${where.path}.variable`,
      `expected ${variable.name === 'it' ? 'the element it' : variable.name}`,
    );
  const access = constraint.access;
  const shape = access === undefined ? start : accessShape(start, constraint, where);
  if (constraint.binding !== undefined) {
    if (access !== undefined && !same(access.compared, shapeType(shape)))
      fail(`${where.path}.access.compared`, `expected ${typeText(shapeType(shape))}`);
    checkBinding(constraint, shape, where);
    return;
  }
  // Without a path, the variable's declared type is compared (a json variable as text).
  const compared =
    access === undefined
      ? variable.type
      : comparedType(shape, constraint.value, constraint.operator);
  if (access !== undefined && !same(access.compared, compared))
    fail(`${where.path}.access.compared`, `expected ${typeText(compared)}`);
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

function checkPattern(
  pattern: CheckedPattern,
  path: string,
  bindings: Bindings,
  negated: boolean,
): void {
  const predicate = pattern.predicate;
  const atom = `${pattern.range.start.offset}:${pattern.range.end.offset}`;
  pattern.constraints.forEach((constraint, index) => {
    const at = `${path}.constraints[${index}]`;
    const variable = predicate.variables.find((candidate) => candidate === constraint.variable);
    if (variable === undefined) fail(`${at}.variable`, `expected a variable of ${predicate.name}`);
    checkConstraint(constraint, shapeOf(variable), variable, {
      path: at,
      bindings,
      atom: `${atom}#${index}`,
      negated,
    });
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
  for (const atom of atoms) checkPattern(atom.pattern, atom.path, bindings, atom.negated);
  rule.objectives.forEach((condition, index) => {
    const at = `${path}.objectives[${index}]`;
    if (!objectives.has(condition.name))
      fail(`${at}.name`, `${condition.name} is not the head of a rule`);
    if (condition.count < 0) fail(`${at}.count`, 'expected a count of at least 0');
    if (condition.negated === true && (condition.operator !== '=' || condition.count !== 0))
      fail(at, 'not Name is Name = 0');
  });
}

function checkGuard(guard: CheckedGuard, path: string, schema: Schema): void {
  if (schema.predicates.get(guard.pattern.predicate.name) !== guard.pattern.predicate)
    fail(`${path}.pattern.predicate`, 'a guard names a predicate of the schema');
  checkPattern(guard.pattern, `${path}.pattern`, new Map(), false);
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
): void {
  checkSchema(schema);
  if (!rules.some((rule) => rule.isDone)) fail('$.rules', 'a spec has a Done rule');
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
    checkRule(rule, `$.rules[${index}]`, objectives, schema, bindings);
  });
  guards.forEach((guard, index) => {
    checkGuard(guard, `$.guards[${index}]`, schema);
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
