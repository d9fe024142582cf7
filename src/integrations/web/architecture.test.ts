import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { contributors, measureWebBundles } from '../../../scripts/build-web.js';

/**
 * intentguard/web runs in browsers: no Node API may reach it, directly or through the
 * engine it uses in the page. Checked on what a bundler sees, not only on this folder's
 * import lines.
 */
const here = new URL('.', import.meta.url).pathname;

const nodeBuiltins =
  /^(node:.*|fs|path|os|child_process|http|https|net|tls|crypto|stream|zlib|url|util|worker_threads|module|buffer|events|process)(\/.*)?$/;

/** Fails the build on any Node built-in, naming who imported it. */
const noNode: Plugin = {
  name: 'no-node',
  setup(builder) {
    builder.onResolve({ filter: nodeBuiltins }, (args) => ({
      errors: [{ text: `${args.path} (a Node API) is imported by ${args.importer}` }],
    }));
  },
};

async function bundle(contents: string) {
  return build({
    stdin: { contents, resolveDir: here, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    plugins: [noNode],
  });
}

describe('intentguard/web in the browser', () => {
  it('bundles for the browser without a Node API, alone and with the engine in the page', async () => {
    const alone = await bundle("export * from './index.ts';");
    expect(alone.errors).toEqual([]);
    const withEngine = await bundle(
      "export * from './index.ts'; export { createGuard } from '../../index.ts';",
    );
    expect(withEngine.errors).toEqual([]);
  });

  it('the no-node check does catch a Node import', async () => {
    await expect(
      bundle("import { readFileSync } from 'node:fs'; console.log(readFileSync);"),
    ).rejects.toThrow(/node:fs \(a Node API\)/);
  });

  it('uses no Node globals in its own sources', () => {
    for (const file of readdirSync(here).filter(
      (name) => name.endsWith('.ts') && !name.endsWith('.test.ts'),
    )) {
      const text = readFileSync(join(here, file), 'utf8');
      expect(text, file).not.toMatch(/\b(process|Buffer|require|__dirname|setImmediate)\b/);
    }
  });

  it('the remote-only bundle carries no engine, regex engine or formalizer', async () => {
    const { remote, inPage } = await measureWebBundles();
    const parts = contributors(remote.metafile).map((part) => part.module);
    expect(parts.some((part) => part.startsWith('src/integrations/web'))).toBe(true);
    for (const heavy of [
      're2js (package)',
      'zod (package)',
      'src/engine/',
      'src/formalize/',
      'src/guard/',
    ])
      expect(parts, heavy).not.toContain(heavy);
    const inPageParts = contributors(inPage.metafile).map((part) => part.module);
    expect(inPageParts).toContain('src/engine/');
    expect(remote.gzipBytes).toBeLessThan(inPage.gzipBytes);
    // The formalizer is a chunk of its own, loaded only by createGuard({ instruction }).
    for (const onDemand of ['src/formalize/', 'zod (package)', 'ai (package)'])
      expect(inPageParts, onDemand).not.toContain(onDemand);
    expect(inPage.lazyGzipBytes).toBeGreaterThan(0);
    expect([...inPage.files.keys()].some((path) => /formalize/.test(path))).toBe(true);
  });

  it('exports exactly its pinned runtime names', async () => {
    const module = (await import('./index.js')) as Record<string, unknown>;
    expect(Object.keys(module).sort()).toEqual([
      'confirmWithDialog',
      'createWebGuard',
      'defineStates',
      'verdictEventName',
    ]);
  });
});
