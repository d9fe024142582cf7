import {
  argumentError,
  describeArgument,
  firstProblem,
  specProblem,
} from '../language/arguments.js';
import { operatorPhrase, type Spec } from '../language/index.js';
import { isRecord } from '../support/is-record.js';
import { allEngineParts } from './all-parts.js';
import { type ClockInput, createClock } from './clock.js';
import { compileSpec } from './compiled-spec.js';
import { describeLiteral } from './constraint-test.js';
import { describePattern, describeRuleBody, joinWords } from './describe.js';
import { comparisonsText } from './describe-comparisons.js';
import { lexicalSimilarity } from './lexical-similarity.js';
import { defaultSimilarityThreshold } from './similarity.js';

export interface ExplainOptions {
  readonly now?: ClockInput | undefined;
  readonly timeZone?: string | undefined;
}

/** One step of the plan as `explainSpec` reports it. */
export interface ExplainedRule {
  readonly id: string;
  readonly head: string;
  readonly needs: string;
  readonly confirm?: string;
  readonly repeat?: string;
}

export interface Explanation {
  /** For a policy (LANGUAGE.md §8) its permissions; for an intent the plan's steps. */
  readonly steps: readonly ExplainedRule[];
  readonly finish: readonly ExplainedRule[];
  readonly refused: readonly string[];
  readonly approval: readonly string[];
  /** An intent's `given` facts: what the user said, holding from the start. */
  readonly given?: readonly string[];
  /** A policy's governed actions: each is refused unless one of its permissions holds. */
  readonly governed?: readonly string[];
  readonly text: string;
}

/** The actions a policy's permissions name, in order: each is refused unless one holds. */
function governedActions(compiled: ReturnType<typeof compileSpec>): string[] {
  return [
    ...new Set(compiled.rules.flatMap((rule) => (rule.action ? [rule.action.predicate.name] : []))),
  ];
}

/** A policy as the operator reads it: it permits and refuses; the intent plans and finishes. */
function policyLines(
  governed: readonly string[],
  permissions: readonly string[],
  guardLines: readonly string[],
): string[] {
  return [
    ...(governed.length > 0
      ? [
          `Permissions: a call of ${joinWords(governed, 'or')} is refused unless one of these holds:`,
          ...permissions,
        ]
      : []),
    ...guardLines,
    governed.length > 0
      ? "Any other call is not governed by the policy: only its guards apply to it. What the task needs and when it is done are the intent's to say."
      : "The policy governs no call: only its guards apply. What the task needs and when it is done are the intent's to say.",
  ];
}

/**
 * The spec in plain language, deterministically: its steps, the ways to finish and
 * its guards. `intentguard explain` prints it; the formalizer's decoding check
 * compares it with the user's instruction. A policy (`role: 'policy'`, LANGUAGE.md §8)
 * reads as what the operator permits and refuses: its permissions, the actions they
 * govern, its guards — it plans nothing and says nothing of when the task is done.
 *
 * @example
 * explainSpec(policy).text;
 * // "Permissions: a call of cancel_reservation is refused unless one of these holds: …"
 */
export function explainSpec(spec: Spec, options: ExplainOptions = {}): Explanation {
  // Misuse throws (this answer carries no diagnostics); bad `now`/`timeZone` values are
  // refused by the clock with a RangeError.
  const misuse = firstProblem(
    specProblem(spec),
    isRecord(options)
      ? undefined
      : {
          parameter: 'options',
          expected: 'an options object or undefined',
          actual: describeArgument(options),
        },
  );
  if (misuse) throw argumentError('explainSpec', misuse);
  const clock = createClock(options.now ?? '2000-01-01T00:00', options.timeZone);
  const compiled = compileSpec(spec, {
    similarity: lexicalSimilarity,
    threshold: defaultSimilarityThreshold,
    parts: allEngineParts,
  });
  const explain = (rule: (typeof compiled.rules)[number]): ExplainedRule => {
    const confirm = rule.source.confirm;
    return {
      id: rule.id,
      head: rule.head,
      needs: describeRuleBody(rule, clock),
      ...(confirm
        ? {
            confirm:
              [confirm.category, confirm.message].filter((part) => part !== undefined).join(': ') ||
              'the user must approve',
          }
        : {}),
      ...(rule.limit > 1
        ? {
            repeat:
              rule.limit === Number.POSITIVE_INFINITY
                ? 'may be repeated'
                : `at most ${rule.limit} times`,
          }
        : {}),
    };
  };
  const steps = compiled.rules.filter((rule) => !rule.isDone).map(explain);
  const finish = compiled.doneRules.map(explain);
  const guardText = (mode: 'reject' | 'confirm') =>
    spec.guards
      .filter((guard) => guard.mode === mode)
      .map((guard) => {
        const pattern = compiled.guardsByPredicate
          .get(guard.pattern.predicate.name)
          ?.find((candidate) => candidate.source === guard)?.pattern;
        const what = `${pattern ? describePattern(pattern, clock) : guard.pattern.predicate.name}${comparisonsText(guard.comparisons)}`;
        return guard.reason === undefined ? what : `${what} — ${guard.reason}`;
      });
  const refused = guardText('reject');
  const approval = guardText('confirm');

  const stepLine = (step: ExplainedRule, index: number): string => {
    const notes = [
      step.id,
      ...(step.confirm ? [`needs the user's approval (${step.confirm})`] : []),
      ...(step.repeat ? [step.repeat] : []),
    ];
    return `${index + 1}. ${step.head} (${notes.join('; ')}): ${step.needs}.`;
  };
  const guardLines = [
    ...(refused.length > 0 ? ['Always refused:', ...refused.map((line) => `- ${line}`)] : []),
    ...(approval.length > 0
      ? ["Needs the user's approval:", ...approval.map((line) => `- ${line}`)]
      : []),
  ];
  if (spec.role === 'policy') {
    const governed = governedActions(compiled);
    const text = policyLines(governed, steps.map(stepLine), guardLines).join('\n');
    return { steps, finish, refused, approval, governed, text };
  }
  const given = (spec.givens ?? []).map(
    (fact) =>
      `${fact.predicate.name} with ${joinWords(fact.values.map(({ variable, value }) => `${variable.name} ${operatorPhrase('=', variable.type)} ${describeLiteral(value, clock)}`))}`,
  );
  const lines: string[] = [];
  if (given.length > 0)
    lines.push('What the user said (holds from the start):', ...given.map((line) => `- ${line}`));
  if (steps.length > 0) lines.push('Steps:', ...steps.map(stepLine));
  if (finish.length === 1)
    lines.push(`The task is done when: ${finish[0]?.needs} (${finish[0]?.id}).`);
  else if (finish.length > 1) {
    lines.push('The task is done when any of these holds:');
    finish.forEach((rule, index) => {
      lines.push(`  ${String.fromCharCode(97 + (index % 26))}) ${rule.needs} (${rule.id})`);
    });
  }
  lines.push(...guardLines);
  lines.push(
    'Any other action marked critical (irreversible or sensitive) is refused as not part of the plan.',
  );
  return {
    steps,
    finish,
    refused,
    approval,
    ...(given.length > 0 ? { given } : {}),
    text: lines.join('\n'),
  };
}
