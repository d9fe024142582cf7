import { callName, defaultLimits, type PredicateDeclaration } from '../language/index.js';
import type { SessionClock } from './clock.js';
import type {
  CompiledGuard,
  CompiledPattern,
  CompiledRule,
  CompiledSpec,
} from './compiled-spec.js';
import { describeExpectation } from './constraint-test.js';
import {
  candidateActions,
  describeAction,
  describeConstraint,
  describePattern,
  describePredicate,
  joinWords,
} from './describe.js';
import { requirePart } from './engine-parts.js';
import type { ProposedAction, UnmetCondition } from './evaluation.js';
import type { ProposalProblem } from './proposal.js';
import { cutText, formatValue, type Value } from './values.js';
import type { Reason } from './verdict.js';

/**
 * Reasons and feedback text. Reasons are data (FORMATS.md §2); each carries its own
 * one-sentence message, and the feedback of a verdict is those messages joined under
 * a lead sentence — so the text an agent reads always matches the data a tool reads.
 */

/** A value as a reason echoes it, cut to `maxEcho` characters (it may be the agent's megabyte). */
function actualText(
  pattern: CompiledPattern,
  variable: number,
  value: Value | undefined,
  maxEcho: number,
): string {
  const declaration = pattern.predicate.variables[variable];
  if (value === undefined || !declaration) return 'unobserved';
  return formatValue(value, declaration.type, maxEcho);
}

/**
 * One unmet condition of a rule as a reason. `changed` says whether the proposal
 * changes that predicate; values are echoed cut to `maxEcho` characters.
 */
export function unmetReason(
  spec: CompiledSpec,
  rule: CompiledRule,
  unmet: UnmetCondition,
  clock: SessionClock,
  changed: (predicateIndex: number) => boolean,
  maxEcho: number = defaultLimits.maxEchoLength,
): Reason {
  switch (unmet.kind) {
    case 'objective':
      return objectiveReason(spec, rule, unmet, clock);
    case 'unobserved':
      return unobservedReason(spec, rule, unmet, clock);
    case 'negation':
      return negationReason(rule, unmet, clock, maxEcho);
    case 'present':
      return presentReason(rule, unmet, maxEcho);
    case 'action':
      return actionReason(rule, unmet, clock);
    case 'constraint':
      return constraintReason(spec, rule, unmet, clock, changed, maxEcho);
    case 'scope':
      return requirePart(spec.parts, 'paths').scopeReason(spec, rule, unmet, clock, maxEcho);
  }
}

type Unmet<K extends UnmetCondition['kind']> = Extract<UnmetCondition, { kind: K }>;

/** An objective counted too few (or too many) times, with the actions that achieve it. */
function objectiveReason(
  spec: CompiledSpec,
  rule: CompiledRule,
  unmet: Unmet<'objective'>,
  clock: SessionClock,
): Reason {
  const { condition, actual } = unmet;
  if (condition.negated) {
    return {
      code: 'unmet-conditions',
      rule: rule.id,
      objective: condition.name,
      expected: 'not achieved',
      actual: String(actual),
      message: `${condition.name} must not have been achieved; it has been (${actual} time${actual === 1 ? '' : 's'}).`,
    };
  }
  const candidates = candidateActions(spec, { objective: condition.name }, clock);
  const first = condition.operator === '>=' && condition.count === 1 && actual === 0;
  const message = first
    ? `${condition.name} must be achieved first; it has not been.`
    : `${condition.name} must have been achieved ${condition.operator} ${condition.count} times; so far ${actual}.`;
  return {
    code: 'unmet-conditions',
    rule: rule.id,
    objective: condition.name,
    expected: `${condition.operator} ${condition.count}`,
    actual: String(actual),
    ...(candidates.length > 0 ? { candidates } : {}),
    message:
      candidates.length > 0 ? `${message} To achieve it: ${joinWords(candidates, 'or')}.` : message,
  };
}

