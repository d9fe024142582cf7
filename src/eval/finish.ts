/**
 * The proposal that ends a replayed run. THE ONE PLACE to change when Language v2
 * lands: v2 proposals carry the agent's final answer (`{"finish": true, "answer": …}`,
 * FORMATS.md §2), so that a spec can judge what the agent tells the user. Until then
 * the answer is kept for reports only and the finish is a plain `{"finish": true}`.
 */
export function finishProposal(_answer: string | undefined): Record<string, unknown> {
  return { finish: true };
}
