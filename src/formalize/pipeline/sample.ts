import {
  canonicalSpecText,
  checkGrounding,
  checkSpec,
  failure,
  type Result,
  type Spec,
  type SpecFromText,
  success,
} from '../../language/index.js';
import { errorMessage } from '../../support/error-message.js';
import type { FormalizeFailure } from '../failures.js';
import type { ChatMessage } from '../model/model.js';
import { encoderSystemPrompt, encoderUserPrompt } from '../prompts/encode.js';
import {
  groundingPrompt,
  habitProblems,
  repairPrompt,
  revisionPrompt,
} from '../prompts/feedback.js';
import { ambiguityPrompt, readSpecReply } from '../replies/spec-reply.js';
import {
  type AttemptBase,
  type CallResult,
  type Context,
  callStage,
  record,
  SampleFailure,
} from './context.js';
import { composedDiagnostics } from './policy-context.js';
import { extractGoal, semanticCheck } from './stages.js';
import type { SampleOutcome } from './types.js';

/** Warnings of specs that check but cannot mean what they say: sent back like errors. */
const meaningWarnings: ReadonlySet<string> = new Set(['record-list-compared-with-text']);

/** Where a sample stands: its round, and whether ungrounded values already went back once. */
interface SampleState {
  readonly sample: number;
  round: number;
  groundingRepaired: boolean;
}

/** An encoder call as it came back, for its attempt to be recorded with the outcome. */
interface Draft {
  readonly reply: string;
  readonly result: CallResult;
  readonly base: AttemptBase;
}

/** What becomes of a draft: a spec the sample ends with, or a message for the next round. */
type Next = { readonly spec: Spec; readonly text: string } | { readonly feedback: string };

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * The encoder's first request: in the two-stage mode with stage 1's goal analysis, or
 * (when it could not be read) with why not.
 */
async function firstRequest(
  context: Context,
  sample: number,
): Promise<{ system: string; messages: ChatMessage[]; goalProblem?: string }> {
  const stageOne = context.mode === 'two-stage' ? await extractGoal(context, sample) : undefined;
  const goal = stageOne && 'text' in stageOne ? stageOne.text : undefined;
  const goalProblem = stageOne && 'problem' in stageOne ? stageOne.problem : undefined;
  // The refinement guidance stays when stage 1 failed: the mode that runs is the one reported.
  const system = encoderSystemPrompt(
    context.mode === 'two-stage' ? 'refine' : 'direct',
    context.examples,
  );
  const content = encoderUserPrompt({
    instruction: context.instruction,
    schema: context.schema,
    selection: context.selection,
    now: context.now,
    timeZone: context.timeZone,
    experiences: context.experiences,
    ...(context.policy ? { policy: context.policy.prompt } : {}),
    ...(goal !== undefined ? { goal } : {}),
    ...(goalProblem !== undefined ? { goalProblem } : {}),
  });
  return {
    system,
    messages: [{ role: 'user', content }],
    ...(goalProblem !== undefined ? { goalProblem } : {}),
  };
}

/**
 * A draft checked against the schema and, with a policy, together with it: an error of
 * the pair (an objective the policy owns) is the draft's to repair, and the pair's
 * warnings are the draft's diagnostics.
 */
function checkDraftSpec(context: Context, text: string): Result<SpecFromText> {
  const checked = checkSpec(text, context.schema);
  if (!checked.ok || context.policy === undefined) return checked;
  const diagnostics = composedDiagnostics(text, context.policy, context.schema);
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error')
    ? failure(diagnostics)
    : success(checked.value, diagnostics);
}

/**
 * The static checks of a draft: one spec in the reply, which checks against the
 * schema and uses only values the instruction gives. What fails goes back as the
 * next round's message, or ends the sample when no round is left.
 */
