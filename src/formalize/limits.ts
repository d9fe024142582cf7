/** Bounds on one formalization run (checked by `formalize` and the CLI). */
export const formalizeLimits = Object.freeze({
  maxInstructionLength: 10_000,
  maxSamples: 16,
  maxRounds: 10,
});
