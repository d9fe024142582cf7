import { type ArithmeticOperand, type ComparisonAtom, hasClockWord } from '../ast.js';
import { printAtom, printValue } from '../printer.js';
import { orderedKinds, temporalKinds } from '../value-shapes.js';
import { inDays, typeArithmetic } from './access.js';
import type { BindingInfo, NameScope } from './resolve.js';
import type { CheckedArithmetic, CheckedComparison } from './spec.js';

/*
 * Conditions on bindings (v3, LANGUAGE.md §9): `$paid - $price <= 600`,
 * `$nonfree = max(0, $bags - 2 * $n)`. Every binding of a comparison must be bound by a
 * pattern of the same rule or guard (a comparison binds nothing), and both sides must be
 * of one type: numbers, or dates, times or date-times with durations and clock words.
 */

function bindingsIn(
  node: ArithmeticOperand,
  into: { name: string; node: ArithmeticOperand }[],
): void {
  if (node.kind === 'binding') into.push({ name: node.name, node });
  else if (node.kind === 'arithmetic' || node.kind === 'extremum') {
    bindingsIn(node.left, into);
    bindingsIn(node.right, into);
  }
}

function typeName(kind: string | undefined): string {
  if (kind === undefined) return 'json (known at run time)';
  if (kind === 'duration') return 'a duration';
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/**
 * Types a comparison against the bindings of its rule or guard (`where` names which, for
 * messages); undefined after reporting an error.
 */
export function resolveComparison(
  atom: ComparisonAtom,
  bindings: ReadonlyMap<string, BindingInfo>,
  scope: NameScope,
  where: 'rule' | 'guard',
): CheckedComparison | undefined {
  const text = printAtom(atom);
  const used: { name: string; node: ArithmeticOperand }[] = [];
  bindingsIn(atom.left, used);
  bindingsIn(atom.right, used);
  if (used.length === 0) {
    scope.diagnostics.report(
      'constant-comparison',
      { range: atom.range },
      { comparison: text, where },
    );
    return undefined;
  }
  let unbound = false;
  for (const { name, node } of used) {
    if (bindings.has(name)) continue;
    scope.diagnostics.report(
      'unbound-comparison',
      { range: node.range },
      { binding: `$${name}`, comparison: text, where },
    );
    unbound = true;
  }
  if (unbound) return undefined;
  const context = { scope };
  let left = typeArithmetic(atom.left, bindings, context);
  let right = typeArithmetic(atom.right, bindings, context);
  if (left === undefined || right === undefined) return undefined;
  // A clock word takes the type of the other side: `$time <= now` reads the time of day.
  if (left.kind !== right.kind) {
    if (right.kind !== undefined && temporalKinds.has(right.kind) && hasClockWord(atom.left))
      left = typeArithmetic(
        atom.left,
        bindings,
        context,
        right.kind as 'date' | 'time' | 'datetime',
      );
    else if (left.kind !== undefined && temporalKinds.has(left.kind) && hasClockWord(atom.right))
      right = typeArithmetic(
        atom.right,
        bindings,
        context,
        left.kind as 'date' | 'time' | 'datetime',
      );
    if (left === undefined || right === undefined) return undefined;
  }
  const mismatch = (hint: string): undefined => {
    scope.diagnostics.report(
      'comparison-type-mismatch',
      { range: atom.range },
      {
        comparison: text,
        left: printValue(atom.left),
        leftType: typeName(left?.kind),
        right: printValue(atom.right),
        rightType: typeName(right?.kind),
        hint,
      },
    );
    return undefined;
  };
  const kind = left.kind ?? right.kind;
  if (left.kind !== undefined && right.kind !== undefined && left.kind !== right.kind)
    return mismatch(
      'Compare numbers with numbers, and dates, times or date-times with their own kind (a duration moves one: $departure - 3h).',
    );
  if (kind === 'duration')
    return mismatch('A duration alone is no value: add it to a date, time or date-time.');
  const computed = atom.left.kind !== 'binding' || atom.right.kind !== 'binding';
  if (kind !== undefined && !orderedKinds.has(kind)) {
    if (computed || (atom.operator !== '=' && atom.operator !== '!='))
      return mismatch(
        `Only numbers, dates, times and date-times are computed on and ordered; ${kind} bindings compare with = and != only.`,
      );
  }
  // Durations on dates count in days (checker/access.ts `inDays`).
  const days = (expression: CheckedArithmetic) =>
    kind === 'date' ? inDays(expression) : expression;
  const leftExpression = days(left.expression);
  const rightExpression = days(right.expression);
  if (leftExpression === undefined || rightExpression === undefined)
    return mismatch('Dates move by whole days (2d); use date-times for hours and minutes.');
  return {
    left: leftExpression,
    operator: atom.operator,
    right: rightExpression,
    ...(kind !== undefined ? { kind } : {}),
    text,
    range: atom.range,
  };
}
