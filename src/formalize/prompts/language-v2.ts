import type { WorkedExample } from './examples.js';

/**
 * Language v2 in the encoder's prompt (LANGUAGE.md §7: records and `json` values,
 * paths, filters `list[field op v]`, `count(...)`, `any`/`each`, bindings `$x`,
 * arithmetic and durations, `as` coercion, `not`, `(A | B)`, `@repeat(per: …)`,
 * `Answer(text)`, `ask`).
 *
 * RESERVED: left empty on purpose until Language v2 is in the parser and checker. The
 * summary is appended to the v1 language summary of every encoder prompt when it is
 * not empty; the examples are shown with the v1 examples of their kind. The prompt
 * test checks every worked example against its schema, so v2 examples must check.
 */
export const languageV2Summary = '';

/** Worked examples that use v2 (a tool result filtered by a field, a binding from a lookup). */
export const workedExamplesV2: readonly WorkedExample[] = [];
