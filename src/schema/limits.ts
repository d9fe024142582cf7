/**
 * Hard limits for loading schemas. Schema files and tool lists come from app
 * developers, MCP servers and the network, so every dimension that could make loading
 * slow, deep or huge is bounded here, in one place; exceeding one is a diagnostic.
 */
export interface SchemaLimits {
  /** Characters of JSON text accepted at all. */
  readonly maxInputLength: number;
  /** Predicates in one schema (a tool makes two: its action and its result). */
  readonly maxPredicates: number;
  /** Tools in one tool schema. */
  readonly maxTools: number;
  /** Variables of one predicate, counting every field of its records (LANGUAGE.md §7). */
  readonly maxVariables: number;
  /** Values of one enum. */
  readonly maxEnumValues: number;
  /** Characters of one enum value. */
  readonly maxEnumValueLength: number;
  /** Characters of one description. */
  readonly maxDescriptionLength: number;
  /** Characters of one predicate or variable name. */
  readonly maxNameLength: number;
  /** Levels of nested records (`a.b.c` is three); deeper objects stay `json`. */
  readonly maxFlattenDepth: number;
  /** `$ref`s followed in a chain, and unions nested in unions, before giving up. */
  readonly maxReferenceDepth: number;
  /** Diagnostics collected before the rest are summarised in one. */
  readonly maxDiagnostics: number;
}

export const defaultSchemaLimits: SchemaLimits = Object.freeze({
  maxInputLength: 20_000_000,
  maxPredicates: 10_000,
  maxTools: 5_000,
  maxVariables: 1_000,
  maxEnumValues: 1_000,
  maxEnumValueLength: 1_000,
  maxDescriptionLength: 10_000,
  maxNameLength: 128,
  maxFlattenDepth: 3,
  maxReferenceDepth: 16,
  maxDiagnostics: 100,
});

/** Merges overrides into the defaults; the result is frozen. */
export function resolveSchemaLimits(overrides?: Partial<SchemaLimits>): SchemaLimits {
  if (overrides === undefined) return defaultSchemaLimits;
  return Object.freeze({ ...defaultSchemaLimits, ...overrides });
}
