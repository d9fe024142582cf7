import { errorMessage } from '../support/error-message.js';
import type { LoadContext } from './load-context.js';

export type JsonRecord = Readonly<Record<string, unknown>>;

/** How a value reads in a message: `a string`, `an array`, `null`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return `${value}`;
  return `a ${typeof value} value`;
}

/** Shortens a name for a message so that a hostile 10,000-character name cannot flood it. */
export function abbreviate(text: string, maxLength = 60): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 1)}…`;
}

/**
 * Turns what a loader was given into a JSON value: text is parsed (a leading byte order
 * mark is dropped, as editors on Windows write one), bytes are decoded as UTF-8, and
 * anything else is taken as already parsed. Undefined, with a diagnostic, when that fails.
 */
export function readJsonInput(
  input: unknown,
  context: LoadContext,
): { value: unknown } | undefined {
  const text = input instanceof Uint8Array ? new TextDecoder().decode(input) : input;
  if (typeof text !== 'string') {
    if (text === undefined) {
      context.problem('schema-invalid', '$', 'No schema was given.');
      return undefined;
    }
    return { value: text };
  }
  if (text.length > context.limits.maxInputLength) {
    context.problem(
      'schema-too-large',
      '$',
      `The schema is ${text.length} characters long; at most ${context.limits.maxInputLength} are accepted.`,
    );
    return undefined;
  }
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { value: JSON.parse(source) as unknown };
  } catch (error) {
    context.bag.report('schema-invalid-json', { path: '$' }, jsonErrorData(error, source));
    return undefined;
  }
}

/** The parser's reason, with a line and column when the parser says where it stopped. */
function jsonErrorData(error: unknown, source: string): Record<string, string | number> {
  const reason = errorMessage(error);
  const match = /at position (\d+)/.exec(reason);
  if (match?.[1] === undefined) return { reason };
  const offset = Number(match[1]);
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - before.lastIndexOf('\n');
  return { reason: `${reason} (line ${line}, column ${column})`, offset, line, column };
}
