/** Bounds on one formalization run (checked by `formalize` and the CLI). */
export const formalizeLimits = Object.freeze({
  maxInstructionLength: 10_000,
  /**
   * Characters of the operator's policy the encoder's prompt shows: a longer policy is
   * shown without its comments, and one still longer cannot be formalized under.
   */
  maxPolicyPromptLength: 12_000,
  maxSamples: 16,
  maxRounds: 10,
});
