/*
 * One base class for everything intentguard throws on purpose. A host tells our errors
 * from anything else with `IntentguardError.isInstance(error)` and branches on `code`,
 * which is stable (the message is English for people and may change).
 *
 * The check is a `Symbol.for` marker rather than `instanceof` or the class name: two
 * copies of the package (a bundled one and an installed one, or two versions in one
 * dependency tree) have two different classes, but the registry symbol is the same.
 */

const marker = 'intentguard.error';
const symbol = Symbol.for(marker);

/** Whether `error` carries the marker of `markerName` (set by the class of that name). */
function hasMarker(error: unknown, markerName: string): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const markerSymbol = Symbol.for(markerName);
  return (error as Record<symbol, unknown>)[markerSymbol] === true;
}

export interface IntentguardErrorOptions {
  /** What went wrong, as a stable code (kebab-case). */
  readonly code: string;
  readonly message: string;
  readonly cause?: unknown;
}

/**
 * The base of intentguard's error classes: a stable `code`, a `name` per class, and a
 * marker that `isInstance` checks across package copies.
 *
 * @example
 * try {
 *   unwrap(checkSpec(text, schema));
 * } catch (error) {
 *   if (IntentguardError.isInstance(error)) console.error(error.code, error.message);
 *   else throw error;
 * }
 */
export class IntentguardError extends Error {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the marker `isInstance` looks for
  private readonly [symbol] = true;
  readonly code: string;

  constructor({ code, message, cause }: IntentguardErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'IntentguardError';
    this.code = code;
  }

  /** Whether `error` is an intentguard error of any kind, from any copy of the package. */
  static isInstance(error: unknown): error is IntentguardError {
    return hasMarker(error, marker);
  }

  /**
   * For subclasses: whether `error` carries their own marker. Each subclass defines a
   * marker `intentguard.error.<Name>`, sets it as a field and checks it in its
   * `isInstance`, so that a `ModelError` check does not accept a `MemoryError`.
   */
  protected static hasMarker(error: unknown, markerName: string): boolean {
    return hasMarker(error, markerName);
  }
}
