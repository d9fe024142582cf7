import { escapeRegExp } from '../../support/escape-regexp.js';
import {
  type ArithmeticOperand,
  type ConstraintNode,
  hasBinding,
  type Operator,
  type PathStep,
  type ValueNode,
} from '../ast.js';
import { durationSeconds } from '../duration.js';
import { mapHint, mapKeysShape, mapValuesShape } from '../map-shapes.js';
import { allowedOperators } from '../operators.js';
import { printSubject, printValue } from '../printer.js';
import { compileRegex } from '../regex.js';
import {
  findField,
  formatType,
  formatVariableType,
  type VariableDeclaration,
  type VariableType,
} from '../schema-model.js';
import { didYouMean } from '../suggest.js';
import {
  arithmeticKind,
  bindingKind,
  bindingOperators,
  elementShape,
  elementVariable,
  extremumKind,
  isListShape,
  json,
  jsonList,
  orderedKinds,
  projectionShape,
  type Shape,
  shapeOf,
  shapeType,
  temporalKinds,
} from '../value-shapes.js';
import { aggregateHint, aggregatesElements, isAggregate } from './aggregates.js';
import { type TypingProblem, typeConstraintValue } from './literal.js';
import type { BindingInfo, NameScope } from './resolve.js';
import type { CheckedAccess, CheckedArithmetic, CheckedConstraint, CheckedStep } from './spec.js';

/**
 * Types the left side of a constraint beyond a plain variable (LANGUAGE.md §7): paths,
 * filters, projections, `count`/`len`/`any`/`each`. A variable whose schema declares
 * no shape (`jsonText`: ToolEmu's plain `object`/`array`, MCP tools without an output
 * schema) is `json` (`list<json>` for a list): its fields are checked at run time, so
 * the checker accepts any field and types the compared value by the literal it meets.
 * A record (`record{...}`, `list<record{...}>`: a shape the schema declares) has typed
 * fields: a path must name one, and the field's type drives the checks as a variable's
 * does.
 */

const numberType: VariableType = { kind: 'number' };

function shapeName(shape: Shape): string {
  if (shape.kind === 'json') return 'json';
  if (shape.kind === 'json-list') return 'list<json>';
  if (shape.kind === 'record' || shape.kind === 'records')
    return formatVariableType(shape.declaration);
  return formatType(shape.type);
}

