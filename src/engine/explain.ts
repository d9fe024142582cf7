import {
  argumentError,
  describeArgument,
  firstProblem,
  specProblem,
} from '../language/arguments.js';
import type { Spec } from '../language/index.js';
import { isRecord } from '../support/is-record.js';
import { allEngineParts } from './all-parts.js';
import { type ClockInput, createClock } from './clock.js';
import { compileSpec } from './compiled-spec.js';
import { describePattern, describeRuleBody } from './describe.js';
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
  readonly steps: readonly ExplainedRule[];
  readonly finish: readonly ExplainedRule[];
  readonly refused: readonly string[];
  readonly approval: readonly string[];
  readonly text: string;
}

/**
 * The spec in plain language, deterministically: its steps, the ways to finish and
 * its guards. `intentguard explain` prints it; the formalizer's decoding check
 * compares it with the user's instruction.
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
        const what = pattern ? describePattern(pattern, clock) : guard.pattern.predicate.name;
        return guard.reason === undefined ? what : `${what} — ${guard.reason}`;
      });
  const refused = guardText('reject');
  const approval = guardText('confirm');

  const lines: string[] = [];
  if (steps.length > 0) {
    lines.push('Steps:');
    steps.forEach((step, index) => {
      const notes = [
        step.id,
        ...(step.confirm ? [`needs the user's approval (${step.confirm})`] : []),
        ...(step.repeat ? [step.repeat] : []),
      ];
      lines.push(`${index + 1}. ${step.head} (${notes.join('; ')}): ${step.needs}.`);
    });
  }
  if (finish.length === 1)
    lines.push(`The task is done when: ${finish[0]?.needs} (${finish[0]?.id}).`);
  else if (finish.length > 1) {
    lines.push('The task is done when any of these holds:');
    finish.forEach((rule, index) => {
      lines.push(`  ${String.fromCharCode(97 + (index % 26))}) ${rule.needs} (${rule.id})`);
    });
  }
  if (refused.length > 0) lines.push('Always refused:', ...refused.map((line) => `- ${line}`));
  if (approval.length > 0)
    lines.push("Needs the user's approval:", ...approval.map((line) => `- ${line}`));
  lines.push(
    'Any other action marked critical (irreversible or sensitive) is refused as not part of the plan.',
  );
  return { steps, finish, refused, approval, text: lines.join('\n') };
}
