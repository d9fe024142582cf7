import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
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

/** The bundle's entry as a virtual module (code splitting needs entry points, not stdin). */
function virtualEntry(contents: string): Plugin {
  return {
    name: 'virtual-entry',
    setup(builder) {
      builder.onResolve({ filter: /^intentguard-web-entry$/ }, () => ({
        path: 'entry',
        namespace: 'intentguard-web-entry',
      }));
      builder.onLoad({ filter: /.*/, namespace: 'intentguard-web-entry' }, () => ({
        contents,
        resolveDir: root,
        loader: 'ts',
      }));
    },
  };
}

function options(name: string, contents: string): BuildOptions {
  return {
    entryPoints: { [name]: 'intentguard-web-entry' },
    outdir: join(root, 'dist', 'web'),
    bundle: true,
    // The formalizer (`createGuard({ instruction, model })`) is imported on demand: split
    // into its own chunk, loaded only by a page that formalizes.
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
    plugins: [virtualEntry(contents)],
  };
}

export interface BundleSize {
  readonly name: string;
  /** What a page loads up front: the entry and the chunks it imports statically. */
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Chunks loaded on demand (the formalizer), each gzipped, summed. */
  readonly lazyGzipBytes: number;
  /** Every file written: the entry and its chunks, by path relative to dist/web. */
  readonly files: ReadonlyMap<string, string>;
  /** The files loaded up front (paths as in `files`). */
  readonly upFront: readonly string[];
  readonly metafile: Metafile;
}

/** The entry and every chunk it reaches through static imports. */
function staticClosure(metafile: Metafile, entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const imported of metafile.outputs[file]?.imports ?? [])
      if (imported.kind === 'import-statement') visit(imported.path);
  };
  visit(entry);
  return seen;
}

async function bundle(name: string, file: string, contents: string): Promise<BundleSize> {
  const result = await build(options(file, contents));
  const metafile = result.metafile as Metafile;
  const files = new Map<string, string>();
  for (const output of result.outputFiles ?? [])
    files.set(relative(join(root, 'dist', 'web'), output.path), output.text);
  const entry = Object.keys(metafile.outputs).find((path) => path.endsWith(`/${file}.js`)) ?? '';
  const upFrontOutputs = staticClosure(metafile, entry);
  const upFront = [...upFrontOutputs].map((path) => relative(join('dist', 'web'), path));
  const size = (paths: readonly string[], gzip: boolean) =>
    paths.reduce((sum, path) => {
      const text = files.get(path) ?? '';
      return sum + (gzip ? gzipSync(text, { level: 9 }).length : Buffer.byteLength(text));
    }, 0);
  const lazy = [...files.keys()].filter((path) => !upFront.includes(path));
  return {
    name,
    // Gzipped one by one, as a server sends them.
    bytes: size(upFront, false),
    gzipBytes: size(upFront, true),
    lazyGzipBytes: size(lazy, true),
    files,
    upFront,
    metafile,
  };
}

/** The bundles the size report compares. */
export async function measureWebBundles(): Promise<{
  readonly inPage: BundleSize;
  readonly remote: BundleSize;
}> {
  const [inPage, remote] = await Promise.all([
    bundle('web layer + engine (in-page guard)', 'intentguard-web', withEngine),
    bundle('web layer alone (remote guard)', 'intentguard-web-remote', webOnly),
  ]);
  return { inPage, remote };
}

/** Minified bytes per package or source folder in what a page loads up front, largest first. */
export function contributors(
  metafile: Metafile,
): { readonly module: string; readonly bytes: number }[] {
  const totals = new Map<string, number>();
  const entry = Object.keys(metafile.outputs).find((path) => !path.includes('/chunks/')) ?? '';
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!staticClosure(metafile, entry).has(file)) continue;
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
  const written: string[] = [];
  for (const bundled of [sizes.inPage, sizes.remote]) {
    for (const [path, text] of bundled.files) {
      mkdirSync(dirname(join(outdir, path)), { recursive: true });
      writeFileSync(join(outdir, path), text);
      written.push(join('dist', 'web', path));
    }
  }
  process.stdout.write(
    '| bundle | loaded up front, minified | up front, gzip -9 | on demand (formalizer), gzip -9 |\n|---|---:|---:|---:|\n',
  );
  for (const row of [sizes.inPage, sizes.remote])
    process.stdout.write(
      `| ${row.name} | ${kb(row.bytes)} | ${kb(row.gzipBytes)} | ${row.lazyGzipBytes > 0 ? kb(row.lazyGzipBytes) : '—'} |\n`,
    );
  if (process.argv.includes('--analyze')) {
    process.stdout.write(
      '\nLargest parts of the in-page bundle loaded up front (minified bytes):\n',
    );
    for (const { module, bytes } of contributors(sizes.inPage.metafile).slice(0, 15))
      process.stdout.write(`  ${kb(bytes).padStart(9)}  ${module}\n`);
  }
  process.stdout.write(`\nwritten: ${written.join(', ')}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
