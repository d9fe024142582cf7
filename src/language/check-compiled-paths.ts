import { arithmeticResult, checkCompiledComparisons } from './check-compiled-comparisons.js';
import { checkCompiledScope } from './check-compiled-scopes.js';
import { fail, type PathCheck, same, typeText, type Where } from './check-compiled-spec.js';
import { aggregatesElements, isAggregate } from './checker/aggregates.js';
import type { Literal } from './checker/literal.js';
import type { CheckedAccess, CheckedConstraint } from './checker/spec.js';
import { mapKeysShape, mapValuesShape } from './map-shapes.js';
import type { Operator } from './operators.js';
import type { VariableDeclaration, VariableType } from './schema-model.js';
import {
  bindingKind,
  bindingOperators,
  elementShape,
  elementVariable,
  isListShape,
  jsonList,
  orderedKinds,
  projectionShape,
  type Shape,
  shapeOf,
  shapeType,
} from './value-shapes.js';

/*
 * The checker's type rules for paths, filters and bindings, run on a compiled spec as it is
 * read (K1, check-compiled-spec.ts): the part of that check only a spec with a path or a
 * binding needs. A page loads it with the engine's evaluators of paths, which such a spec
 * needs anyway (engine/on-demand-part.ts); check-compiled-spec.ts refuses a spec with a path
 * or a binding when it is not loaded.
 */

/** How check-compiled-spec.ts checks one constraint: a filter's constraints are checked by it. */
type ConstraintCheck = (
  constraint: CheckedConstraint,
  start: Shape,
  variable: VariableDeclaration,
  where: Where,
) => void;

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
function walkSteps(
  start: Shape,
  access: CheckedAccess,
  where: Where,
  checkConstraint: ConstraintCheck,
): Shape {
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
    if (step.kind === 'values' || step.kind === 'keys') {
      const next = step.kind === 'values' ? mapValuesShape(shape) : mapKeysShape(shape);
      if (next === undefined) fail(at, 'a map step on a value that is not a json object');
      shape = next;
      return;
    }
    if (step.kind === 'index') {
      const element = elementShape(shape);
      if (element === undefined) fail(at, 'a position in a value that is not a list');
      if (!Number.isSafeInteger(step.position)) fail(`${at}.position`, 'a whole number');
      shape = element;
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
function accessShape(
  start: Shape,
  constraint: CheckedConstraint,
  where: Where,
  checkConstraint: ConstraintCheck,
): Shape {
  const access = constraint.access!;
  let shape = walkSteps(start, access, where, checkConstraint);
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
    else if (isAggregate(fn)) {
      if (!aggregatesElements(element)) fail(`${at}.function`, `${fn} takes a list of numbers`);
      shape = { kind: 'type', type: { kind: 'number' } };
    } else if (fn === 'count') {
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
  if (orderOperators.has(constraint.operator) && kind !== undefined && !orderedKinds.has(kind))
    fail(`${where.path}.operator`, `${constraint.operator} does not order ${kind} values`);
}

/**
 * Checks a constraint with a path or a binding on a value of shape `start`: its path, its
 * filters and what it records it compares; returns the type then compared with the
 * literal, or undefined for a binding, checked whole here.
 */
export function checkPathConstraint(
  constraint: CheckedConstraint,
  start: Shape,
  where: Where,
  checkConstraint: ConstraintCheck,
): VariableType | undefined {
  const access = constraint.access;
  const shape =
    access === undefined ? start : accessShape(start, constraint, where, checkConstraint);
  if (constraint.binding !== undefined) {
    if (access !== undefined && !same(access.compared, shapeType(shape)))
      fail(`${where.path}.access.compared`, `expected ${typeText(shapeType(shape))}`);
    checkBinding(constraint, shape, where);
    return undefined;
  }
  const compared = comparedType(shape, constraint.value, constraint.operator);
  if (access !== undefined && !same(access.compared, compared))
    fail(`${where.path}.access.compared`, `expected ${typeText(compared)}`);
  return compared;
}

/** What a reader of compiled specs is given to check paths, bindings and scopes (`PathCheck`). */
export const compiledPathChecks: PathCheck = {
  constraint: checkPathConstraint,
  comparisons: checkCompiledComparisons,
  scope: checkCompiledScope,
};
