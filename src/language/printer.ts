import { invisibleOrSurrogateClass } from '../support/printable-text.js';
import {
  type AnnotationNode,
  type ArithmeticOperand,
  type AtomNode,
  arithmeticPrecedence,
  type ConstraintNode,
  type GivenNode,
  type GuardNode,
  type ItemNode,
  type RuleNode,
  type SpecNode,
  type ValueNode,
} from './ast.js';
import { type NumberValue, numberText } from './decimal.js';

/**
 * The canonical ASCII form of a spec: one item per line (annotations on their own
 * lines above their rule), comments kept above the item they were next to, single
 * spaces around operators, `&` between atoms. `print(parse(x))` is a fixed point.
 *
 * @example
 * print(parse('1. A(x=(5, >)) ∧ B(y="k") → Act()').value!.ast)
 * // 'A(x > 5) & B(y = "k") -> Act\n'
 */
export function print(spec: SpecNode): string {
  const lines: string[] = [];
  for (const item of spec.items) lines.push(...printItem(item));
  for (const comment of spec.trailingComments) lines.push(printComment(comment));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

function printComment(text: string): string {
  return text === '' ? '#' : `# ${text}`;
}

export function printItem(item: ItemNode): string[] {
  const lines = item.comments.map(printComment);
  if (item.kind === 'guard') {
    lines.push(printGuard(item));
    return lines;
  }
  if (item.kind === 'given') {
    lines.push(printGiven(item));
    return lines;
  }
  for (const annotation of item.annotations) lines.push(printAnnotation(annotation));
  lines.push(printRule(item));
  return lines;
}

export function printRule(rule: RuleNode): string {
  const label = rule.label ? `${rule.label.name}: ` : '';
  const body = rule.body.length === 0 ? 'true' : rule.body.map(printAtom).join(' & ');
  return `${label}${body} -> ${rule.head.name.name}`;
}

export function printGuard(guard: GuardNode): string {
  const reason = guard.reason === undefined ? '' : ` because ${printString(guard.reason)}`;
  const items = [
    ...guard.constraints.map(printConstraint),
    ...(guard.absent ?? []).map(printAbsent),
  ];
  const comparisons = (guard.comparisons ?? []).map((atom) => ` & ${printAtom(atom)}`).join('');
  return `${guard.mode} ${guard.predicate.name}(${items.join(', ')})${comparisons}${reason}`;
}

export function printGiven(given: GivenNode): string {
  return `given ${given.predicate.name}(${given.constraints.map(printConstraint).join(', ')})`;
}

export function printAnnotation(annotation: AnnotationNode): string {
  if (annotation.kind === 'repeat') {
    const parts = [
      ...(annotation.limit !== undefined ? [String(annotation.limit)] : []),
      ...(annotation.per ? [`per: ${annotation.per.name}`] : []),
    ];
    return parts.length === 0 ? '@repeat' : `@repeat(${parts.join(', ')})`;
  }
  const parts = [
    ...(annotation.category ? [annotation.category] : []),
    ...(annotation.message !== undefined ? [printString(annotation.message)] : []),
  ];
  return parts.length === 0 ? '@confirm' : `@confirm(${parts.join(', ')})`;
}

export function printAtom(atom: AtomNode): string {
  if (atom.kind === 'count') return `${atom.name.name} ${atom.operator} ${printNumber(atom.count)}`;
  if (atom.kind === 'disjunction')
    return `(${atom.alternatives.map((atoms) => atoms.map(printAtom).join(' & ')).join(' | ')})`;
  if (atom.kind === 'scoped-not') return `not (${atom.atoms.map(printAtom).join(' & ')})`;
  if (atom.kind === 'forall')
    return `forall(${atom.condition.map(printAtom).join(' & ')} => ${atom.conclusion.map(printAtom).join(' & ')})`;
  if (atom.kind === 'comparison')
    return `${printArithmetic(atom.left, 0, false)} ${atom.operator} ${printArithmetic(atom.right, 0, false)}`;
  const not = `${atom.negated ? 'not ' : ''}${atom.refused ? 'refused ' : ''}`;
  if (!atom.parenthesized) return `${not}${atom.name.name}`;
  const items = [...atom.constraints.map(printConstraint), ...(atom.absent ?? []).map(printAbsent)];
  return `${not}${atom.name.name}(${items.join(', ')})`;
}

function printAbsent(argument: { readonly name: string }): string {
  return `absent(${argument.name})`;
}

export function printConstraint(constraint: ConstraintNode): string {
  if (constraint.subject?.exists) return printSubject(constraint);
  return `${printSubject(constraint)} ${constraint.operator} ${printValue(constraint.value)}`;
}

/** The left side of a constraint: `x`, `results[name ~ "W"].id`, `count(xs matches /a/)`. */
export function printSubject(constraint: Pick<ConstraintNode, 'variable' | 'subject'>): string {
  const subject = constraint.subject;
  if (subject === undefined) return constraint.variable.name;
  let path = constraint.variable.name;
  for (const step of subject.steps) {
    if (step.kind === 'keys') {
      path = `keys(${path})`;
      continue;
    }
    path +=
      step.kind === 'values'
        ? '.*'
        : step.kind === 'field'
          ? `.${step.name.name}`
          : step.kind === 'index'
            ? `[${step.position}]`
            : `[${step.constraints.map(printConstraint).join(', ')}]`;
  }
  if (subject.matches) path += ` matches ${printValue(subject.matches)}`;
  if (subject.function !== undefined && !subject.exists) path = `${subject.function}(${path})`;
  return subject.as === undefined ? path : `${path} as ${subject.as}`;
}

export function printValue(value: ValueNode): string {
  switch (value.kind) {
    case 'string':
      return printString(value.value);
    case 'number':
      return printNumber(value.value);
    case 'boolean':
      return value.value ? 'true' : 'false';
    case 'date':
    case 'time':
    case 'datetime':
    case 'relative':
    case 'name':
      return value.value;
    case 'list':
      return `[${value.elements.map(printValue).join(', ')}]`;
    case 'regex':
      return `/${value.pattern}/${value.flags}`;
    case 'binding':
      return `$${value.name}`;
    case 'duration':
      return value.value;
    case 'arithmetic':
    case 'extremum':
      return printArithmetic(value, 0, false);
  }
}

/**
 * Arithmetic with the parentheses precedence needs: an operand of a lower level, or on
 * the right of its own level (operators group left to right), is parenthesized.
 */
function printArithmetic(value: ArithmeticOperand, outer: number, right: boolean): string {
  if (value.kind === 'extremum')
    return `${value.function}(${printArithmetic(value.left, 0, false)}, ${printArithmetic(value.right, 0, false)})`;
  if (value.kind !== 'arithmetic') return printValue(value);
  const level = arithmeticPrecedence(value.operator);
  const text = `${printArithmetic(value.left, level, false)} ${value.operator} ${printArithmetic(value.right, level, true)}`;
  return level < outer || (right && level === outer) ? `(${text})` : text;
}

/**
 * Numbers print as the exact decimal they denote, in the shortest form the lexer reads
 * back to the same value: `fmt` may respell a literal (`1_000` → `1000`) but never
 * changes its value.
 */
export function printNumber(value: NumberValue): string {
  return numberText(value);
}

const invisiblePattern = new RegExp(`^[${invisibleOrSurrogateClass}]$`, 'u');

/**
 * Double-quoted, escaping what the lexer would otherwise misread, and every character
 * that cannot be seen or written: controls, format characters such as bidirectional
 * overrides and zero-width joiners (a spec must read as what it means), line separators,
 * and lone surrogates (which a UTF-8 file cannot hold).
 */
export function printString(value: string): string {
  let result = '"';
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0;
    if (character === '"') result += '\\"';
    else if (character === '\\') result += '\\\\';
    else if (character === '\n') result += '\\n';
    else if (character === '\t') result += '\\t';
    else if (invisiblePattern.test(character)) result += `\\u{${code.toString(16)}}`;
    else result += character;
  }
  return `${result}"`;
}
