import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectDataFolder } from '../../src/cli/project-data.js';
import { dataPath, projectDataDirectory, readData } from '../support/project-data.js';

/*
 * The vendored benchmark data (data/README.md): each source with its license, every file
 * described, and none of it in the npm package.
 */

function filesUnder(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('data/', () => {
  it('holds each source with its MIT license, and the README names every file', () => {
    for (const license of ['taubench/LICENSE', 'toolemu/LICENSE'])
      expect(readData(license)).toMatch(/^MIT License/);
    const readme = readData('README.md');
    for (const file of filesUnder(projectDataDirectory)) {
      const name = relative(projectDataDirectory, file).split('/').at(-1) ?? '';
      if (name === 'README.md' || name === 'LICENSE') continue;
      expect(readme, name).toContain(name);
    }
  });

  it('is what the command line finds by default', () => {
    expect(projectDataFolder('toolemu')).toBe(dataPath('toolemu'));
    expect(existsSync(join(projectDataFolder('taubench/airline'), 'wiki.md'))).toBe(true);
  });

  it('is not shipped by npm pack', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: join(projectDataDirectory, '..'),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    ) as { files: { path: string }[] }[];
    const paths = packed[0]?.files.map((file) => file.path) ?? [];
    expect(paths).toContain('README.md');
    expect(paths.filter((path) => path.startsWith('data/'))).toEqual([]);
  }, 30_000);
});
