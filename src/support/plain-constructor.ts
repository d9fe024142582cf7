/**
 * Turns a function that fills `this` into a constructor of plain objects: what it makes has
 * `Object.prototype` as its prototype (it reads as a plain object everywhere, `isRecord`
 * included) but is made by `new`, not by an object literal.
 *
 * Why: V8 tracks where each object literal is made and, once most of one site's objects
 * have outlived a few collections, makes all its later objects directly in the old
 * generation ("pretenuring"). Objects a long-lived session keeps (its verdicts, its
 * history) teach the site that; from then on the many that die young die in the old
 * generation and wait for a full marking of the heap. Objects made by `new` are not
 * tracked so.
 *
 * @example
 * const Point = plainConstructor<[x: number, y: number], { x: number; y: number }>(
 *   function (this: Record<string, unknown>, x, y) { this.x = x; this.y = y; },
 * );
 * new Point(1, 2); // { x: 1, y: 2 }
 */
export function plainConstructor<Args extends unknown[], Made>(
  fill: (this: Record<string, unknown>, ...args: Args) => void,
): new (
  ...args: Args
) => Made {
  // A function's `prototype` is what `new` gives its objects.
  fill.prototype = Object.prototype;
  return fill as unknown as new (
    ...args: Args
  ) => Made;
}
