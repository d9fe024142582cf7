import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { sideEffectFreeSources } from '../../scripts/build-web.js';

/**
 * The demo's tiny local server: the page, its stylesheet, the app bundled for the
 * browser (esbuild, in memory, once at start; parts the page loads on demand are chunks
 * of their own), and the compiled spec the page guards with. Loopback only.
 */

const here = fileURLToPath(new URL('.', import.meta.url));

export interface DemoServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Bundles `app.ts` (with intentguard and intentguard/web) for the browser: `/app.js` and its chunks, by URL path. */
export async function bundleApp(): Promise<Map<string, string>> {
  const result = await build({
    entryPoints: { app: `${here}app.ts` },
    outdir: '/',
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
    plugins: [sideEffectFreeSources],
  });
  return new Map(result.outputFiles.map((file) => [file.path, file.text]));
}

export async function startDemoServer(port = 0): Promise<DemoServer> {
  const files: Record<string, { type: string; body: string }> = {
    '/': { type: 'text/html; charset=utf-8', body: readFileSync(`${here}index.html`, 'utf8') },
    '/styles.css': {
      type: 'text/css; charset=utf-8',
      body: readFileSync(`${here}styles.css`, 'utf8'),
    },
    // `intentguard compile spec.intent --states states.json -o spec.compiled.json`
    '/spec.compiled.json': {
      type: 'application/json',
      body: readFileSync(`${here}spec.compiled.json`, 'utf8'),
    },
  };
  for (const [path, body] of await bundleApp())
    files[path] = { type: 'text/javascript; charset=utf-8', body };
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const file = files[path];
    if (request.method !== 'GET' || file === undefined) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    response
      .writeHead(200, {
        'content-type': file.type,
        'cache-control': 'no-store',
        // The page runs only its own script; the guard service is the one place it may call.
        'content-security-policy':
          "default-src 'self'; style-src 'self' 'unsafe-inline'; connect-src *",
      })
      .end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const server = await startDemoServer(Number(process.env.PORT ?? 5178));
  process.stderr.write(`intentguard web demo: ${server.url}\n`);
}
