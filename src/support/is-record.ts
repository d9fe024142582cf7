/** An object that is not an array: what a JSON object parses to, read key by key. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A record made by `JSON.parse` or an object literal (prototype `Object.prototype` or
 * `null`): a document reader that must not read a class instance's inherited members.
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
