import { errorMessage } from '../support/error-message.js';

/**
 * Proposals and observations are JSON data (FORMATS.md §2). A library host may pass
 * anything, though: a BigInt, a cyclic object, a structure nested a hundred thousand
 * levels deep, a getter or `toJSON` that throws. Reading never follows such a value
 * blindly — it descends only along the schema's fields, and a throwing getter makes the
 * input unreadable (proposal.ts) — but where a value is serialised whole (a variable
 * that takes any JSON, read as its JSON text), this bounded, non-recursive walk checks
 * it first, so each of these is the caller's invalid input and never an engine failure.
 */

/** Cuts text to `max` characters with an ellipsis (values.ts's `cutText`; no import cycle). */
function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  // Copied, not sliced: a slice may keep the whole original alive.
  return `${text
    .slice(0, Math.max(0, max - 1))
    .split('')
    .join('')}…`;
}

/** What the walk may visit: how deep, and how many values in all. */
export interface PlainDataBounds {
  readonly maxDepth: number;
  /** Values visited at most (shared sub-objects count each time they are reached). */
  readonly maxValues: number;
}

function kindOf(value: unknown): string {
  switch (typeof value) {
    case 'bigint':
      return 'a BigInt';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return '';
  }
}

function className(value: object): string {
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)
    ?.constructor?.name;
  return typeof name === 'string' && name !== '' ? `a ${name}` : 'an object with a prototype';
}

/** Whether `target` is reachable from itself, looking at most `maxValues` values deep into `root`. */
function hasCycle(root: object, maxValues: number): boolean {
  // Depth-first with exit markers, so that `onPath` holds exactly the current ancestors.
  const stack: unknown[] = [root];
  const exits: boolean[] = [false];
  const onPath = new Set<unknown>();
  let visited = 0;
  while (stack.length > 0 && visited++ < maxValues) {
    const value = stack.pop();
    if (exits.pop()) {
      onPath.delete(value);
      continue;
    }
    if (onPath.has(value)) return true;
    onPath.add(value);
    stack.push(value);
    exits.push(true);
    const children = Array.isArray(value) ? value : Object.values(value as object);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        exits.push(false);
      }
    }
  }
  return false;
}

/**
 * Why `input` is not plain JSON data (strings, finite or not numbers, booleans, null,
 * arrays and plain objects; `undefined` reads as absent), or undefined when it is.
 * Iterative and bounded: its cost is at most `bounds.maxValues` steps, whatever the input.
 */
export function plainDataProblem(input: unknown, bounds: PlainDataBounds): string | undefined {
  if (typeof input !== 'object' || input === null) return kindOf(input) || undefined;
  const stack: object[] = [input];
  const depths: number[] = [0];
  let visited = 0;
  try {
    while (stack.length > 0) {
      const value = stack.pop() as object;
      const depth = depths.pop() ?? 0;
      if (depth >= bounds.maxDepth) {
        return hasCycle(input, bounds.maxValues)
          ? 'it refers to itself (a cyclic object)'
          : `it is nested more than ${bounds.maxDepth} levels deep`;
      }
      let children: readonly unknown[];
      if (Array.isArray(value)) children = value;
      else {
        const prototype: unknown = Object.getPrototypeOf(value);
        if (prototype !== Object.prototype && prototype !== null)
          return `it holds ${className(value)}`;
        // Reading each property runs its getter, if any: a throwing one ends up below.
        children = Object.values(value);
      }
      visited += children.length;
      if (visited > bounds.maxValues) return `it holds more than ${bounds.maxValues} values`;
      for (const child of children) {
        if (typeof child === 'object') {
          if (child !== null) {
            stack.push(child);
            depths.push(depth + 1);
          }
        } else {
          const kind = kindOf(child);
          if (kind !== '') return `it holds ${kind}`;
        }
      }
    }
  } catch (error) {
    return `reading it failed (${cutText(errorMessage(error), 200)})`;
  }
  return undefined;
}

/** Containers deeper than this are shown as `[…]` / `{…}` when a value is quoted. */
const previewDepth = 3;

function previewJson(value: unknown, max: number, depth: number): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > max ? value.slice(0, max) : value);
  if (typeof value !== 'object' || value === null) {
    // Numbers, booleans, null; anything else only in a message about that very value.
    return typeof value === 'bigint' ? `${cutText(String(value), max)}n` : String(value);
  }
  const isArray = Array.isArray(value);
  if (depth >= previewDepth) return isArray ? '[…]' : '{…}';
  let text = isArray ? '[' : '{';
  let first = true;
  const add = (part: string) => {
    text += `${first ? '' : ','}${part}`;
    first = false;
  };
  if (isArray) {
    for (const item of value) {
      if (text.length > max) break;
      add(previewJson(item, max, depth + 1));
    }
  } else {
    for (const key in value) {
      if (text.length > max) break;
      if (!Object.hasOwn(value, key)) continue;
      const item = (value as Record<string, unknown>)[key];
      add(`${JSON.stringify(cutText(key, max))}:${previewJson(item, max, depth + 1)}`);
    }
  }
  return `${text}${isArray ? ']' : '}'}`;
}

/**
 * An agent's value as a problem quotes it: a string as it is, anything else as compact JSON,
 * cut to `max` characters — built from the part that is shown, never by serialising a
 * megabyte to keep a hundred characters of it.
 */
export function preview(value: unknown, max: number): string {
  try {
    return cutText(
      typeof value === 'string' ? value.slice(0, max + 1) : previewJson(value, max, 0),
      max,
    );
  } catch {
    return '(unreadable)';
  }
}

/**
 * Characters of data as a session or a journal keeps it (S1): each string and key its
 * length, any other value 8. Walked with a stack (data is as deep as a client's JSON)
 * and each object once (a host's object may have cycles); a getter that throws leaves
 * the count as far as it got.
 */
export function keptSize(data: unknown): number {
  let total = 0;
  const seen = new Set<object>();
  const stack: unknown[] = [data];
  try {
    while (stack.length > 0) {
      const value = stack.pop();
      if (typeof value === 'string') total += value.length;
      else if (typeof value !== 'object' || value === null) total += 8;
      else if (!seen.has(value)) {
        seen.add(value);
        if (Array.isArray(value)) for (const element of value) stack.push(element);
        else
          for (const [key, field] of Object.entries(value)) {
            total += key.length;
            stack.push(field);
          }
      }
    }
  } catch {
    // A host's getter threw: the reading of the observation reports it.
  }
  return total;
}
