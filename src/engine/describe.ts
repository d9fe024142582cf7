import {
  type CheckedConstraint,
  callName,
  operatorPhrase,
  type PredicateDeclaration,
} from '../language/index.js';
import type { SessionClock } from './clock.js';
import type { CompiledPattern, CompiledRule, CompiledSpec } from './compiled-spec.js';
import { describeLiteral } from './constraint-test.js';
import { plainSubject } from './describe-terms.js';
import { requirePart } from './engine-parts.js';

/**
 * Plain-language pieces that feedback and roadmaps are built from. Everything here
 * is deterministic and short, because it ends up in an agent's prompt.
 */

/** `time earlier than 19:00` */
export function describeConstraint(constraint: CheckedConstraint, clock: SessionClock): string {
  const access = constraint.access;
  const subject = (access && plainSubject(access)) ?? access?.text ?? constraint.variable.name;
  const type = constraint.access?.compared ?? constraint.variable.type;
  // `products[name ~ "x", id = $id]` alone: some element satisfies the filter.
  if (constraint.access?.exists) return `some element of ${subject}`;
  const value = constraint.binding
    ? constraint.binding.text
    : describeLiteral(constraint.value, clock);
  return `${subject} ${operatorPhrase(constraint.operator, type)} ${value}`;
}

const maxDescription = 60;

/**
 * The first sentence of a predicate's description, without its full stop, at most 60
 * characters; empty when it has none.
 *
 * @example
 * describedAs(payDeposit); // 'Pay the deposit for the reservation'
 */
export function describedAs(predicate: PredicateDeclaration): string {
  const sentence =
    predicate.description
      .trim()
      .split(/(?<=[.!?])\s/)[0]
      ?.replace(/[.!?]$/, '') ?? '';
  return sentence.length > maxDescription
    ? `${sentence.slice(0, maxDescription - 1).trimEnd()}…`
    : sentence;
}

/** `ReserveInfo (reservation details selected on the booking screen)` */
export function describePredicate(predicate: PredicateDeclaration): string {
  const text = describedAs(predicate);
  if (text === '') return callName(predicate);
  return `${callName(predicate)} (${text.charAt(0).toLowerCase()}${text.slice(1)})`;
}

export function joinWords(items: readonly string[], conjunction = 'and'): string {
  if (items.length <= 1) return items[0] ?? '';
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`;
}

/** `ReserveInfo with date equal to 2025-03-14 (today) and time earlier than 19:00` */
export function describePattern(pattern: CompiledPattern, clock: SessionClock): string {
  if (pattern.constraints.length === 0 && pattern.absentArguments.length === 0)
    return `${callName(pattern.predicate.declaration)} observed`;
  return `${callName(pattern.predicate.declaration)} ${describeArguments(pattern, clock)}`;
}

/** `call BankTransfer with to equal to "Alice"` */
export function describeAction(pattern: CompiledPattern, clock: SessionClock): string {
  if (pattern.constraints.length === 0 && pattern.absentArguments.length === 0)
    return `call ${callName(pattern.predicate.declaration)}`;
  return `call ${callName(pattern.predicate.declaration)} ${describeArguments(pattern, clock)}`;
}

/** `with to equal to "Alice" and without cc`, `without cc` (`absent(cc)`, E6). */
function describeArguments(pattern: CompiledPattern, clock: SessionClock): string {
  const without = pattern.absentArguments.map(
    (variable) => `without ${pattern.predicate.variables[variable]?.name ?? variable}`,
  );
  if (pattern.constraints.length === 0) return joinWords(without);
  return `with ${joinWords([...pattern.constraints.map((constraint) => describeConstraint(constraint.source, clock)), ...without])}`;
}

/** What a rule needs, in one line: `BalanceKnown; BankCheckBalanceResult with …; then call BankTransfer …`. */
export function describeRuleBody(rule: CompiledRule, clock: SessionClock): string {
  const { join } = rule;
  const parts = [
    ...rule.objectives.map((condition) =>
      condition.negated
        ? `${condition.name} not achieved`
        : condition.operator === '>=' && condition.count === 1
          ? condition.name
          : `${condition.name} achieved ${condition.operator} ${condition.count} times`,
    ),
    ...rule.states.map((pattern) => describePattern(pattern, clock)),
    ...rule.negations.map((pattern) => `no ${describePattern(pattern, clock)}`),
    // `not (…)`, `forall(…)`: their words come with their evaluators (scope-feedback.ts).
    ...(rule.source.scopes === undefined || join === undefined
      ? []
      : rule.source.scopes.map((scope, index) =>
          requirePart(join.parts, 'paths').describeScope(scope, join.scopes?.[index], clock),
        )),
  ];
  const action = rule.action ? describeAction(rule.action, clock) : undefined;
  // Conditions on bindings: their words come with the join that judges them (describe-comparisons.ts).
  const where =
    join === undefined
      ? ''
      : requirePart(join.parts, 'paths').comparisonsText(rule.source.comparisons);
  if (parts.length === 0) return action ? `${action}${where}` : 'nothing (always holds)';
  return action ? `${parts.join('; ')}; then ${action}${where}` : `${parts.join('; ')}${where}`;
}

/**
 * Actions that would establish a missing precondition: the actions of the rules that
 * achieve a missing objective, or the tool whose result a missing state holds.
 */
export function candidateActions(
  spec: CompiledSpec,
  missing: { readonly objective?: string; readonly predicate?: PredicateDeclaration },
  clock: SessionClock,
): string[] {
  const candidates: string[] = [];
  if (missing.objective !== undefined) {
    for (const rule of spec.rulesByHead.get(missing.objective) ?? []) {
      candidates.push(
        rule.action
          ? describeAction(rule.action, clock)
          : `achieve ${missing.objective} (${describeRuleBody(rule, clock)})`,
      );
    }
  }
  const producer = missing.predicate?.resultOf;
  if (producer !== undefined) {
    const declaration = spec.predicates.get(producer)?.declaration;
    candidates.push(`call ${declaration ? callName(declaration) : producer}`);
  }
  return [...new Set(candidates)].slice(0, 5);
}
