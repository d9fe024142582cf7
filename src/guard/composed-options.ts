import type { CompiledComposition } from '../language/read-compiled-composition.js';
import type { GuardOptions } from './types.js';

/**
 * The options of a guard over a compiled composition (`intentguard compile --policy`):
 * the document brings its own policy, enforced with the spec, and a second one in
 * `options.policy` is an error rather than a silent choice between them.
 */
export function composedOptions(
  read: CompiledComposition,
  options: GuardOptions,
  caller: string,
): GuardOptions {
  if (read.policy === undefined) return options;
  if (options.policy !== undefined)
    throw new TypeError(
      `${caller}: the compiled document composes its own policy; 'options.policy' would be a second one — give one or the other`,
    );
  return { ...options, policy: read.policy };
}
