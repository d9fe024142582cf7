import type { GuardSource } from '../../guard/adapter-kit/index.js';
import { resolveGuard } from '../../guard/adapter-kit/index.js';
import type { Guard } from '../../guard/index.js';
import type { RunContextLike } from './types.js';

/** The guard of this run: the one given, or the one the app keeps in the run's context. */
export function guardOf(
  source: GuardSource<RunContextLike<never>>,
  runContext: RunContextLike | undefined,
): Guard {
  if (typeof source !== 'function') return source;
  if (runContext === undefined)
    throw new TypeError(
      'intentguard: the guard is looked up in the run context, but the SDK passed none',
    );
  // The app's context type is the app's promise: the SDK hands the run's context through.
  return resolveGuard(source, runContext as RunContextLike<never>);
}

/** The arguments the model wrote, parsed; the text itself when it is not JSON. */
export function parsedArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