/** `P()`: P has never been observed, with the actions that observe it. */
function unobservedReason(
  spec: CompiledSpec,
  rule: CompiledRule,
  unmet: Unmet<'unobserved'>,
  clock: SessionClock,
): Reason {
  const candidates = candidateActions(
    spec,
    { predicate: unmet.pattern.predicate.declaration },
    clock,
  );
  return {
    code: 'unmet-conditions',
    rule: rule.id,
    predicate: unmet.pattern.predicate.name,
    expected: 'observed',
    actual: 'unobserved',
    ...(candidates.length > 0 ? { candidates } : {}),
    message: `${describePredicate(unmet.pattern.predicate.declaration)} must have been observed; it has not been.${candidates.length > 0 ? ` To observe it: ${joinWords(candidates, 'or')}.` : ''}`,
  };
}

/** `not P(…)`: an instance matches, or may (a result that cannot be read, or does not report). */
function negationReason(
  rule: CompiledRule,
  unmet: Unmet<'negation'>,
  clock: SessionClock,
  maxEcho: number,
): Reason {
  const declaration = unmet.pattern.predicate.declaration;
  const wanted = describePattern(unmet.pattern, clock);
  return {
    code: 'unmet-conditions',
    rule: rule.id,
    predicate: declaration.name,
    expected: `no ${declaration.name} matching`,
    actual: unmet.unread !== undefined ? 'one could not be read' : 'one matches',
    message:
      unmet.unread !== undefined
        ? `There must be no ${wanted}; a ${declaration.name} came that could not be read (${cutText(unmet.unread, maxEcho)}), and a result that cannot be read counts as one.`
        : unmet.unreported === true
          ? `There must be no ${wanted}; a ${declaration.name} does not report what the condition reads, and counts as one.`
          : unmet.pattern.constraints.length === 0
            ? `${describePredicate(declaration)} must not have been observed; it has been.`
            : `There must be no ${wanted}; there is one.`,
  };
}

/** `absent(arg)`: the action gives the argument. */
function presentReason(rule: CompiledRule, unmet: Unmet<'present'>, maxEcho: number): Reason {
  const declaration = unmet.pattern.predicate.declaration;
  const variable = unmet.pattern.predicate.variables[unmet.variable];
  const name = variable?.name ?? String(unmet.variable);
  const actual = actualText(unmet.pattern, unmet.variable, unmet.actual, maxEcho);
  return {
    code: 'unmet-conditions',
    rule: rule.id,
    predicate: declaration.name,
    variable: name,
    expected: 'absent',
    actual,
    message: `${callName(declaration)} must be called without ${name}; it is given as ${actual}.`,
  };
}

/** The rule needs an action the proposal does not carry. */
function actionReason(rule: CompiledRule, unmet: Unmet<'action'>, clock: SessionClock): Reason {
  const wanted = describeAction(unmet.pattern, clock);
  return {
    code: 'unmet-conditions',
    rule: rule.id,
    predicate: unmet.pattern.predicate.name,
    expected: unmet.pattern.predicate.name,
    actual: unmet.actual ?? 'no action',
    message: `This step is done by the action: ${wanted}; the proposal ${unmet.actual === undefined ? 'carries no action' : `calls ${unmet.actual}`}.`,
  };
}

/** A constraint that does not hold: what it expects, what was found, and how to observe it. */
function constraintReason(
  spec: CompiledSpec,
  rule: CompiledRule,
  unmet: Unmet<'constraint'>,
  clock: SessionClock,
  changed: (predicateIndex: number) => boolean,
  maxEcho: number,
): Reason {
  const { pattern, constraint } = unmet;
  const declaration = pattern.predicate.declaration;
  const actual =
    (unmet.actual === undefined || constraint.source.access === undefined
      ? undefined
      : // Only constraints with a path get here: their spec has the path evaluators.
        requirePart(spec.parts, 'paths').pathText(constraint.source, unmet.actual, maxEcho)) ??
    actualText(pattern, constraint.variable, unmet.actual, maxEcho);
  const isAction = declaration.kind === 'action';
  const verb = isAction ? 'is' : changed(pattern.predicate.index) ? 'would be' : 'is';
  const subject = isAction
    ? `${callName(declaration)} must be called with`
    : `${describePredicate(declaration)} must have`;
  const candidates =
    unmet.actual === undefined && !isAction
      ? candidateActions(spec, { predicate: declaration }, clock)
      : [];
  const found =
    unmet.actual === undefined
      ? isAction
        ? 'it is not given'
        : 'it has not been observed yet'
      : `it ${verb} ${actual}`;
  const extra = candidates.length > 0 ? ` To observe it: ${joinWords(candidates, 'or')}.` : '';
  const description = constraint.source.variable.description;
  // Only a binding has values bound: its spec has the evaluators.
  const bound =
    unmet.bound === undefined
      ? ''
      : requirePart(spec.parts, 'paths').describeBound(unmet.bound, maxEcho);
  return {
    code: 'unmet-conditions',
    rule: rule.id,
    predicate: declaration.name,
    variable: constraint.source.variable.name,
    expected: expectedText(spec, unmet, clock, maxEcho),
    actual,
    ...(candidates.length > 0 ? { candidates } : {}),
    message: `${subject} ${describeConstraint(constraint.source, clock)}${bound}${description ? ` (${constraint.source.variable.name}: ${description.replace(/\.$/, '')})` : ''}; ${found}.${extra}`,
  };
}