/** The type a literal suggests when the value it meets has no declared type (`json`). */
function naturalType(node: ValueNode, operator: Operator): VariableType {
  if (operator.endsWith('matches') || operator.endsWith('contains') || operator.endsWith('~'))
    return { kind: 'text' };
  switch (node.kind) {
    case 'number':
      return { kind: 'number' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'date':
    case 'time':
    case 'datetime':
      return { kind: node.kind };
    case 'relative':
      return { kind: node.value === 'now' ? 'datetime' : 'date' };
    case 'list': {
      const first = node.elements[0];
      return first === undefined ? { kind: 'text' } : naturalType(first, '=');
    }
    default:
      return { kind: 'text' };
  }
}

/** What the operator compares, from the subject's shape and the literal. */
function comparedType(shape: Shape, node: ValueNode, operator: Operator): VariableType {
  if (shape.kind === 'type') return shape.type;
  const natural = naturalType(node, operator);
  // A record compared whole is its canonical JSON text, as json is.
  if (shape.kind === 'json' || shape.kind === 'record') return natural;
  return { kind: 'list', element: natural.kind === 'number' ? 'number' : 'text' };
}

interface AccessContext {
  readonly scope: NameScope;
  /** The schema variable the path starts from (its description names the fields). */
  readonly root: VariableDeclaration;
  /**
   * Inside a filter (LANGUAGE.md §7): its constraints may use bindings; they bind only
   * when `binds` (not under `count`/`len`/`each`/`not`, not in a filter of a filter).
   */
  readonly filter?: { readonly binds: boolean; readonly where: string; readonly path: string };
  /** The function of the constraint the path belongs to (a filter under it cannot bind). */
  readonly function?: string;
  /** A filter nested in another filter. */
  readonly nested?: boolean;
  /** The bare filtered list `list[…]` (some element satisfies the filter). */
  readonly exists?: boolean;
  /** The predicate of the pattern, for locating messages. */
  readonly predicate?: string;
}

/** The leftmost binding of arithmetic: the one the constraint is filed under. */
function firstBinding(
  node: ArithmeticOperand,
): Extract<ValueNode, { kind: 'binding' }> | undefined {
  if (node.kind === 'binding') return node;
  if (node.kind !== 'arithmetic' && node.kind !== 'extremum') return undefined;
  return firstBinding(node.left) ?? firstBinding(node.right);
}

const orderOperators = new Set<Operator>(['<', '<=', '>', '>=']);

/**
 * `field = $x` binds `$x` the first time (a projection binds each element in turn);
 * every later use compares with it. Uses before the binder are `unbound-variable`; a use
 * whose type differs from the binder's is `binding-type-mismatch`.
 */
function resolveBinding(
  variable: VariableDeclaration,
  node: ConstraintNode,
  value: Extract<ValueNode, { kind: 'binding' }>,
  arithmetic: Extract<ValueNode, { kind: 'arithmetic' | 'extremum' }> | undefined,
  shape: Shape,
  access: CheckedAccess | undefined,
  text: string,
  context: AccessContext,
): CheckedConstraint | undefined {
  const bindings = context.scope.bindings;
  if (bindings === undefined || context.nested === true) {
    context.scope.diagnostics.report(
      'binding-in-filter',
      { range: value.range },
      { binding: `$${value.name}`, where: 'a filter inside another filter' },
    );
    return undefined;
  }
  if (!bindingOperators.includes(node.operator)) {
    context.scope.diagnostics.report(
      'operator-not-allowed',
      { range: node.range },
      {
        operator: node.operator,
        variable: text,
        type: `a binding ($${value.name})`,
        allowed: bindingOperators.join(' '),
      },
    );
    return undefined;
  }
  const isList = isListShape(shape);
  const elementKind = isList ? bindingKind(elementShape(shape) ?? json) : bindingKind(shape);
  const known = bindings.get(value.name);
  const placeholder = { kind: 'text', value: `$${value.name}` } as const;
  if (known === undefined) {
    const filter = context.filter;
    if (
      filter !== undefined &&
      !filter.binds &&
      node.operator === '=' &&
      arithmetic === undefined
    ) {
      context.scope.diagnostics.report(
        'binding-in-filter',
        { range: value.range },
        { binding: `$${value.name}`, where: filter.where },
      );
      return undefined;
    }
    if (node.operator !== '=' || arithmetic !== undefined || context.scope.negated === true) {
      context.scope.diagnostics.report(
        'unbound-variable',
        { range: value.range },
        {
          binding: `$${value.name}`,
          hint: `Bind it first with a positive equality outside not: field = $${value.name}.`,
        },
      );
      return undefined;
    }
    const binderText =
      filter === undefined ? text : text === 'it' ? filter.path : `${filter.path}.${text}`;
    const boundShape = isList ? (elementShape(shape) ?? json) : shape;
    bindings.set(value.name, {
      kind: elementKind,
      text: binderText,
      range: value.range,
      ...(boundShape.kind === 'json' ? { json: { subject: text } } : {}),
    });
    return {
      variable,
      operator: node.operator,
      value: placeholder,
      node,
      ...(access ? { access } : {}),
      binding: {
        name: value.name,
        binds: true,
        each: isList,
        ...(elementKind ? { kind: elementKind } : {}),
        text: printValue(node.value),
      },
    };
  }
  const useKind = node.operator.endsWith('contains')
    ? isList
      ? elementKind
      : bindingKind(shape) === 'text' || shape.kind === 'json'
        ? (known.kind ?? 'text')
        : bindingKind(shape)
    : isList
      ? elementKind
      : bindingKind(shape);
  let kind = known.kind ?? useKind;
  let computed: CheckedArithmetic | undefined;
  let boundKind = known.kind;
  if (arithmetic !== undefined) {
    const typed = typeArithmetic(arithmetic, bindings, context);
    if (typed === undefined) return undefined;
    boundKind = typed.kind;
    if (typed.kind !== undefined && useKind !== undefined && typed.kind !== useKind) {
      context.scope.diagnostics.report(
        'binding-type-mismatch',
        { range: node.range },
        {
          binding: printValue(arithmetic),
          bound: typed.kind,
          binder: known.text,
          subject: text,
          type: useKind,
        },
      );
      return undefined;
    }
    kind = typed.kind ?? useKind;
    computed = typed.kind === 'date' ? inDays(typed.expression) : typed.expression;
    if (computed === undefined) {
      context.scope.diagnostics.report(
        'binding-type-mismatch',
        { range: arithmetic.range },
        {
          binding: printValue(arithmetic),
          bound: 'date',
          binder: known.text,
          subject: printValue(arithmetic),
          type: 'a duration of whole days (2d)',
        },
      );
      return undefined;
    }
  } else if (known.kind !== undefined && useKind !== undefined && known.kind !== useKind) {
    context.scope.diagnostics.report(
      'binding-type-mismatch',
      { range: node.range },
      {
        binding: `$${value.name}`,
        bound: known.kind,
        binder: known.text,
        subject: text,
        type: useKind,
      },
    );
    return undefined;
  }
  warnJsonTemporal(node, known, boundKind, arithmetic, useKind, shape, isList, text, context);
  if (orderOperators.has(node.operator) && kind !== undefined && !orderedKinds.has(kind)) {
    context.scope.diagnostics.report(
      'operator-not-allowed',
      { range: node.range },
      {
        operator: node.operator,
        variable: text,
        type: kind,
        allowed: '= != contains not contains',
      },
    );
    return undefined;
  }
  return {
    variable,
    operator: node.operator,
    value: placeholder,
    node,
    ...(access ? { access } : {}),
    binding: {
      ...(computed ? { arithmetic: computed } : {}),
      name: value.name,
      binds: false,
      each: isList && !node.operator.endsWith('contains'),
      ...(kind ? { kind } : {}),
      text: printValue(node.value),
    },
  };
}

/**
 * JSON has no dates or times: a tool writes them as text, so a json value never equals,
 * nor orders against, a typed date, time or date-time (LANGUAGE.md §7). Through a binding
 * the checker cannot refuse it — a json value's type is known only at run time — but when
 * one side of the comparison is json and the other typed temporal, the comparison is dead
 * as written: a rule with it never fires, a guard with it fires on every value. Warned,
 * with the fix (`as date` on the json side).
 */
function warnJsonTemporal(
  node: ConstraintNode,
  known: BindingInfo,
  boundKind: string | undefined,
  arithmetic: Extract<ValueNode, { kind: 'arithmetic' | 'extremum' }> | undefined,
  useKind: string | undefined,
  shape: Shape,
  isList: boolean,
  text: string,
  context: AccessContext,
): void {
  // `contains` reads text; arithmetic on a json binding is refused at run time anyway.
  if (node.operator.endsWith('contains')) return;
  const binderJson = known.json !== undefined && arithmetic === undefined;
  const useJson = (isList ? (elementShape(shape) ?? json) : shape).kind === 'json';
  if (binderJson === useJson) return;
  const type = binderJson ? useKind : boundKind;
  if (type === undefined || !temporalKinds.has(type)) return;
  const binding = arithmetic !== undefined ? printValue(arithmetic) : printValue(node.value);
  context.scope.diagnostics.report(
    'json-date-binding',
    { range: node.range },
    {
      type,
      problem: binderJson
        ? `'${binding}' is bound to json values by ${known.text}, and '${text}' compares it as a ${type}`
        : `'${binding}' holds ${type} values (bound by ${known.text}), and '${text}' is json`,
      fix: binderJson
        ? `${known.json?.subject} as ${type} = ${binding} where it is bound`
        : `${text} as ${type} = ${binding}`,
    },
  );
}

/**
 * Types arithmetic per operator (LANGUAGE.md §7): `* /` on numbers; `+ -` on numbers, or
 * a duration added to (or subtracted from) a date, time or date-time, or durations
 * together. `kind` undefined: json, known only at run time (numbers only). Durations are
 * in seconds here (`inDays` converts them for dates).
 */
export function typeArithmetic(
  node: ArithmeticOperand,
  bindings: ReadonlyMap<string, BindingInfo>,
  context: Pick<AccessContext, 'scope'>,
  clockAs?: 'date' | 'time' | 'datetime',
): { readonly kind: string | undefined; readonly expression: CheckedArithmetic } | undefined {
  switch (node.kind) {
    case 'relative': {
      // v3 (LANGUAGE.md §9): a clock word is the session's constant, of the type it is
      // compared with; alone, `now` is a date-time and the other words are dates.
      const as = clockAs ?? (node.value === 'now' ? 'datetime' : 'date');
      if (as === 'time' && node.value !== 'now')
        return mismatch(node, `${node.value} as a time`, undefined, context);
      return { kind: as, expression: { kind: 'clock', word: node.value, as } };
    }
    case 'extremum': {
      const left = typeArithmetic(node.left, bindings, context, clockAs);
      const right = typeArithmetic(node.right, bindings, context, clockAs);
      if (left === undefined || right === undefined) return undefined;
      const kind = extremumKind(left.kind, right.kind);
      if (kind === false)
        return mismatch(node, describeOperands(left.kind, right.kind), left.kind, context);
      return {
        kind,
        expression: {
          kind: 'extremum',
          function: node.function,
          left: left.expression,
          right: right.expression,
        },
      };
    }
    case 'binding': {
      const known = bindings.get(node.name);
      if (known === undefined) {
        context.scope.diagnostics.report(
          'unbound-variable',
          { range: node.range },
          {
            binding: `$${node.name}`,
            hint: `Bind it first with a positive equality before this use: field = $${node.name}.`,
          },
        );
        return undefined;
      }
      return { kind: known.kind, expression: { kind: 'binding', name: node.name } };
    }
    case 'number':
      return { kind: 'number', expression: { kind: 'number', value: node.value } };
    case 'duration': {
      const seconds = durationSeconds(node.value);
      if (seconds === undefined) return mismatch(node, 'a duration', undefined, context);
      return { kind: 'duration', expression: { kind: 'duration', seconds } };
    }
    case 'arithmetic': {
      const left = typeArithmetic(node.left, bindings, context, clockAs);
      const right = typeArithmetic(node.right, bindings, context, clockAs);
      if (left === undefined || right === undefined) return undefined;
      const kind = arithmeticKind(left.kind, node.operator, right.kind);
      if (kind === false)
        return mismatch(node, describeOperands(left.kind, right.kind), left.kind, context);
      return {
        kind,
        expression: {
          kind: 'operation',
          operator: node.operator,
          left: left.expression,
          right: right.expression,
        },
      };
    }
  }
}

function describeOperands(left: string | undefined, right: string | undefined): string {
  return `${left ?? 'json'} and ${right ?? 'json'}`;
}

function mismatch(
  node: ArithmeticOperand,
  type: string,
  bound: string | undefined,
  context: Pick<AccessContext, 'scope'>,
): undefined {
  context.scope.diagnostics.report(
    'binding-type-mismatch',
    { range: node.range },
    {
      binding: printValue(node),
      bound: bound ?? 'json',
      binder: 'its operands',
      subject: printValue(node),
      type: `arithmetic on ${type} (numbers with numbers; durations on dates, times and date-times)`,
    },
  );
  return undefined;
}

/** Durations counted in days, for arithmetic on dates; undefined if one is not whole days. */
export function inDays(expression: CheckedArithmetic): CheckedArithmetic | undefined {
  switch (expression.kind) {
    case 'duration':
      return expression.seconds % 86_400 === 0
        ? { kind: 'duration', seconds: expression.seconds / 86_400 }
        : undefined;
    case 'extremum':
    case 'operation': {
      const left = inDays(expression.left);
      const right = inDays(expression.right);
      return left === undefined || right === undefined ? undefined : { ...expression, left, right };
    }
    default:
      return expression;
  }
}

function invalidPath(
  context: AccessContext,
  node: { readonly range: ConstraintNode['range'] },
  what: string,
  subject: string,
  shape: Shape,
  hint: string,
): undefined {
  context.scope.diagnostics.report(
    'invalid-path',
    { range: node.range },
    { what, subject, type: shapeName(shape), hint },
  );
  return undefined;
}

/** Whether the root's description names a field (as a word); no description says nothing. */
function describesField(root: VariableDeclaration, field: string): boolean {
  const description = root.description;
  if (description === undefined || description.trim() === '') return true;
  return new RegExp(`(^|[^A-Za-z0-9_])${escapeRegExp(field)}([^A-Za-z0-9_]|$)`, 'i').test(
    description,
  );
}

/**
 * A position `[0]` or a map step `m.*` / `keys(m)` (v3): the shape, text and checked step
 * it reaches; `invalid-path` for a position on a non-list, `invalid-map` for a map step on
 * a non-object.
 */
function elementStep(
  step: Extract<PathStep, { kind: 'index' | 'values' | 'keys' }>,
  shape: Shape,
  text: string,
  context: AccessContext,
): { shape: Shape; text: string; step: CheckedStep } | undefined {
  if (step.kind === 'index') {
    const element = elementShape(shape);
    if (element === undefined)
      return invalidPath(
        context,
        step,
        `The position [${step.position}]`,
        text,
        shape,
        'Positions pick one element of a list: list[0] is the first, list[-1] the last.',
      );
    return {
      shape: element,
      text: `${text}[${step.position}]`,
      step: { kind: 'index', position: step.position },
    };
  }
  const values = step.kind === 'values';
  const next = values ? mapValuesShape(shape) : mapKeysShape(shape);
  if (next === undefined) {
    context.scope.diagnostics.report(
      'invalid-map',
      { range: step.range },
      {
        what: values ? '.*' : 'keys(…)',
        subject: text,
        type: shapeName(shape),
        hint: mapHint(shape),
      },
    );
    return undefined;
  }
  return {
    shape: next,
    text: values ? `${text}.*` : `keys(${text})`,
    step: { kind: step.kind },
  };
}

function walk(
  start: Shape,
  startText: string,
  steps: readonly PathStep[],
  context: AccessContext,
): { shape: Shape; steps: CheckedStep[]; text: string } | undefined {
  let shape = start;
  let text = startText;
  const checked: CheckedStep[] = [];
  for (const step of steps) {
    if (step.kind === 'field') {
      const field = step.name.name;
      if (shape.kind === 'type')
        return invalidPath(
          context,
          step.name,
          `The field '.${field}'`,
          text,
          shape,
          'Only records, json values and lists of them have fields; compare the variable itself.',
        );
      if (shape.kind === 'record' || shape.kind === 'records') {
        const record = shape.declaration.record;
        const declared = record === undefined ? undefined : findField(record, field);
        if (declared === undefined) {
          const names = record?.fields.map((candidate) => candidate.name) ?? [];
          return invalidPath(
            context,
            step.name,
            `The field '.${field}'`,
            text,
            shape,
            didYouMean(field, names) || `Its fields are: ${names.join(', ')}.`,
          );
        }
        // The engine reads the key as the tool wrote it (`e-mail` for `e_mail`).
        checked.push({ kind: 'field', name: declared.sourcePath?.[0] ?? declared.name });
        text += `.${field}`;
        shape = shape.kind === 'record' ? shapeOf(declared) : projectionShape(declared);
        continue;
      }
      if (!describesField(context.root, field)) {
        context.scope.diagnostics.report(
          'json-field-not-described',
          { range: step.name.range },
          { field, variable: context.root.name },
        );
      }
      checked.push({ kind: 'field', name: field });
      text += `.${field}`;
      // A field of a list is a projection: the list of that field of every element.
      continue;
    }
    if (step.kind === 'index' || step.kind === 'values' || step.kind === 'keys') {
      const next = elementStep(step, shape, text, context);
      if (next === undefined) return undefined;
      ({ shape, text } = next);
      checked.push(next.step);
      continue;
    }
    const element = elementShape(shape);
    if (element === undefined)
      return invalidPath(
        context,
        step,
        'A filter [...]',
        text,
        shape,
        'Filters select elements of a list.',
      );
    const constraints: CheckedConstraint[] = [];
    let failed = false;
    // Only a filter that stands for some element binds (LANGUAGE.md §7): one under
    // count/len/each or not compares with bindings bound before it.
    const fn = context.function;
    const where =
      context.scope.negated === true
        ? `not ${context.predicate ?? 'P'}(…)`
        : fn !== undefined && fn !== 'any' && context.exists !== true
          ? `${fn}(…)`
          : undefined;
    const filterContext: AccessContext = {
      ...context,
      filter: {
        binds: where === undefined,
        where: where === undefined ? '' : `a filter under ${where}`,
        path: `${text}[…]`,
      },
      nested: context.filter !== undefined,
    };
    for (const inner of step.constraints) {
      const resolved = resolveElementConstraint(element, inner, filterContext);
      if (resolved === undefined) failed = true;
      else constraints.push(resolved);
    }
    if (failed) return undefined;
    const joins = constraints.some(
      (constraint) => constraint.binding !== undefined || constraint.access?.joins === true,
    );
    checked.push({ kind: 'filter', constraints, ...(joins ? { joins } : {}) });
    text += '[…]';
    if (shape.kind === 'json') shape = jsonList;
  }
  return { shape, steps: checked, text };
}

/** A constraint inside a filter: on `it` (the element), or on a field of a json element. */
function resolveElementConstraint(
  element: Shape,
  node: ConstraintNode,
  context: AccessContext,
): CheckedConstraint | undefined {
  const isIt = node.variable.name === 'it';
  const steps: PathStep[] = isIt
    ? [...(node.subject?.steps ?? [])]
    : [{ kind: 'field', name: node.variable }, ...(node.subject?.steps ?? [])];
  return typeAccess(elementVariable(element), element, 'it', steps, node, context);
}

/** Types a constraint whose left side is a path, filter or function of `variable`. */
export function resolveAccess(
  variable: VariableDeclaration,
  node: ConstraintNode,
  scope: NameScope,
): CheckedConstraint | undefined {
  const context: AccessContext = { scope, root: variable };
  return typeAccess(
    variable,
    shapeOf(variable),
    variable.name,
    node.subject?.steps ?? [],
    node,
    context,
  );
}

function typeAccess(
  variable: VariableDeclaration,
  start: Shape,
  startText: string,
  pathSteps: readonly PathStep[],
  node: ConstraintNode,
  context: AccessContext,
): CheckedConstraint | undefined {
  const fn = node.subject?.function;
  const walked = walk(start, startText, pathSteps, {
    ...context,
    ...(fn !== undefined ? { function: fn } : {}),
    ...(node.subject?.exists ? { exists: true } : {}),
  });
  if (walked === undefined) return undefined;
  const joins = walked.steps.some((step) => step.kind === 'filter' && step.joins === true);
  let shape = walked.shape;
  let text = walked.text;
  let matches: CheckedAccess['matches'];
  if (fn !== undefined) {
    const element = elementShape(shape);
    const subjectNode = node.subject ?? node;
    if (fn === 'len') {
      if (element === undefined && !(shape.kind === 'type' && shape.type.kind === 'text'))
        return invalidPath(
          context,
          subjectNode,
          'len(…)',
          text,
          shape,
          'len takes a text or a list.',
        );
      shape = { kind: 'type', type: numberType };
    } else if (element === undefined) {
      return invalidPath(context, subjectNode, `${fn}(…)`, text, shape, `${fn} takes a list.`);
    } else if (isAggregate(fn)) {
      if (!aggregatesElements(element)) {
        context.scope.diagnostics.report(
          'invalid-aggregate',
          { range: subjectNode.range },
          {
            function: fn,
            subject: text,
            type: shapeName(shape),
            hint: aggregateHint(fn, element),
          },
        );
        return undefined;
      }
      shape = { kind: 'type', type: numberType };
    } else if (fn === 'count') {
      const regexNode = node.subject?.matches;
      if (regexNode !== undefined) {
        const textual =
          element.kind === 'json' || (element.kind === 'type' && element.type.kind === 'text');
        if (!textual)
          return invalidPath(
            context,
            regexNode,
            'matches',
            text,
            shape,
            'Only text elements can match a regular expression.',
          );
        const compiled = compileRegex(regexNode.pattern, regexNode.flags);
        // The lexer already reported a pattern that does not compile.
        if (!compiled.ok) return undefined;
        matches = compiled.regex;
      }
      shape = { kind: 'type', type: numberType };
    } else {
      // any/each: the operator compares one element at a time.
      shape = element;
    }
  }
  text = printSubject(node);
  const coercion = node.subject?.as;
  if (coercion !== undefined) {
    const textual = shape.kind === 'json' || (shape.kind === 'type' && shape.type.kind === 'text');
    if (!textual)
      return invalidPath(
        context,
        node.subject ?? node,
        `'as ${coercion}'`,
        text,
        shape,
        'Only text (and json values) can be read as another type.',
      );
    shape = { kind: 'type', type: { kind: coercion } };
  }
  if (hasBinding(node.value)) {
    const access: CheckedAccess | undefined =
      node.subject === undefined && walked.steps.length === 0
        ? undefined
        : {
            steps: walked.steps,
            ...(fn !== undefined ? { function: fn } : {}),
            ...(matches !== undefined ? { matches } : {}),
            compared: shapeType(shape),
            text,
            ...(joins ? { joins } : {}),
            ...(node.subject?.exists ? { exists: true as const } : {}),
            ...(coercion !== undefined ? { coercion } : {}),
          };
    const value = node.value.kind === 'binding' ? node.value : firstBinding(node.value);
    if (value === undefined) {
      context.scope.diagnostics.report(
        'unbound-variable',
        { range: node.value.range },
        { binding: printValue(node.value), hint: 'Arithmetic computes on a binding: $x * 2.' },
      );
      return undefined;
    }
    const arithmetic = node.value.kind === 'binding' ? undefined : node.value;
    return resolveBinding(variable, node, value, arithmetic, shape, access, text, context);
  }
  const compared = comparedType(shape, node.value, node.operator);
  const allowed = allowedOperators(compared);
  if (!allowed.includes(node.operator)) {
    context.scope.diagnostics.report(
      'operator-not-allowed',
      { range: node.range },
      {
        operator: node.operator,
        variable: text,
        type: formatType(compared),
        allowed: allowed.join(' '),
      },
    );
    return undefined;
  }
  const problems: TypingProblem[] = [];
  const value = typeConstraintValue(
    { name: text, type: compared },
    node.operator,
    node.value,
    problems,
  );
  for (const problem of problems) {
    context.scope.diagnostics.report(problem.code, { range: problem.node.range }, problem.data);
  }
  if (value === undefined) return undefined;
  const access: CheckedAccess = {
    steps: walked.steps,
    ...(fn !== undefined ? { function: fn } : {}),
    ...(matches !== undefined ? { matches } : {}),
    compared,
    text,
    ...(joins ? { joins } : {}),
    ...(node.subject?.exists ? { exists: true as const } : {}),
    ...(coercion !== undefined ? { coercion } : {}),
  };
  return { variable, operator: node.operator, value, node, access };
}