function checkDraft(context: Context, state: SampleState, draft: Draft): Next {
  const { reply, result, base } = draft;
  const { round } = state;
  const read = readSpecReply(reply);
  if (read.kind === 'ambiguous') {
    // Several different specs in one reply: asking again costs a round, a guess
    // could hand out the wrong one.
    const problem = `the reply holds ${read.candidates.length} different candidate specs (${read.candidates.map((candidate) => `${candidate.label} at line ${candidate.line}`).join(', ')})`;
    record(context, base, result, { outcome: 'ambiguous', problem });
    if (round >= context.rounds) {
      throw new SampleFailure(
        'invalid-spec',
        `${problem}, still after ${plural(context.rounds, 'repair round')}; none was taken.`,
      );
    }
    return { feedback: ambiguityPrompt(read.candidates) };
  }
  // The rewritten text has the reply's length and lines: diagnostics point into the reply.
  const checked = checkDraftSpec(context, read.text);
  if (!checked.ok) {
    record(context, base, result, { outcome: 'invalid', diagnostics: checked.diagnostics });
    if (round >= context.rounds) {
      const errors = checked.diagnostics.filter(
        (diagnostic) => diagnostic.severity === 'error',
      ).length;
      throw new SampleFailure(
        'invalid-spec',
        `the spec still had ${plural(errors, 'error')} after ${plural(context.rounds, 'repair round')}.`,
      );
    }
    const { schema, shown } = context;
    return { feedback: repairPrompt({ reply, diagnostics: checked.diagnostics, schema, shown }) };
  }
  const spec = checked.value;
  const text = canonicalSpecText(spec);
  const ungrounded = context.grounding ? checkGrounding(spec, context.grounding) : [];
  record(context, base, result, {
    outcome: ungrounded.length > 0 ? 'ungrounded' : 'valid',
    diagnostics: [...checked.diagnostics, ...ungrounded],
    spec: text,
  });
  if (ungrounded.length === 0) return { spec, text };
  if (state.groundingRepaired || round >= context.rounds) {
    throw new SampleFailure(
      'ungrounded-spec',
      `the spec uses values the instruction does not give${state.groundingRepaired ? ', still after a repair' : ''}: ${ungrounded.map((diagnostic) => diagnostic.message).join(' ')}`,
    );
  }
  state.groundingRepaired = true;
  return { feedback: groundingPrompt({ reply, diagnostics: ungrounded }) };
}

/**
 * A spec that passed the static checks: sent back while it cannot mean what it says
 * and rounds remain, then compared with the instruction by the checker (unless it is
 * off). A disagreement goes back as a revision, or ends the sample after the last round.
 */
async function reviewSpec(
  context: Context,
  state: SampleState,
  reply: string,
  checked: { readonly spec: Spec; readonly text: string },
): Promise<Next> {
  const { spec } = checked;
  const { sample, round } = state;
  // A spec that checks but cannot mean what it says goes back once per round while
  // rounds remain; after that it stands, with its warning.
  const meaningless = spec.warnings.filter((warning) => meaningWarnings.has(warning.code));
  const habits = habitProblems(
    spec.rules
      .filter((rule) => !rule.isDone)
      .map((rule) => ({ name: rule.head, repeats: rule.repeat !== undefined })),
  );
  if (meaningless.length + habits.length > 0 && round < context.rounds) {
    const { schema, shown } = context;
    return {
      feedback: repairPrompt({ reply, diagnostics: meaningless, notes: habits, schema, shown }),
    };
  }
  if (context.checker === false) return checked;
  const verdict = await semanticCheck(context, context.checker, spec, sample, round);
  if (verdict.agree) return checked;
  if (round >= context.rounds) {
    throw new SampleFailure(
      'semantic-disagreement',
      `the checker still found discrepancies after ${plural(context.rounds, 'round')}: ` +
        verdict.discrepancies.map((discrepancy) => discrepancy.issue).join('; '),
    );
  }
  return {
    feedback: revisionPrompt({ reading: verdict.reading, discrepancies: verdict.discrepancies }),
  };
}

/** One sample: draft, then repair and revise for at most `rounds` rounds. */
export async function runSample(context: Context, sample: number): Promise<SampleOutcome> {
  const state: SampleState = { sample, round: 0, groundingRepaired: false };
  let goalProblem: string | undefined;
  const finishWith = (outcome: SampleOutcome): SampleOutcome =>
    finish(context, goalProblem === undefined ? outcome : { ...outcome, goalProblem });
  try {
    const first = await firstRequest(context, sample);
    goalProblem = first.goalProblem;
    const { system, messages } = first;
    for (state.round = 0; ; state.round++) {
      const { round } = state;
      const { result, base } = await callStage(
        context,
        context.options.model,
        { purpose: 'encode', sample, round, system, messages, temperature: context.temperature },
        'encode',
      );
      const reply = result.response?.text ?? '';
      messages.push({ role: 'assistant', content: reply });
      const checked = checkDraft(context, state, { reply, result, base });
      const next =
        'feedback' in checked ? checked : await reviewSpec(context, state, reply, checked);
      if ('feedback' in next) {
        messages.push({ role: 'user', content: next.feedback });
        continue;
      }
      return finishWith({ sample, ok: true, text: next.text, spec: next.spec, rounds: round });
    }
  } catch (error) {
    const failure: FormalizeFailure =
      error instanceof SampleFailure
        ? { code: error.code, message: error.message }
        : { code: 'model-error', message: errorMessage(error) };
    return finishWith({ sample, ok: false, failure, rounds: state.round });
  }
}

function finish(context: Context, outcome: SampleOutcome): SampleOutcome {
  context.options.onProgress?.({ kind: 'sample', outcome });
  return outcome;
}
