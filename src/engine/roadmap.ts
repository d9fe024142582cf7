import type { Literal } from '../language/index.js';
import type { SessionClock } from './clock.js';
import type { CompiledRule, CompiledSpec } from './compiled-spec.js';
import { describeRuleBody, joinWords } from './describe.js';
import { type EvaluationContext, ruleFires } from './evaluation.js';

/** Steps listed before the rest are summarised, to keep the roadmap prompt-sized. */
export const maxRoadmapSteps = 25;

/**
 * The roadmap (VeriSafe Agent's feedback): each step of the task with what it needs
 * and whether it is achieved, the ways to finish, and the progress so far.
 * `describe` caches rule descriptions per session (they depend on the session clock).
 */
export function renderRoadmap(
  spec: CompiledSpec,
  context: EvaluationContext,
  describe: (rule: CompiledRule) => string,
): string {
  const lines = ['Roadmap:'];
  // Only the first steps are described and only achieved objectives are visited, so the
  // roadmap costs the same for a spec of ten rules or ten thousand.
  const shown =
    spec.steps.length > maxRoadmapSteps ? spec.steps.slice(0, maxRoadmapSteps) : spec.steps;
  shown.forEach((rule, index) => {
    const count = context.achieved.get(rule.head) ?? 0;
    const notes = [
      rule.id,
      ...(rule.source.confirm ? ["needs the user's approval"] : []),
      ...(rule.limit > 1
        ? [
            rule.limit === Number.POSITIVE_INFINITY
              ? 'may be repeated'
              : `at most ${rule.limit} times`,
          ]
        : []),
    ];
    const status = count === 0 ? 'not yet' : count === 1 ? 'achieved' : `achieved ${count} times`;
    lines.push(`${index + 1}. ${rule.head} (${notes.join(', ')}): ${describe(rule)} — ${status}.`);
  });
  if (spec.steps.length > maxRoadmapSteps)
    lines.push(`… and ${spec.steps.length - maxRoadmapSteps} more steps.`);
  const achievedSteps: { number: number; head: string }[] = [];
  for (const [head, count] of context.achieved) {
    if (count === 0) continue;
    for (const number of spec.stepNumbers.get(head) ?? []) achievedSteps.push({ number, head });
  }
  achievedSteps.sort((a, b) => a.number - b.number);
  const progress = achievedSteps
    .slice(0, maxRoadmapSteps)
    .map((step) => `${step.number} (${step.head})`);
  if (achievedSteps.length > maxRoadmapSteps)
    progress.push(`${achievedSteps.length - maxRoadmapSteps} more`);
  const branches = spec.doneRules.slice(0, maxRoadmapSteps).map((rule) => {
    const holds = ruleFires(rule, context) ? ', holds now' : '';
    return `${describe(rule)} (${rule.id}${holds})`;
  });
  if (branches.length === 1) lines.push(`Finish when: ${branches[0]}.`);
  else {
    lines.push('Finish when any of these holds:');
    branches.forEach((branch, index) => {
      lines.push(`  ${String.fromCharCode(97 + (index % 26))}) ${branch}`);
    });
    if (spec.doneRules.length > branches.length)
      lines.push(`  … and ${spec.doneRules.length - branches.length} more.`);
  }
  lines.push(
    progress.length === 0
      ? 'So far nothing has been achieved.'
      : `So far you have achieved step${achievedSteps.length === 1 ? '' : 's'} ${joinWords(progress)}.`,
  );
  return lines.join('\n');
}

/** Descriptions that do not depend on the clock, shared by every session of a spec. */
const sharedDescriptions = new WeakMap<CompiledRule, string>();

function mentionsClock(rule: CompiledRule): boolean {
  const patterns = rule.action ? [...rule.states, rule.action] : rule.states;
  return patterns.some((pattern) =>
    pattern.constraints.some((constraint) => literalMentionsClock(constraint.source.value)),
  );
}

function literalMentionsClock(literal: Literal): boolean {
  return (
    literal.kind === 'relative' ||
    (literal.kind === 'list' && literal.elements.some(literalMentionsClock))
  );
}

/**
 * Describes rules for one session. Only rules with `today`/`now` depend on the
 * session's clock; the others are described once per spec, so sessions stay small.
 */
export function ruleDescriber(clock: SessionClock): (rule: CompiledRule) => string {
  const own = new Map<CompiledRule, string>();
  return (rule) => {
    const shared = sharedDescriptions.get(rule);
    if (shared !== undefined) return shared;
    let text = own.get(rule);
    if (text === undefined) {
      text = describeRuleBody(rule, clock);
      if (mentionsClock(rule)) own.set(rule, text);
      else sharedDescriptions.set(rule, text);
    }
    return text;
  };
}