/**
 * What an unmet constraint expects: `= $d`, `> 0`; for a bare filtered list, some element
 * of it, with the values of the bindings it compared with (`some element of
 * legs[code = $c] with $c = "ZX410"`, T2).
 */
function expectedText(
  spec: CompiledSpec,
  unmet: Unmet<'constraint'>,
  clock: SessionClock,
  maxEcho: number,
): string {
  const access = unmet.constraint.source.access;
  if (access?.exists !== true) return describeExpectation(unmet.constraint.source, clock);
  // A path: its spec has the evaluators, and the words that go with them.
  return requirePart(spec.parts, 'paths').someElementText(access.text, unmet.bound, maxEcho);
}

export function unmetFeedback(rule: CompiledRule, reasons: readonly Reason[]): string {
  const target = rule.isDone ? 'finish' : `perform ${rule.head} (rule ${rule.id})`;
  return [`To ${target}:`, ...reasons.map((reason) => `- ${reason.message}`)].join('\n');
}

/** One way to finish (a Done rule) with what it still lacks. */
export interface FinishBranch {
  readonly rule: CompiledRule;
  readonly reasons: readonly Reason[];
}

/**
 * A finish refused: the reasons, and the feedback listing every way to finish, lettered
 * `a)`, `b)` … when there are several, each with what it still needs.
 */
export function prematureFinish(branches: readonly FinishBranch[]): {
  readonly reasons: Reason[];
  readonly feedback: string;
} {
  const reasons: Reason[] = [
    { code: 'premature-finish', message: 'The task is not done yet.' },
    ...branches.flatMap((branch) => branch.reasons),
  ];
  const lines = ['The task is not done yet.'];
  if (branches.length === 1) lines.push(unmetFeedback(branches[0]!.rule, branches[0]!.reasons));
  else {
    lines.push('It is done when any of these holds:');
    branches.forEach((branch, index) => {
      lines.push(
        `${String.fromCharCode(97 + (index % 26))}) rule ${branch.rule.id}, which still needs:`,
      );
      for (const reason of branch.reasons) lines.push(`   - ${reason.message}`);
    });
  }
  return { reasons, feedback: lines.join('\n') };
}

export function alreadyAchievedReason(
  rule: CompiledRule,
  count: number,
  perValue?: string,
): Reason {
  if (rule.per && perValue !== undefined) {
    const limit = rule.per.limit;
    return {
      code: 'already-achieved',
      rule: rule.id,
      objective: rule.head,
      expected: `< ${limit} for ${perValue}`,
      actual: String(limit),
      message: `${rule.head} has already been achieved for ${perValue} (${limit === 1 ? 'once' : `${limit} times`} per value is part of the task); doing it again for the same value is not.`,
    };
  }
  const times = count === 1 ? 'once' : `${count} times`;
  const allowance = rule.limit === 1 ? '' : ` (at most ${rule.limit} times are part of the task)`;
  return {
    code: 'already-achieved',
    rule: rule.id,
    objective: rule.head,
    expected: `< ${rule.limit === Number.POSITIVE_INFINITY ? '∞' : rule.limit}`,
    actual: String(count),
    message: `${rule.head} has already been achieved ${times}${allowance}; doing it again is not part of the task.`,
  };
}

