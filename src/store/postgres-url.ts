/**
 * Telling a PostgreSQL URL from a file name, and showing one without its secrets: apart
 * from postgres.ts so that deciding which store to open loads no driver.
 */

/** Whether `db` names a PostgreSQL database (`postgres://…`, `postgresql://…`) rather than a file. */
export function isPostgresUrl(db: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(db);
}

/**
 * The URL as messages and logs may show it: without its password, and without query
 * parameters (which may carry one: `?password=`, `?sslkey=`). A file name is shown as is.
 */
export function redactedUrl(url: string): string {
  if (!isPostgresUrl(url)) return url;
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'a postgres:// URL that does not parse';
  }
}
