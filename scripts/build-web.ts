import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile, type Plugin } from 'esbuild';

/**
 * Bundles intentguard/web for pages without a bundler (ESM, minified, browser platform)
 * and reports the sizes — what a page loads up front, and each part loaded on demand:
 *
 *   dist/web/intentguard-web.js          the web layer + a guard from a compiled spec (in-page guard)
 *   dist/web/intentguard-web-source.js   the same + the parser and checker (spec text in the page)
 *   dist/web/intentguard-web-remote.js   the web layer alone (guard behind `intentguard serve`)
 *
 * and measures the demo's configuration: what examples/web/app.ts imports from intentguard.
 *
 *   npx tsx scripts/build-web.ts            # build and print the size tables
 *   npx tsx scripts/build-web.ts --analyze  # also the modules that dominate the demo's bundle
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sources = join(root, 'src');

/**
 * The budget for what the demo's configuration loads up front, gzipped: a test fails above
 * it (see docs/web.md "Bundling and size"). It was 40 KB (39.3 KB measured on 2026-11-24);
 * the second security round added what every page's guard runs — the compiled spec's type
 * check (K1), the approval question that shows every constrained argument (C1), the
 * deny-list reading (E2) and unreadable results (E1) — and measured 46.3 KB on 2026-11-26;
 * the part of that type check only paths and bindings need then moved into the engine's
 * on-demand part, loaded with their evaluators: 45.04 KB measured, the budget the next
 * whole KB above it. On 2026-11-28 policies (their composition moved into an engine part,
 * but `given` facts and `refused` records compile in every page), tool names as clients
 * call them, and the engine's one-pass argument reading measured 47.3 KB: 48 KB. Compiled
 * compositions (`compile --policy`, 2026-11-28) have their reader in `loadComposedGuard`,
 * which the demo does not import; what every compiled page still reads — a schema's
 * `"source": "user"` facts and the readers' shared helpers — is 85 bytes gzipped, past the
 * 48 KB it had 14 bytes left of (48.2 KB measured with the rest of that day): 49 KB.
 * Language v3 (2026-11-29): the checks and words of scoped `not`/`forall` and of conditions
 * on bindings come with the on-demand part, but every compiled page reads the format's new
 * shapes and may hold clock arithmetic (`now - 24h`) in a plain constraint: 49.2 KB
 * measured, 50 KB. Moving `given`/`refused` and the one-pass reader behind parts is the
 * way back.
 */
export const upFrontBudgetBytes = 50 * 1024;

const webOnly = "export * from './src/integrations/web/index.ts';";
const withCompiled = `${webOnly}
export { loadCompiledGuard } from './src/guard/compiled-guard.ts';`;
const withSource = `${withCompiled}
export { createGuard, loadStateSchema, checkSpec, renderForModel, unwrap } from './src/index.ts';`;

/**
 * The value imports examples/web/app.ts takes from intentguard's sources, as one entry:
 * the library as the demo configures it, without the demo's own code.
 */
export function demoEntry(): string {
  const app = readFileSync(join(root, 'examples', 'web', 'app.ts'), 'utf8');
  const lines: string[] = [];
  for (const match of app.matchAll(
    /^import\s+\{([^}]*)\}\s+from\s+'\.\.\/\.\.\/(src\/[^']+)\.js';/gm,
  )) {
    const names = (match[1] ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter((name) => name !== '' && !name.startsWith('type '));
    if (names.length > 0) lines.push(`export { ${names.join(', ')} } from './${match[2]}.ts';`);
  }
  return lines.join('\n');
}

/**
 * Marks intentguard's own modules free of side effects, as a bundler does for a package
 * that says so: a module reached only through a re-export that nothing uses (the parser
 * behind the language index) is left out. None of them has a side effect: the engine's
 * parts are passed in options (engine/engine-parts.ts), never registered on load.
 */
export const sideEffectFreeSources: Plugin = {
  name: 'side-effect-free-sources',
  setup(builder) {
    builder.onResolve({ filter: /^\./ }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const resolved = await builder.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        importer: args.importer,
        pluginData: 'resolving',
      });
      if (resolved.errors.length > 0) return { errors: resolved.errors };
      const ours = resolved.path.startsWith(sources);
      return { path: resolved.path, ...(ours ? { sideEffects: false } : {}) };
    });
  },
};

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
    // Parts a page may never need are imported on demand and split into chunks of their
    // own: the formalizer, the regex engine, the confusables table, the evaluators of paths
    // and bindings, the answer check, the confirmation dialog, the service client.
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
    plugins: [virtualEntry(contents), sideEffectFreeSources],
  };
}

export interface LazyChunk {
  /** The module it is loaded for (`regex`, `confusables`, `formalize`, …). */
  readonly name: string;
  readonly path: string;
  readonly gzipBytes: number;
}

