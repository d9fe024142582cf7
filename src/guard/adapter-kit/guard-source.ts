import { argumentError, describeArgument } from '../../language/arguments.js';
import type { Guard } from '../types.js';

/**
 * Where an adapter's guard comes from: one `Guard` for one run, or a function that finds
 * the guard of the run at hand from what the framework passes (the AI SDK's approval
 * options, the OpenAI Agents run context, a LangChain thread's journal).
 */
export type GuardSource<TContext = never> = Guard | ((context: TContext) => Guard);

function isGuard(value: unknown): value is Guard {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<Guard>).check === 'function' &&
    typeof (value as Partial<Guard>).journal === 'function'
  );
}

/** Checks a source where an adapter is set up: a guard, or a function (`TypeError` otherwise). */
export function checkGuardSource<TContext>(source: unknown, caller: string): GuardSource<TContext> {
  if (typeof source === 'function' || isGuard(source)) return source as GuardSource<TContext>;
  throw argumentError(caller, {
    parameter: 'guard',
    expected: 'a Guard (createGuard) or a function that returns the guard of a run',
    actual: describeArgument(source),
  });
}

/**
 * The guard of the run at hand. A function that throws, or returns something that is not
 * a guard, throws a `TypeError`: adapters call this inside their fail-closed path, so the
 * call is refused with the reason, never run unchecked.
 */
export function resolveGuard<TContext>(source: GuardSource<TContext>, context: TContext): Guard {
  if (typeof source !== 'function') return source;
  const guard: unknown = source(context);
  if (!isGuard(guard)) throw new TypeError('intentguard: the guard source did not return a guard');
  return guard;
}
