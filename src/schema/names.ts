const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether the language can write this name as is: `[A-Za-z_][A-Za-z0-9_]*`. */
export function isIdentifier(name: string): boolean {
  return identifierPattern.test(name);
}

/**
 * Rewrites a name the language cannot write into one it can: every other character
 * becomes `_`, and a leading digit gets a `_` before it (`get-weather` → `get_weather`,
 * `3d_enabled` → `_3d_enabled`). Undefined when the name has no ASCII letter or digit
 * at all, because then the rewrite would carry none of its meaning.
 */
export function sanitizeName(name: string): string | undefined {
  if (isIdentifier(name)) return name;
  if (!/[A-Za-z0-9]/.test(name)) return undefined;
  const replaced = name.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[0-9]/.test(replaced) ? `_${replaced}` : replaced;
}

/** `Done` finishes a task in every spec, so no predicate may take its name (in any case). */
export function isReservedPredicateName(name: string): boolean {
  return name.toLowerCase() === 'done';
}
