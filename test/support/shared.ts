import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Where the shared data and worked examples are: `$INTENTGUARD_SHARED`, else the
 * `shared` folder beside the checkout (`../shared`, as the data README says), else the
 * workplace's `/work/shared`. Tests fail with this message rather than skip when it is
 * missing: real data is what they test against.
 */
function locate(): string {
  const repository = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
  const candidates = [
    process.env.INTENTGUARD_SHARED,
    join(repository, '..', 'shared'),
    '/work/shared',
  ].filter((candidate): candidate is string => candidate !== undefined && candidate !== '');
  const found = candidates.find((candidate) => existsSync(join(candidate, 'examples')));
  if (found === undefined) {
    throw new Error(
      `The shared data folder was not found (looked in ${candidates.join(', ')}); set INTENTGUARD_SHARED.`,
    );
  }
  return found;
}

/** The absolute path of the shared folder. */
export const sharedDirectory = locate();

/** An absolute path inside the shared folder, e.g. `sharedPath('data/toolemu/toolkits.json')`. */
export function sharedPath(relative: string): string {
  return join(sharedDirectory, relative);
}

/** The same as a file URL (a trailing slash is kept, so it can be a base URL). */
export function sharedUrl(relative = ''): URL {
  const url = pathToFileURL(sharedPath(relative));
  if (relative === '' || relative.endsWith('/')) url.pathname = url.pathname.replace(/\/?$/, '/');
  return url;
}
