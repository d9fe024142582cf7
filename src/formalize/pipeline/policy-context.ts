import {
  analyzeComposition,
  canonicalSpecText,
  checkPolicy,
  type Diagnostic,
  type Schema,
} from '../../language/index.js';
import type { FormalizeFailure } from '../failures.js';
import { formalizeLimits } from '../limits.js';

/** The operator's policy as one formalization uses it. */
export interface PolicyContext {
  /** The policy's source, as checked and as every draft is checked with. */
  readonly source: string;
  /** What the encoder's prompt shows: the source, or without its comments when too long. */
  readonly prompt: string;
}

/**
 * The policy of `FormalizeOptions.policy`, checked against the schema and fitted to the
 * prompt's budget; a policy that does not check, or does not fit even without its
 * comments, is the run's `invalid-input` failure.
 */
export function policyContext(
  source: string,
  schema: Schema,
): { readonly policy: PolicyContext } | { readonly failure: FormalizeFailure } {
  const checked = checkPolicy(source, schema);
  if (!checked.ok) {
    const errors = checked.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    const first = errors[0];
    const where = first?.range ? `${first.range.start.line}:${first.range.start.column}: ` : '';
    return {
      failure: {
        code: 'invalid-input',
        message: `the policy does not check: ${where}${first?.message ?? ''}${errors.length > 1 ? ` (and ${errors.length - 1} more errors)` : ''}`,
      },
    };
  }
  const limit = formalizeLimits.maxPolicyPromptLength;
  const prompt = source.length <= limit ? source : canonicalSpecText(checked.value);
  if (prompt.length > limit) {
    return {
      failure: {
        code: 'invalid-input',
        message: `the policy is ${prompt.length} characters long without its comments; the prompt shows at most ${limit}.`,
      },
    };
  }
  return { policy: { source, prompt } };
}

/**
 * A draft's diagnostics checked together with the policy (LANGUAGE.md §8): the intent's
 * side of `analyzeComposition`, so an objective name the policy owns is an error to
 * repair and an action the policy always refuses a `policy-conflict` warning. Ranges
 * point into `intentSource`.
 */
export function composedDiagnostics(
  intentSource: string,
  policy: PolicyContext,
  schema: Schema,
): readonly Diagnostic[] {
  return analyzeComposition(intentSource, policy.source, schema).intent;
}
