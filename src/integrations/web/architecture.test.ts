import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  contributors,
  demoEntry,
  measureWebBundles,
  upFrontBudgetBytes,
} from '../../../scripts/build-web.js';

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
    const { remote, source } = await measureWebBundles();
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
    const sourceParts = contributors(source.metafile).map((part) => part.module);
    expect(sourceParts).toContain('src/engine/');
    expect(remote.gzipBytes).toBeLessThan(source.gzipBytes);
    // The formalizer is a chunk of its own, loaded only by createGuard({ instruction }).
    for (const onDemand of ['src/formalize/', 'zod (package)', 'ai (package)'])
      expect(sourceParts, onDemand).not.toContain(onDemand);
    expect(source.lazy.map((chunk) => chunk.name)).toContain('formalize');
    expect(source.lazy.find((chunk) => chunk.name === 'formalize')?.gzipBytes).toBeGreaterThan(
      10_000,
    );
  });

  it("a guard from a compiled spec carries no parser, checker or diagnostics; re2js, the confusables, the engine's on-demand part (paths, records, answer check, similarity) and the dialog load on demand", async () => {
    for (const bundled of Object.values(await measureWebBundles()).filter(
      (bundle) => bundle.name !== 'web layer + guard from spec text (parser, checker)',
    )) {
      const upFront = new Set(
        Object.entries(bundled.metafile.outputs)
          .filter(([path]) => bundled.upFront.includes(path.replace(/^dist\/web\//, '')))
          .flatMap(([, output]) => Object.keys(output.inputs)),
      );
      expect(upFront.size, bundled.name).toBeGreaterThan(0);
      for (const heavy of [
        'src/language/parser.ts',
        'src/language/lexer.ts',
        'src/language/checker/check.ts',
        // defineStates reports a wrong declaration with diagnostics: only the demo, which
        // ships its schema in the compiled spec, carries none.
        ...(bundled.name.startsWith("the demo's") ? ['src/language/diagnostics/catalog.ts'] : []),
        'src/language/unicode/confusables.ts',
        'src/language/regex.ts',
        'src/engine/fabricated-action.ts',
        'src/engine/join.ts',
        'src/engine/access-test.ts',
        'src/engine/on-demand-part.ts',
        // The check of a compiled spec's paths and bindings loads with their evaluators.
        'src/language/check-compiled-paths.ts',
        'src/engine/record-values.ts',
        'src/engine/lexical-similarity.ts',
        // Settings' frame conditions load only for a schema that marks a setting.
        'src/engine/frame-conditions.ts',
        'src/integrations/web/dialog.ts',
      ])
        expect([...upFront], `${bundled.name}: ${heavy}`).not.toContain(heavy);
    }
    const { demo } = await measureWebBundles();
    const lazy = new Map(demo.lazy.map((chunk) => [chunk.name, chunk.gzipBytes]));
    // Each is a real chunk a page loads only when it needs it, not an empty shell.
    expect(lazy.get('regex')).toBeGreaterThan(30_000);
    expect(lazy.get('confusables')).toBeGreaterThan(15_000);
    expect(lazy.get('on-demand-part')).toBeGreaterThan(5_000);
    expect(lazy.get('dialog')).toBeGreaterThan(500);
  });

  it('a guard from spec text in the page has every part at once (registered with the checker and the root guard)', async () => {
    const { source } = await measureWebBundles();
    const upFront = new Set(
      Object.entries(source.metafile.outputs)
        .filter(([path]) => source.upFront.includes(path.replace(/^dist\/web\//, '')))
        .flatMap(([, output]) => Object.keys(output.inputs)),
    );
    for (const part of [
      'src/language/checker/check.ts',
      'src/language/unicode/confusables.ts',
      'src/language/regex.ts',
      'src/engine/fabricated-action.ts',
      'src/engine/join.ts',
      'src/engine/record-values.ts',
      'src/engine/lexical-similarity.ts',
    ])
      expect([...upFront], part).toContain(part);
  });

  it("keeps what the demo's configuration loads up front within its size budget", async () => {
    const { demo } = await measureWebBundles();
    // The entry is examples/web/app.ts's own imports from intentguard: the demo guards with
    // a compiled spec, so its engine is in the page and its parser is not.
    expect(demoEntry()).toMatch(/loadCompiledGuard/);
    expect(demoEntry()).toMatch(/createWebGuard/);
    expect(demoEntry()).not.toMatch(/createGuard\b/);
    expect(demo.gzipBytes).toBeLessThanOrEqual(upFrontBudgetBytes);
    // Two files: the entry and the one chunk it shares with the engine's on-demand part
    // (each file is compressed on its own; every further split costs the page bytes).
    expect(demo.upFront).toHaveLength(2);
  });

  it('the dialog, loaded on demand, marks itself as the controller expects', async () => {
    const [dialog, publish] = await Promise.all([import('./dialog.js'), import('./publish.js')]);
    expect(dialog.dialogAttribute).toBe(publish.dialogAttribute);
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
