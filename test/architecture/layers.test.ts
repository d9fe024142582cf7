import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * ARCHITECTURE.md's layering, pinned: imports point downward only, and the
 * runtime-neutral layers use no Node APIs.
 */
const sourceRoot = resolve(new URL('../../src', import.meta.url).pathname);
const layers = [
  'support',
  'language',
  'schema',
  'engine',
  'formalize',
  'store',
  'guard',
  'integrations',
  'eval',
  'cli',
] as const;
const runtimeNeutral = new Set(['support', 'language', 'schema', 'engine', 'guard']);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

function importsOf(path: string): string[] {
  // Comments hold usage examples (`from 'intentguard'`) that are not imports.
  const text = readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  return [
    ...text.matchAll(
      /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g,
    ),
  ].map((match) => match[1] ?? match[2] ?? '');
}

function layerOf(path: string): string | undefined {
  const [first] = relative(sourceRoot, path).split('/');
  return (layers as readonly string[]).includes(first ?? '') ? first : undefined;
}

describe('layering', () => {
  const files = sourceFiles(sourceRoot);

  it('finds the layers', () => {
    expect(files.some((file) => layerOf(file) === 'support')).toBe(true);
    expect(files.some((file) => layerOf(file) === 'language')).toBe(true);
    expect(files.some((file) => layerOf(file) === 'engine')).toBe(true);
  });

  for (const file of files) {
    const layer = layerOf(file);
    if (layer === undefined) continue;
    const rank = layers.indexOf(layer as (typeof layers)[number]);
    it(`${relative(sourceRoot, file)} imports only from its own layer or below`, () => {
      for (const specifier of importsOf(file)) {
        if (specifier.startsWith('.')) {
          const target = layerOf(resolve(join(file, '..'), specifier));
          if (target === undefined) continue;
          const targetRank = layers.indexOf(target as (typeof layers)[number]);
          expect(
            targetRank,
            `${specifier} is in layer ${target}, above ${layer}`,
          ).toBeLessThanOrEqual(rank);
        } else if (runtimeNeutral.has(layer)) {
          expect(
            specifier.startsWith('node:'),
            `${specifier}: ${layer} must stay runtime-neutral`,
          ).toBe(false);
          expect(['fs', 'path', 'os', 'child_process', 'http', 'crypto'], specifier).not.toContain(
            specifier,
          );
        }
      }
    });
  }

  it('keeps the root entry runtime-neutral', () => {
    const root = importsOf(join(sourceRoot, 'index.ts'));
    for (const specifier of root) {
      const target = layerOf(resolve(sourceRoot, specifier));
      expect(target && runtimeNeutral.has(target), `${specifier} in the root entry`).toBe(true);
    }
  });
});
