import type { ArithmeticOperator } from './ast.js';
import type { Operator } from './operators.js';
import type { VariableDeclaration, VariableType } from './schema-model.js';

/**
 * What a variable's value is, for paths, filters and functions (LANGUAGE.md §7): a
 * declared type, `json` (`list<json>`: a shape the schema does not declare, read at run
 * time), or a record (a list of records). The checker types paths by these shapes
 * (checker/access.ts), and reading a compiled spec checks its paths by the same ones
 * (check-compiled-spec.ts), so both agree on what a path may reach.
 */
export type Shape =
  | { readonly kind: 'json' }
  | { readonly kind: 'json-list' }
  | { readonly kind: 'type'; readonly type: VariableType }
  /** A record, or (`records`) a list of records: `declaration.record` has the fields. */
  | { readonly kind: 'record'; readonly declaration: VariableDeclaration }
  | { readonly kind: 'records'; readonly declaration: VariableDeclaration };

export const json: Shape = { kind: 'json' };
export const jsonList: Shape = { kind: 'json-list' };

export function shapeOf(variable: VariableDeclaration): Shape {
  const list = variable.type.kind === 'list';
  if (variable.jsonText === true && variable.record !== undefined)
    return { kind: list ? 'records' : 'record', declaration: variable };
  if (variable.jsonText === true) return list ? jsonList : json;
  return { kind: 'type', type: variable.type };
}

/** Whether a shape is a list (of values, json or records). */
export function isListShape(shape: Shape): boolean {
  return (
    shape.kind === 'json-list' ||
    shape.kind === 'records' ||
    (shape.kind === 'type' && shape.type.kind === 'list')
  );
}

/** The element of a list shape, or undefined when the shape is not a list. */
export function elementShape(shape: Shape): Shape | undefined {
  if (shape.kind === 'json' || shape.kind === 'json-list') return json;
  if (shape.kind === 'records')
    return { kind: 'record', declaration: { ...shape.declaration, type: { kind: 'text' } } };
  if (shape.kind === 'record') return undefined;
  if (shape.type.kind === 'list') return { kind: 'type', type: { kind: shape.type.element } };
  return undefined;
}

/**
 * A field of every element of a list of records (a projection). Lists hold text or
 * numbers, so a projection of another scalar type, of lists or of json is `list<json>`:
 * read at run time (LANGUAGE.md §7).
 */
export function projectionShape(field: VariableDeclaration): Shape {
  const shape = shapeOf(field);
  if (shape.kind === 'record')
    return { kind: 'records', declaration: { ...field, type: { kind: 'list', element: 'text' } } };
  if (shape.kind !== 'type') return jsonList;
  const kind = shape.type.kind;
  if (kind === 'text' || kind === 'number')
    return { kind: 'type', type: { kind: 'list', element: kind } };
  if (kind === 'enum') return { kind: 'type', type: { kind: 'list', element: 'text' } };
  return jsonList;
}

/** A shape as a declared type; json is carried as text (its run-time data decides). */
export function shapeType(shape: Shape): VariableType {
  if (shape.kind === 'type') return shape.type;
  return shape.kind === 'json' || shape.kind === 'record'
    ? { kind: 'text' }
    : { kind: 'list', element: 'text' };
}

/** The kind a binding's values have, for type agreement: json is known only at run time. */
export function bindingKind(shape: Shape): string | undefined {
  if (shape.kind !== 'type') return undefined;
  const type = shape.type;
  if (type.kind === 'enum') return 'text';
  return type.kind === 'list' ? type.element : type.kind;
}

/**
 * The `it` of a filter over elements of this shape: the element's record, its declared
 * type, or json.
 */
export function elementVariable(element: Shape): VariableDeclaration {
  return element.kind === 'record' || element.kind === 'records'
    ? { ...element.declaration, name: 'it' }
    : {
        name: 'it',
        type: element.kind === 'type' ? element.type : { kind: 'text' },
        ...(element.kind === 'type' ? {} : { jsonText: true }),
      };
}

/** Operators a binding may be compared with (LANGUAGE.md §7). */
export const bindingOperators: readonly Operator[] = [
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  'contains',
  'not contains',
];

/** The kinds of dates, times and date-times: moved by durations, compared with clock words. */
export const temporalKinds: ReadonlySet<string> = new Set(['date', 'time', 'datetime']);

/** The kinds with an order: what `<`, `min`/`max` and computed conditions on bindings take. */
export const orderedKinds: ReadonlySet<string> = new Set(['number', ...temporalKinds]);

/**
 * The kind of `min(a, b)` / `max(a, b)` (LANGUAGE.md §9) of its operands' kinds: one ordered
 * kind, or undefined when both are json (known at run time); false when they do not type.
 */
export function extremumKind(
  left: string | undefined,
  right: string | undefined,
): string | undefined | false {
  const kind = left ?? right;
  if (kind !== undefined && !orderedKinds.has(kind)) return false;
  if (left !== undefined && right !== undefined && left !== right) return false;
  return kind;
}

/**
 * The kind arithmetic gives its operands' kinds (LANGUAGE.md §7), false when they do not
 * go together: `* /` on numbers; `+ -` on numbers, a duration on a date, time or
 * date-time, or durations together. `undefined`: json, known only at run time (numbers
 * only).
 */
export function arithmeticKind(
  left: string | undefined,
  operator: ArithmeticOperator,
  right: string | undefined,
): string | undefined | false {
  const numeric = (kind: string | undefined) => kind === undefined || kind === 'number';
  if (numeric(left) && numeric(right))
    return left === undefined || right === undefined ? undefined : 'number';
  if (operator === '*' || operator === '/') return false;
  if (left !== undefined && temporalKinds.has(left) && right === 'duration') return left;
  if (operator === '+' && left === 'duration' && right !== undefined && temporalKinds.has(right))
    return right;
  if (left === 'duration' && right === 'duration') return 'duration';
  return false;
}
