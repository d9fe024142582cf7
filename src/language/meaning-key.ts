import type { Literal } from './checker/literal.js';
import { literalKey } from './checker/satisfiability.js';
import type {
  CheckedConstraint,
  CheckedPattern,
  CheckedRule,
  CheckedScope,
  Spec,
} from './checker/spec.js';
/**
 * A key for what a spec means, for voting (the formalizer's vote and `MajoritySession`):
 * two specs with the same key get the same verdict for every proposal. It leaves out
 * what cannot change a decision — labels, rule order, the order of atoms in a body and
 * of constraints in a pattern, guard reasons and confirmation messages — and compares
 * values as the engine does: enum members in the schema's spelling, text case- and
 * space-insensitively (every operator compares normalized text, except `~`, whose
 * embeddings may see case), times and dates as numbers (`09:00` is `09:00:00`), members
 * of `in [...]` as a set. Objective names stay: an agent's proposal may name the
 * objective it works on. What it does not normalize (paths, bindings, `absent`, `not`
 * atoms, `per:`, the alternatives of one rule, which share its budget) it keeps as
 * written, so that two specs that differ there never count as one.
 */
export function meaningKey(spec: Spec): string {
  const alternatives = new Map<string, { readonly rule: CheckedRule; readonly bodies: string[] }>();
  const rules: string[] = [];
  for (const rule of spec.rules) {
    if (rule.alternative === undefined) {
      rules.push(`${annotationsKey(rule)}${bodyKey(rule)} -> ${rule.head}`);
      continue;
    }
    // The alternatives of one source rule are one rule with one budget (E5).
    const source = rule.id.slice(0, rule.id.length - rule.alternative.suffix.length);
    const group = alternatives.get(source);
    if (group) group.bodies.push(bodyKey(rule));
    else alternatives.set(source, { rule, bodies: [bodyKey(rule)] });
  }
  for (const { rule, bodies } of alternatives.values())
    rules.push(`${annotationsKey(rule)}{${bodies.sort().join(' | ')}} -> ${rule.head}`);
  const guards = spec.guards.map((guard) => `${guard.mode} ${patternKey(guard.pattern)}`);
  return [...rules.sort(), ...guards.sort()].join('\n');
}

function valueKey(value: Literal, constraint: CheckedConstraint): string {
  if (constraint.binding !== undefined) {
    const { binds, each, text } = constraint.binding;
    return `${binds ? 'bind' : 'use'}${each ? ' each' : ''} ${text}`;
  }
  if ((constraint.operator === '~' || constraint.operator === '!~') && value.kind === 'text')
    return `similar:${value.value.trim()}`;
  if (value.kind === 'list' && (constraint.operator === 'in' || constraint.operator === 'not in'))
    return `{${[...new Set(value.elements.map(literalKey))].sort().join(',')}}`;
  if (value.kind === 'regex') return `/${value.pattern}/${[...value.flags].sort().join('')}`;
  return literalKey(value);
}

function subjectKey(constraint: CheckedConstraint): string {
  const { access } = constraint;
  if (access === undefined) return constraint.variable.name;
  return `${constraint.variable.name}:${access.text}${access.coercion === undefined ? '' : ` as ${access.coercion}`}`;
}

function patternKey(pattern: CheckedPattern): string {
  const constraints = pattern.constraints
    .map(
      (constraint) =>
        `${subjectKey(constraint)} ${constraint.operator} ${valueKey(constraint.value, constraint)}`,
    )
    .sort();
  const absent = (pattern.absent ?? []).map((variable) => `absent(${variable.name})`).sort();
  return `${pattern.predicate.name}(${[...constraints, ...absent].join(', ')})`;
}

function annotationsKey(rule: CheckedRule): string {
  const repeat = rule.repeat
    ? `@repeat(${rule.repeat.limit ?? ''}${rule.repeat.per ? ` per ${rule.repeat.per.name}` : ''})`
    : '';
  return `${rule.confirm ? `@confirm(${rule.confirm.category ?? ''})` : ''}${repeat}`;
}

function bodyKey(rule: CheckedRule): string {
  return [
    ...rule.states.map(patternKey),
    ...(rule.negations ?? []).map((pattern) => `not ${patternKey(pattern)}`),
    ...(rule.action ? [`!${patternKey(rule.action)}`] : []),
    ...rule.objectives.map(
      (condition) => `${condition.name} ${condition.operator} ${condition.count}`,
    ),
    ...(rule.scopes ?? []).map(scopeKey),
  ]
    .sort()
    .join(' & ');
}

/** `not (…)` and `forall(…)` (LANGUAGE.md §9): a forall is the scope it means. */
function scopeKey(scope: CheckedScope): string {
  const atoms = [...scope.states.map(patternKey), ...(scope.scopes ?? []).map(scopeKey)].sort();
  return `not (${atoms.join(' & ')})`;
}
