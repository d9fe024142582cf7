/**
 * The proposal that ends a replayed run: `finish` with the agent's final answer
 * (FORMATS.md §2), so that the spec judges what the agent tells the user — an answer
 * that shows calls never made is `fabricated-action`, and a `Done` rule may constrain
 * `Answer(text)`. A run without a final answer finishes without one.
 */
export function finishProposal(answer: string | undefined): Record<string, unknown> {
  return answer === undefined || answer === '' ? { finish: true } : { finish: true, answer };
}
