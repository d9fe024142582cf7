import type { CheckedScope } from '../language/index.js';
import type { SessionClock } from './clock.js';
import type { CompiledRule, CompiledSpec } from './compiled-spec.js';
import { describePattern, joinWords } from './describe.js';
import { comparisonsText, plainComparison } from './describe-comparisons.js';
import { requirePart } from './engine-parts.js';
import type { UnmetCondition } from './evaluation.js';
import type { JoinPlan } from './join.js';
import { cutText } from './values.js';
import type { Reason } from './verdict.js';

/**
 * The reason a rule's `not (…)` or `forall(…)` does not hold (LANGUAGE.md §9), naming
 * what its search found: for `forall(A => B)`, the instances of A still without B
 * (`$r = "CCC333"`), so that an agent stopped before Done over a set knows which remain.
 */
export function scopeReason(
  spec: CompiledSpec,
  rule: CompiledRule,
  unmet: Extract<UnmetCondition, { kind: 'scope' }>,
  clock: SessionClock,
  maxEcho: number,
): Reason {
  const source: CheckedScope | undefined = rule.source.scopes?.[unmet.scope];
  const plan = rule.join?.scopes?.[unmet.scope];
  const wanted = source === undefined ? 'the scope' : describeScope(source, plan, clock);
  const { boundText } = requirePart(spec.parts, 'paths');
  const found = unmet.assignments.map((assignment) =>
    assignment.length === 0
      ? 'one'
      : joinWords(
          assignment.map(({ name, value }) => `$${name} = ${cutText(boundText(value), maxEcho)}`),
        ),
  );
  const universal = source?.universal === true;
  if (found.length === 0)
    return {
      code: 'unmet-conditions',
      rule: rule.id,
      expected: universal ? 'every instance' : 'none',
      actual: 'too many steps',
      message: `It must be that ${wanted}; the search took too many steps to establish it, and counts as failing.`,
    };
  const more = unmet.exhausted ? ' (the search took too many steps, and counts as failing)' : '';
  const listed = found.length >= 3 ? `${found.join('; ')} and maybe more` : found.join('; ');
  return {
    code: 'unmet-conditions',
    rule: rule.id,
    expected: universal ? 'every instance' : 'none',
    actual: cutText(listed, maxEcho),
    message: universal
      ? `It must be that ${wanted}; not yet for ${listed}${more}.`
      : `There must be ${wanted}; there is: ${listed}${more}.`,
  };
}

/**
 * `not (A & B)` as "no A together with B"; `forall(A => B)` as "every A also B"
 * (LANGUAGE.md §9). `plan` is the scope as compiled (its patterns in body order).
 */
export function describeScope(
  scope: CheckedScope,
  plan: JoinPlan | undefined,
  clock: SessionClock,
): string {
  const parts = (of: CheckedScope, compiled: JoinPlan | undefined, skipLast: boolean) => {
    const inner = of.scopes ?? [];
    const nested = skipLast ? inner.slice(0, -1) : inner;
    return [
      ...(compiled?.patterns ?? []).map((pattern) => describePattern(pattern, clock)),
      ...nested.map((child, index) => describeScope(child, compiled?.scopes?.[index], clock)),
    ];
  };
  // Conditions on bindings inside a scope: `no … where $q is less than $p`.
  const where = (of: CheckedScope | undefined) => comparisonsText(of?.comparisons);
  if (!scope.universal)
    return `no ${parts(scope, plan, false).join(' together with ')}${where(scope)}`;
  const conclusion = scope.scopes?.at(-1);
  const then = conclusion === undefined ? [] : parts(conclusion, plan?.scopes?.at(-1), false);
  const every = `every ${parts(scope, plan, true).join(' and ')}${where(scope)}`;
  // `forall(A => $p <= 500)`: a conclusion that is conditions alone.
  if (then.length === 0)
    return `${every}: ${joinWords((conclusion?.comparisons ?? []).map(plainComparison))}`;
  return `${every} also ${joinWords(then)}${where(conclusion)}`;
}
