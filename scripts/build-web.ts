import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';

/**
 * Bundles intentguard/web for pages without a bundler (ESM, minified, browser platform)
 * and reports the sizes:
 *
 *   dist/web/intentguard-web.js         the web layer + the engine and guard (in-page guard)
 *   dist/web/intentguard-web-remote.js  the web layer alone (guard behind `intentguard serve`)
 *
 *   npx tsx scripts/build-web.ts            # build and print the size table
 *   npx tsx scripts/build-web.ts --analyze  # also the modules that dominate the in-page bundle
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const webOnly = "export * from './src/integrations/web/index.ts';";
const withEngine = `${webOnly}
export { createGuard, loadStateSchema, checkSpec, renderForModel, unwrap } from './src/index.ts';`;

/**
 * For measuring only: the guard imports the formalizer for `createGuard({ instruction })`;
 * this stands in for it, so that the size of the engine + web layer without it is known.
 */
const withoutFormalizer: Plugin = {
  name: 'without-formalizer',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]src[\\/]formalize[\\/]formalize\.ts$/ }, () => ({
      contents:
        "export function formalize() { throw new Error('the formalizer is not in this bundle'); }",
      loader: 'ts',
    }));
  },
};

function options(contents: string, plugins: Plugin[] = []): BuildOptions {
  return {
    stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: 'intentguard-web.ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    plugins,
  };
}

export interface BundleSize {
  readonly name: string;
  readonly bytes: number;
  readonly gzipBytes: number;
  readonly text: string;
  readonly metafile: Metafile;
}

async function bundle(name: string, contents: string, plugins: Plugin[] = []): Promise<BundleSize> {
  const result = await build(options(contents, plugins));
  const text = result.outputFiles?.[0]?.text ?? '';
  return {
    name,
    bytes: Buffer.byteLength(text),
    gzipBytes: gzipSync(text, { level: 9 }).length,
    text,
    metafile: result.metafile as Metafile,
  };
}

/** The three bundles the size report compares. */
export async function measureWebBundles(): Promise<{
  readonly inPage: BundleSize;
  readonly withoutFormalizer: BundleSize;
  readonly remote: BundleSize;
}> {
  const [inPage, without, remote] = await Promise.all([
    bundle('web layer + engine (in-page guard)', withEngine),
    bundle('web layer + engine, formalizer stubbed (measurement)', withEngine, [withoutFormalizer]),
    bundle('web layer alone (remote guard)', webOnly),
  ]);
  return { inPage, withoutFormalizer: without, remote };
}

/** Minified bytes per package or source folder, largest first. */
export function contributors(
  metafile: Metafile,
): { readonly module: string; readonly bytes: number }[] {
  const totals = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, input] of Object.entries(output.inputs)) {
      const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      const key = match ? `${match[1]} (package)` : path.replace(/\/[^/]+$/, '/');
      totals.set(key, (totals.get(key) ?? 0) + input.bytesInOutput);
    }
  }
  return [...totals.entries()]
    .map(([module, bytes]) => ({ module, bytes }))
    .sort((a, b) => b.bytes - a.bytes);
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main() {
  const sizes = await measureWebBundles();
  const outdir = join(root, 'dist', 'web');
  mkdirSync(outdir, { recursive: true });
  writeFileSync(join(outdir, 'intentguard-web.js'), sizes.inPage.text);
  writeFileSync(join(outdir, 'intentguard-web-remote.js'), sizes.remote.text);
  const rows = [sizes.inPage, sizes.withoutFormalizer, sizes.remote];
  process.stdout.write('| bundle | minified | gzip -9 |\n|---|---:|---:|\n');
  for (const row of rows)
    process.stdout.write(`| ${row.name} | ${kb(row.bytes)} | ${kb(row.gzipBytes)} |\n`);
  if (process.argv.includes('--analyze')) {
    process.stdout.write('\nLargest parts of the in-page bundle (minified bytes):\n');
    for (const { module, bytes } of contributors(sizes.inPage.metafile).slice(0, 15))
      process.stdout.write(`  ${kb(bytes).padStart(9)}  ${module}\n`);
  }
  process.stdout.write(
    `\nwritten: ${join('dist', 'web', 'intentguard-web.js')}, ${join('dist', 'web', 'intentguard-web-remote.js')}\n`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
