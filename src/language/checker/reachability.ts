import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { printAnnotation, printRule } from '../printer.js';
import { implies } from './satisfiability.js';
import {
  type CheckedGuard,
  type CheckedRule,
  type ObjectiveCondition,
  performanceLimit,
} from './spec.js';

/**
 * Objectives that depend on themselves, found with an iterative Tarjan search (a
 * recursive one would overflow the stack on a long chain of hostile rules).
 * Reports one `cyclic-objective` error per strongly connected component.
 */
export function reportCycles(
  rules: readonly CheckedRule[],
  diagnostics: DiagnosticBag,
): Set<string> {
  const edges = new Map<string, string[]>();
  for (const rule of rules) {
    if (rule.isDone) continue;
    const targets = edges.get(rule.head) ?? [];
    // `not X` cannot make X support itself: only positive conditions are dependencies.
    for (const condition of rule.objectives) if (!condition.negated) targets.push(condition.name);
    edges.set(rule.head, targets);
  }
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cyclic = new Set<string>();
  let counter = 0;

  for (const root of edges.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; next: number }[] = [{ node: root, next: 0 }];
    index.set(root, counter);
    lowLink.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = edges.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!edges.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, counter);
          lowLink.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          lowLink.set(frame.node, Math.min(lowLink.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent)
        lowLink.set(parent.node, Math.min(lowLink.get(parent.node)!, lowLink.get(frame.node)!));
      if (lowLink.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== frame.node);
      const selfLoop = component.length === 1 && (edges.get(frame.node) ?? []).includes(frame.node);
      if (component.length > 1 || selfLoop) {
        for (const name of component) cyclic.add(name);
        const members = new Set(component);
        const rule = rules.find(
          (candidate) =>
            members.has(candidate.head) &&
            candidate.objectives.some((condition) => members.has(condition.name)),
        );
        const ordered = component.reverse();
        diagnostics.report(
          'cyclic-objective',
          { range: rule?.node?.head.range },
          {
            name: ordered[0] ?? frame.node,
            cycle: [...ordered, ordered[0]].join(' -> '),
          },
        );
      }
    }
  }
  return cyclic;
}

function conditionSatisfiable(condition: ObjectiveCondition, maximum: number): boolean {
  const { operator, count } = condition;
  switch (operator) {
    case '>=':
      return maximum >= count;
    case '>':
      return maximum > count;
    case '=':
      return count <= maximum && count >= 0;
    case '!=':
      return maximum >= 1 || count !== 0;
    case '<':
      return count > 0;
    case '<=':
      return count >= 0;
  }
}

/**
 * Which rules can ever fire, as a monotone fixpoint over how often each objective can
 * at most be achieved. A worklist re-examines only the rules that mention an
 * objective whose maximum grew, so a long chain stays linear.
 */
export function reachableRules(
  rules: readonly CheckedRule[],
  blocked: ReadonlySet<CheckedRule>,
): { reachable: Set<CheckedRule>; maximum: Map<string, number> } {
  const maximum = new Map<string, number>();
  const reachable = new Set<CheckedRule>();
  const dependents = new Map<string, CheckedRule[]>();
  for (const rule of rules) {
    for (const condition of rule.objectives) {
      const list = dependents.get(condition.name) ?? [];
      list.push(rule);
      dependents.set(condition.name, list);
    }
  }
  const queue: CheckedRule[] = [...rules];
  while (queue.length > 0) {
    const rule = queue.pop()!;
    if (reachable.has(rule) || blocked.has(rule)) continue;
    const fires = rule.objectives.every((condition) =>
      conditionSatisfiable(condition, maximum.get(condition.name) ?? 0),
    );
    if (!fires) continue;
    reachable.add(rule);
    if (rule.isDone) continue;
    maximum.set(rule.head, (maximum.get(rule.head) ?? 0) + performanceLimit(rule));
    for (const dependent of dependents.get(rule.head) ?? [])
      if (!reachable.has(dependent)) queue.push(dependent);
  }
  return { reachable, maximum };
}

/** A reject guard whose pattern every firing of the rule's action would match. */
export function shadowingGuard(
  rule: CheckedRule,
  guards: readonly CheckedGuard[],
): CheckedGuard | undefined {
  const action = rule.action;
  if (!action) return undefined;
  return guards.find((guard) => {
    if (guard.mode !== 'reject' || guard.pattern.predicate.name !== action.predicate.name)
      return false;
    return guard.pattern.constraints.every((guardConstraint) => {
      // A path, filter or function is not reasoned about: the guard may not cover the rule.
      if (guardConstraint.access !== undefined || guardConstraint.binding !== undefined)
        return false;
      const onVariable = action.constraints.filter(
        (constraint) =>
          constraint.access === undefined &&
          constraint.binding === undefined &&
          constraint.variable.name === guardConstraint.variable.name,
      );
      return implies(onVariable, guardConstraint, guardConstraint.variable.type);
    });
  });
}

/** Warnings about rules that cannot fire, objectives nothing uses and repeated rules. */
export function reportReachability(
  rules: readonly CheckedRule[],
  guards: readonly CheckedGuard[],
  contradictory: ReadonlySet<CheckedRule>,
  objectives: ReadonlySet<string>,
  diagnostics: DiagnosticBag,
  policy = false,
): void {
  const blocked = new Set<CheckedRule>(contradictory);
  for (const rule of rules) {
    const guard = shadowingGuard(rule, guards);
    if (!guard || contradictory.has(rule)) continue;
    blocked.add(rule);
    diagnostics.report(
      'guard-shadows-rule',
      { range: guard.node?.range },
      {
        predicate: guard.pattern.predicate.name,
        rule: rule.id,
      },
    );
  }
  const { reachable, maximum } = reachableRules(rules, blocked);
  for (const rule of rules) {
    if (reachable.has(rule) || blocked.has(rule)) continue;
    const failing = rule.objectives.find(
      (condition) => !conditionSatisfiable(condition, maximum.get(condition.name) ?? 0),
    );
    let reason = 'its conditions can never all hold';
    if (failing) {
      const most = maximum.get(failing.name) ?? 0;
      reason =
        most === 0
          ? `it needs ${failing.name}, which no rule that can fire achieves`
          : `it needs ${failing.name} ${failing.operator} ${failing.count}, but ${failing.name} can be achieved at most ${most} time${most === 1 ? '' : 's'} (add @repeat to its rule)`;
    }
    diagnostics.report('unreachable-rule', { range: rule.node?.range }, { rule: rule.id, reason });
  }

  const used = new Set<string>();
  for (const rule of rules) for (const condition of rule.objectives) used.add(condition.name);
  const reported = new Set<string>();
  // A policy's rules are permissions: their heads only count performances, so none is unused.
  for (const rule of policy ? [] : rules) {
    if (!objectives.has(rule.head) || used.has(rule.head) || reported.has(rule.head)) continue;
    reported.add(rule.head);
    diagnostics.report('unused-branch', { range: rule.node?.head.range }, { name: rule.head });
  }

  const seen = new Map<string, CheckedRule>();
  for (const rule of rules) {
    // Rules checked from text have their syntax nodes (only compiled documents lack them).
    const node = rule.node!;
    const { label: _label, ...labelless } = node;
    const unlabelled = rule.alternative?.body
      ? { ...labelless, body: rule.alternative.body }
      : labelless;
    const key = [...node.annotations.map(printAnnotation), printRule(unlabelled)].join('\n');
    const other = seen.get(key);
    if (other)
      diagnostics.report(
        'duplicate-rule',
        { range: node.range },
        { rule: rule.id, other: other.id },
      );
    else seen.set(key, rule);
  }
}
