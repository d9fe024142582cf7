const plainKey = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The JSONPath of a child: `$.Alarm`, `$.Alarm.variables[1]`, `$['my tool']`.
 * Diagnostics carry these so that a problem can be found in a large file.
 */
export function childPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  if (plainKey.test(key)) return `${parent}.${key}`;
  return `${parent}['${key.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}']`;
}

/** The JSONPath of a JSON Pointer fragment (`#/$defs/Address`) below a document at `root`. */
export function pointerPath(root: string, segments: readonly string[]): string {
  return segments.reduce<string>((path, segment) => childPath(path, segment), root);
}
