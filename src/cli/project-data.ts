import { fileURLToPath } from 'node:url';

/**
 * A folder of the repository's `data/` (data/README.md), found beside the code so that
 * `intentguard eval` runs on the project's own copy from any working directory — from
 * `src/` under tsx and from `dist/` alike. `npm pack` does not ship `data/`: an installed
 * package has no such folder, and the commands then say to give `--data DIR`.
 */
export function projectDataFolder(name: string): string {
  return fileURLToPath(new URL(`../../data/${name}`, import.meta.url));
}
