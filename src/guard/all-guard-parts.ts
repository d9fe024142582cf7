import { allEngineParts } from '../engine/all-parts.js';
import type { GuardParts } from './tool-result-reader.js';
import { toolResultObservation } from './tool-results.js';

/**
 * Every part a guard may need (tool-result-reader.ts), as the guard's Node entry points
 * (`createGuard`, `restoreGuard`; the CLI, the service, the proxy and the adapters build
 * on them) give by default. A page's guard from a compiled spec imports none of this.
 */
export const allGuardParts: GuardParts = { ...allEngineParts, toolResults: toolResultObservation };

/** Guard options with every part where they give none (`options.parts` given is kept as it is). */
export function withAllGuardParts<Options extends { readonly parts?: GuardParts }>(
  options: Options,
): Options {
  return options.parts === undefined ? { ...options, parts: allGuardParts } : options;
}
