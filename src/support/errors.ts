/*
 * One base class for everything intentguard throws on purpose. A host tells our errors
 * from anything else with `IntentguardError.isInstance(error)` and branches on `code`,
 * which is stable (the message is English for people and may change).
 *
 * The check is a `Symbol.for` marker rather than `instanceof` or the class name: two
 * copies of the package (a bundled one and an installed one, or two versions in one
 * dependency tree) have two different classes, but the registry symbol is the same.
 *
 * A class declares only its `static readonly marker`; the base constructor sets the
 * marker of every class from the instance's own up to this one, and the one `isInstance`
 * reads the marker of the class it is called on. So no class can set a marker it does not
 * check, or check one it never sets (test/architecture/errors.test.ts finds every subclass
 * and checks that each declares its own).
 */

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
  /** The `Symbol.for` key that marks this class's instances; every subclass declares its own. */
  static readonly marker: string = 'intentguard.error';
  readonly code: string;

  constructor({ code, message, cause }: IntentguardErrorOptions) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'IntentguardError';
    this.code = code;
    // From the instance's class up to this one: a class that declares no marker of its
    // own adds none (and the architecture test names it).
    for (let type: object | null = new.target; type !== null; type = Object.getPrototypeOf(type)) {
      const marker = Object.hasOwn(type, 'marker') ? Reflect.get(type, 'marker') : undefined;
      if (typeof marker === 'string')
        Object.defineProperty(this, Symbol.for(marker), {
          value: true,
          enumerable: true,
          writable: true,
        });
      if (type === IntentguardError) break;
    }
  }

  /**
   * Whether `error` is an instance of the class this is called on (`ModelError.isInstance`
   * accepts a `ModelError` and its subclasses only), from any copy of the package.
   */
  static isInstance<T>(
    this: { readonly marker: string; readonly prototype: T },
    error: unknown,
  ): error is T {
    if (typeof error !== 'object' || error === null) return false;
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class it is called on, whose marker counts
    return Reflect.get(error, Symbol.for(this.marker)) === true;
  }
}