export interface BundleSize {
  readonly name: string;
  /** What a page loads up front: the entry and the chunks it imports statically. */
  readonly bytes: number;
  readonly gzipBytes: number;
  /** Chunks loaded on demand, each gzipped, summed. */
  readonly lazyGzipBytes: number;
  /** Each chunk loaded on demand, by the module it is imported for (with what it alone needs). */
  readonly lazy: readonly LazyChunk[];
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

const gzipSize = (text: string) => gzipSync(text, { level: 9 }).length;

async function bundle(name: string, file: string, contents: string): Promise<BundleSize> {
  const result = await build(options(file, contents));
  const metafile = result.metafile as Metafile;
  const files = new Map<string, string>();
  for (const output of result.outputFiles ?? [])
    files.set(relative(join(root, 'dist', 'web'), output.path), output.text);
  const relativePath = (path: string) => relative(join('dist', 'web'), path);
  const entry = Object.keys(metafile.outputs).find((path) => path.endsWith(`/${file}.js`)) ?? '';
  const upFrontOutputs = staticClosure(metafile, entry);
  const upFront = [...upFrontOutputs].map(relativePath);
  const size = (paths: readonly string[], gzip: boolean) =>
    paths.reduce((sum, path) => {
      const text = files.get(path) ?? '';
      return sum + (gzip ? gzipSize(text) : Buffer.byteLength(text));
    }, 0);
  // A lazy chunk is a dynamic import's target: with the chunks only it reaches, beyond
  // what is loaded up front.
  const lazy: LazyChunk[] = [];
  for (const [path, output] of Object.entries(metafile.outputs)) {
    if (upFrontOutputs.has(path) || output.entryPoint === undefined) continue;
    const own = [...staticClosure(metafile, path)].filter((chunk) => !upFrontOutputs.has(chunk));
    lazy.push({
      name: (output.entryPoint.split('/').pop() ?? path).replace(/\.ts$/, ''),
      path: relativePath(path),
      gzipBytes: size(own.map(relativePath), true),
    });
  }
  lazy.sort((a, b) => b.gzipBytes - a.gzipBytes);
  const lazyFiles = [...files.keys()].filter((path) => !upFront.includes(path));
  return {
    name,
    // Gzipped one by one, as a server sends them.
    bytes: size(upFront, false),
    gzipBytes: size(upFront, true),
    lazyGzipBytes: size(lazyFiles, true),
    lazy,
    files,
    upFront,
    metafile,
  };
}

/** The bundles the size report compares. */
export async function measureWebBundles(): Promise<{
  readonly demo: BundleSize;
  readonly inPage: BundleSize;
  readonly source: BundleSize;
  readonly remote: BundleSize;
}> {
  const [demo, inPage, source, remote] = await Promise.all([
    bundle(
      "the demo's configuration (examples/web/app.ts's imports)",
      'demo-configuration',
      demoEntry(),
    ),
    bundle('web layer + guard from a compiled spec', 'intentguard-web', withCompiled),
    bundle(
      'web layer + guard from spec text (parser, checker)',
      'intentguard-web-source',
      withSource,
    ),
    bundle('web layer alone (remote guard)', 'intentguard-web-remote', webOnly),
  ]);
  return { demo, inPage, source, remote };
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
  for (const bundled of [sizes.inPage, sizes.source, sizes.remote]) {
    for (const [path, text] of bundled.files) {
      mkdirSync(dirname(join(outdir, path)), { recursive: true });
      writeFileSync(join(outdir, path), text);
      written.push(join('dist', 'web', path));
    }
  }
  const rows = [sizes.demo, sizes.inPage, sizes.source, sizes.remote];
  process.stdout.write(
    '| bundle | up front, minified | up front, gzip -9 | on demand, gzip -9 (each) |\n|---|---:|---:|---|\n',
  );
  for (const row of rows)
    process.stdout.write(
      `| ${row.name} | ${kb(row.bytes)} | ${kb(row.gzipBytes)} | ${
        row.lazy.map((chunk) => `${chunk.name} ${kb(chunk.gzipBytes)}`).join(', ') || '—'
      } |\n`,
    );
  const verdict = sizes.demo.gzipBytes <= upFrontBudgetBytes ? 'within' : 'OVER';
  process.stdout.write(
    `\nThe demo's configuration loads ${kb(sizes.demo.gzipBytes)} up front: ${verdict} the budget of ${kb(upFrontBudgetBytes)}.\n`,
  );
  if (process.argv.includes('--analyze')) {
    process.stdout.write(
      "\nLargest parts of what the demo's configuration loads up front (minified bytes):\n",
    );
    for (const { module, bytes } of contributors(sizes.demo.metafile).slice(0, 15))
      process.stdout.write(`  ${kb(bytes).padStart(9)}  ${module}\n`);
  }
  process.stdout.write(`\nwritten: ${written.join(', ')}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
