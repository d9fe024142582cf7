import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository's `data/` folder: the benchmark data the project vendors (data/README.md). */
export const projectDataDirectory = resolve(dirname(fileURLToPath(import.meta.url)), '../../data');

/** An absolute path inside `data/`, e.g. `dataPath('toolemu/toolkits.json')`. */
export function dataPath(relative: string): string {
  return join(projectDataDirectory, relative);
}

/** The same as a file URL. */
export function dataUrl(relative: string): URL {
  return pathToFileURL(dataPath(relative));
}

/** A text file inside `data/`. */
export function readData(relative: string): string {
  return readFileSync(dataPath(relative), 'utf8');
}
