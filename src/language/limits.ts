/**
 * Hard limits against hostile input. Specs come from LLMs and the network, so every
 * dimension that could make parsing or checking slow or recursive is bounded here, in
 * one place, and exceeding one is a diagnostic rather than a crash.
 */
export interface Limits {
  /** Characters of spec text accepted at all. */
  readonly maxInputLength: number;
  /** Rules plus guards in one spec. */
  readonly maxItems: number;
  /** Atoms in one rule body. */
  readonly maxBodyAtoms: number;
  /** Constraints in one predicate pattern or guard. */
  readonly maxConstraints: number;
  /** Nesting of list values (`[[...]]`), the only recursive construct. */
  readonly maxNestingDepth: number;
  /** Characters in one string or regex literal. */
  readonly maxStringLength: number;
  /** Characters in one identifier. */
  readonly maxIdentifierLength: number;
  /** Elements in one list value. */
  readonly maxListLength: number;
  /** Diagnostics collected before the rest are summarised in one. */
  readonly maxDiagnostics: number;
}

export const defaultLimits: Limits = Object.freeze({
  maxInputLength: 4_000_000,
  maxItems: 20_000,
  maxBodyAtoms: 64,
  maxConstraints: 64,
  maxNestingDepth: 8,
  maxStringLength: 4_096,
  maxIdentifierLength: 128,
  maxListLength: 1_000,
  maxDiagnostics: 100,
});

/** Merges overrides into the defaults; the result is frozen. */
export function resolveLimits(overrides?: Partial<Limits>): Limits {
  if (overrides === undefined) return defaultLimits;
  return Object.freeze({ ...defaultLimits, ...overrides });
}