export function softDeviationReason(
  pattern: CompiledPattern,
  variable: number,
  value: Value,
  alternatives: readonly CompiledPattern[],
  clock: SessionClock,
  maxEcho: number = defaultLimits.maxEchoLength,
): Reason {
  const declaration = pattern.predicate.variables[variable];
  const name = declaration?.name ?? String(variable);
  const wanted = [
    ...new Set(
      alternatives.flatMap((alternative) => {
        const onVariable = alternative.constraints.filter(
          (constraint) => constraint.variable === variable,
        );
        return onVariable.length === 0
          ? []
          : [
              joinWords(
                onVariable.map((constraint) => describeConstraint(constraint.source, clock)),
              ),
            ];
      }),
    ),
  ];
  const first = alternatives[0]?.constraints.find((constraint) => constraint.variable === variable);
  const actual = declaration
    ? formatValue(value, declaration.type, maxEcho)
    : cutText(String(value), maxEcho);
  return {
    code: 'soft-deviation',
    predicate: pattern.predicate.name,
    variable: name,
    ...(first ? { expected: describeExpectation(first.source, clock) } : {}),
    actual,
    ...(alternatives[0]?.rule ? { rule: alternatives[0].rule.id } : {}),
    message: `${describePredicate(pattern.predicate.declaration)} would get ${name} = ${actual}, but the task needs ${joinWords(wanted, 'or')}.`,
  };
}

/**
 * A soft deviation because the update would undo a finished task: Done holds now (by
 * `rule`) and would hold in no way afterwards (LANGUAGE.md §6 step 6). The first unmet
 * condition supplies the data fields.
 */
export function brokenDoneReason(rule: CompiledRule, unmet: readonly Reason[]): Reason {
  const first = unmet[0];
  const lacks = unmet.map((reason) => reason.message).join(' ');
  return {
    code: 'soft-deviation',
    rule: rule.id,
    ...(first?.predicate !== undefined ? { predicate: first.predicate } : {}),
    ...(first?.variable !== undefined ? { variable: first.variable } : {}),
    ...(first?.expected !== undefined ? { expected: first.expected } : {}),
    ...(first?.actual !== undefined ? { actual: first.actual } : {}),
    message: `The task is done (rule ${rule.id}), and this update would undo it: ${lacks || 'the rule would no longer hold.'}`,
  };
}

export const softFeedbackTail =
  'If this is an intermediate step on the way to the right value, propose the same step again and it will be accepted.';

/** The tail of a soft refusal that only changes settings the task does not name (§9). */
export const frameFeedbackTail =
  'If the task really needs this change, propose the same step again and it will be accepted.';

/**
 * The arguments of the call an action pattern constrains (compared, bound, required
 * absent, or counted per value): what a person approving the call must see.
 */
export function constrainedArguments(pattern: CompiledPattern | undefined, per?: number): string[] {
  if (pattern === undefined || pattern.predicate.declaration.kind !== 'action') return [];
  const indexes = [
    ...pattern.constraints.map((constraint) => constraint.variable),
    ...pattern.absentArguments,
    ...(per === undefined ? [] : [per]),
  ];
  const names = indexes.flatMap((index) => {
    const name = pattern.predicate.variables[index]?.name;
    return name === undefined ? [] : [name];
  });
  return [...new Set(names)];
}

/**
 * A guard's reason. Given the proposal's action, a confirm guard on it also echoes the
 * values it matched (`actual`), cut to `maxEcho` characters.
 */
export function guardReason(
  guard: CompiledGuard,
  clock: SessionClock,
  action?: ProposedAction,
  maxEcho: number = defaultLimits.maxEchoLength,
): Reason {
  // A guard on every call of a tool (no constraints) names the calls, not an observation.
  const target =
    guard.pattern.constraints.length === 0 && guard.pattern.absentArguments.length === 0
      ? `every ${callName(guard.pattern.predicate.declaration)} call`
      : describePattern(guard.pattern, clock);
  const reject = guard.source.mode === 'reject';
  const because = guard.source.reason === undefined ? '' : `: ${guard.source.reason}`;
  // What a person approving the call must see (a reject asks nobody).
  const argumentNames = reject ? [] : constrainedArguments(guard.pattern);
  const matched =
    action !== undefined && action.predicate === guard.pattern.predicate
      ? argumentNames.map((name) => {
          const index = action.predicate.variableIndex.get(name) ?? -1;
          return `${name} = ${actualText(guard.pattern, index, action.values[index], maxEcho)}`;
        })
      : [];
  return {
    code: reject ? 'guard-reject' : 'guard-confirm',
    predicate: guard.pattern.predicate.name,
    ...(argumentNames.length > 0 ? { arguments: argumentNames } : {}),
    ...(matched.length > 0 ? { actual: cutText(matched.join(', '), maxEcho) } : {}),
    expected:
      [
        ...guard.pattern.constraints.map(
          (constraint) =>
            `${constraint.source.access?.text ?? constraint.source.variable.name} ${describeExpectation(constraint.source, clock)}`,
        ),
        // `absent(cc)`: the guard matches a call that leaves the argument out (E6).
        ...guard.pattern.absentArguments.map(
          (variable) => `absent(${guard.pattern.predicate.variables[variable]?.name ?? variable})`,
        ),
      ].join(', ') || 'any',
    message: reject
      ? `The spec refuses ${target}${because}.`
      : `The spec asks the user to approve ${target}${because}.`,
  };
}

