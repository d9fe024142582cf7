import { abbreviate, describeValue, type JsonRecord } from './json-input.js';
import { childPath } from './json-path.js';
import type { LoadContext } from './load-context.js';

/**
 * An optional description field: absent is `''`; anything but a string, or a string
 * over the limit, is reported. Always returns something usable so that the caller can
 * go on collecting problems; the load fails on any reported error.
 */
export function readDescription(
  record: JsonRecord,
  path: string,
  context: LoadContext,
  field = 'description',
): string {
  const value = record[field];
  const fieldPath = childPath(path, field);
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') {
    context.problem(
      'schema-wrong-type',
      fieldPath,
      `'${field}' must be a string; found ${describeValue(value)}.`,
    );
    return '';
  }
  if (value.length > context.limits.maxDescriptionLength) {
    context.problem(
      'schema-too-large',
      fieldPath,
      `This description is ${value.length} characters long; at most ${context.limits.maxDescriptionLength} are accepted.`,
      'Shorten it; descriptions are shown to the model that writes specs.',
    );
    return value.slice(0, context.limits.maxDescriptionLength);
  }
  return value.trim();
}

/** A name that must not exceed the length limit; reports and answers false when it does. */
export function checkNameLength(
  name: string,
  what: string,
  path: string,
  context: LoadContext,
): boolean {
  if (name.length <= context.limits.maxNameLength) return true;
  context.problem(
    'schema-too-large',
    path,
    `The ${what} name '${abbreviate(name)}' is ${name.length} characters long; at most ${context.limits.maxNameLength} are accepted.`,
  );
  return false;
}
