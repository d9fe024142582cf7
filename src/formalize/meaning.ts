import {
  type CheckedConstraint,
  type CheckedPattern,
  type CheckedRule,
  type Literal,
  literalKey,
  type Spec,
} from '../language/index.js';

/**
 * A key for what a spec means, for voting: two samples with the same key get the
 * same verdict for every proposal. It leaves out what cannot change a decision —
 * labels, rule order, the order of atoms in a body and of constraints in a pattern,
 * guard reasons and confirmation messages — and compares values as the engine does:
 * enum members in the schema's spelling, text case- and space-insensitively (every
 * operator compares normalized text, except `~`, whose embeddings may see case),
 * times and dates as numbers (`09:00` is `09:00:00`), members of `in [...]` as a set.
 * Objective names stay: an agent's proposal may name the objective it works on.
 */
export function meaningKey(spec: Spec): string {
  const rules = spec.rules.map(ruleKey).sort();
  const guards = spec.guards.map((guard) => `${guard.mode} ${patternKey(guard.pattern)}`).sort();
  return [...rules, ...guards].join('\n');
}

function valueKey(value: Literal, constraint: CheckedConstraint): string {
  if ((constraint.operator === '~' || constraint.operator === '!~') && value.kind === 'text')
    return `similar:${value.value.trim()}`;
  if (value.kind === 'list' && (constraint.operator === 'in' || constraint.operator === 'not in'))
    return `{${[...new Set(value.elements.map(literalKey))].sort().join(',')}}`;
  if (value.kind === 'regex') return `/${value.pattern}/${[...value.flags].sort().join('')}`;
  return literalKey(value);
}

function patternKey(pattern: CheckedPattern): string {
  const constraints = pattern.constraints
    .map(
      (constraint) =>
        `${constraint.variable.name} ${constraint.operator} ${valueKey(constraint.value, constraint)}`,
    )
    .sort();
  return `${pattern.predicate.name}(${constraints.join(', ')})`;
}

function ruleKey(rule: CheckedRule): string {
  const annotations = [
    rule.confirm ? `@confirm(${rule.confirm.category ?? ''})` : '',
    rule.repeat ? `@repeat(${rule.repeat.limit ?? ''})` : '',
  ].join('');
  const atoms = [
    ...rule.states.map(patternKey),
    ...(rule.action ? [`!${patternKey(rule.action)}`] : []),
    ...rule.objectives.map(
      (condition) => `${condition.name} ${condition.operator} ${condition.count}`,
    ),
  ].sort();
  return `${annotations}${atoms.join(' & ')} -> ${rule.head}`;
}