export function ruleConfirmReason(rule: CompiledRule): Reason {
  const confirm = rule.source.confirm;
  const category = confirm?.category;
  const argumentNames = constrainedArguments(rule.action, rule.per?.variable);
  return {
    code: 'rule-confirm',
    rule: rule.id,
    objective: rule.head,
    ...(argumentNames.length > 0 ? { arguments: argumentNames } : {}),
    ...(category ? { category } : {}),
    message: `${confirm?.message ?? `Performing ${rule.head} needs the user's approval`}${/[.!?]$/.test(confirm?.message ?? '') ? '' : '.'}${category ? ` (${category})` : ''}`,
  };
}

export function unplannedReason(predicate: PredicateDeclaration, asConfirm: boolean): Reason {
  const name = callName(predicate);
  return {
    code: 'unplanned-critical',
    predicate: predicate.name,
    message: asConfirm
      ? `${name} is not part of the plan for this task and is irreversible or sensitive; the user must approve it.`
      : `${name} is not part of the plan for this task and is irreversible or sensitive, so it is not allowed. Take the steps the task needs instead.`,
  };
}

/**
 * `repeated-violation`: a person decides on a call refused `times` times. `action` names
 * the call's predicate: the arguments the earlier reasons name on it are the ones shown first.
 */
export function repeatedViolationReason(
  times: number,
  previous: readonly Reason[],
  action?: string,
): Reason {
  const first = previous[0];
  const argumentNames = [
    ...new Set(
      previous.flatMap((reason) => [
        ...(reason.arguments ?? []),
        ...(reason.variable !== undefined && action !== undefined && reason.predicate === action
          ? [reason.variable]
          : []),
      ]),
    ),
  ];
  return {
    code: 'repeated-violation',
    ...(first?.rule ? { rule: first.rule } : {}),
    ...(argumentNames.length > 0 ? { arguments: argumentNames } : {}),
    actual: String(times),
    message: `This exact proposal was refused ${times} times${first ? ` (${first.message.replace(/\.$/, '')})` : ''}; a person must decide whether to allow it.`,
  };
}

/** Problems of one proposal listed one by one; the rest are counted (a proposal may have thousands). */
const maxListedProblems = 20;

function startsWithName(problem: ProposalProblem): boolean {
  return problem.predicate !== undefined && problem.message.startsWith(problem.predicate);
}

export function invalidProposalReasons(problems: readonly ProposalProblem[]): Reason[] {
  const reasons: Reason[] = problems.slice(0, maxListedProblems).map((problem) => ({
    code: 'invalid-proposal' as const,
    ...(problem.predicate !== undefined ? { predicate: problem.predicate } : {}),
    ...(problem.variable !== undefined ? { variable: problem.variable } : {}),
    ...(problem.actual !== undefined ? { actual: problem.actual } : {}),
    // A message that starts with a name keeps it as written (`change_seats.seats…`).
    message: `${startsWithName(problem) ? problem.message.charAt(0) : problem.message.charAt(0).toUpperCase()}${problem.message.slice(1)}.`,
  }));
  if (problems.length > maxListedProblems) {
    reasons.push({
      code: 'invalid-proposal',
      message: `And ${problems.length - maxListedProblems} more problems of the same proposal.`,
    });
  }
  return reasons;
}
