import { fileURLToPath } from 'node:url';

/**
 * A path in the repository — its `data/` (data/README.md) or `examples/` — found beside
 * the code, so that `intentguard eval` runs on the project's own copy from any working
 * directory, from `src/` under tsx and from `dist/` alike. `npm pack` ships neither
 * folder: an installed package has no such path, and the commands then say to give
 * `--data DIR` (and the schema's files).
 */
export function projectPath(relative: string): string {
  return fileURLToPath(new URL(`../../${relative}`, import.meta.url));
}

/** A folder of the repository's `data/`. */
export function projectDataFolder(name: string): string {
  return projectPath(`data/${name}`);
}
