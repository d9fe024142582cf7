import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { build } from 'esbuild';
import { launchChromium } from '../support/chromium.js';

/** Chromium (Debian's), headless, for the web layer's tests. */
export const launchBrowser = launchChromium;

/** The test page: one element per trigger kind; the app's handlers are installed by each test. */
export const fixtureHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>web layer fixture</title></head>
<body>
<main>
  <button id="open">Open R</button>
  <div id="reserve" role="button" tabindex="0">Reserve</div>
  <label for="time">Time</label>
  <select id="time"><option value="">--</option><option value="18:00">18:00</option><option value="20:00">20:00</option></select>
  <label for="note">Note</label><input id="note" value="">
  <form id="pay"><label for="amount">Amount</label><input id="amount" name="amount" value="20"><button id="pay-button">Pay</button></form>
</main>
<script type="module" src="/lib.js"></script>
</body></html>`;

export interface FixtureServer {
  readonly url: string;
  close(): Promise<void>;
}

export async function startFixtureServer(): Promise<FixtureServer> {
  const bundled = await build({
    entryPoints: [new URL('./fixture-entry.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const script = bundled.outputFiles[0]?.text ?? '';
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/') response.writeHead(200, { 'content-type': 'text/html' }).end(fixtureHtml);
    else if (path === '/lib.js')
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A server that accepts connections and never answers: a guard that hangs. */
export async function startSilentServer(): Promise<FixtureServer> {
  const server = createServer(() => {
    // Never answers.
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface SwitchableProxy extends FixtureServer {
  /** While down, every connection is dropped: the service looks unreachable. */
  setDown(down: boolean): void;
  /** Holds each answer this long: a slow service. */
  setDelay(ms: number): void;
}

/** A loopback proxy in front of a real server that can be made unreachable and back. */
export async function startSwitchableProxy(target: string): Promise<SwitchableProxy> {
  let down = false;
  let delayMs = 0;
  const server = createServer((request, response) => {
    if (down) {
      request.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      try {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(request.headers))
          if (typeof value === 'string' && name !== 'host' && name !== 'connection')
            headers[name] = value;
        const body = Buffer.concat(chunks);
        const answer = await fetch(`${target}${request.url ?? '/'}`, {
          method: request.method ?? 'GET',
          headers,
          ...(body.length > 0 ? { body } : {}),
        });
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (
            name !== 'content-encoding' &&
            name !== 'transfer-encoding' &&
            name !== 'content-length'
          )
            out[name] = value;
        });
        response.writeHead(answer.status, out).end(Buffer.from(await answer.arrayBuffer()));
      } catch {
        request.socket.destroy();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setDown(value) {
      down = value;
      if (value) server.closeAllConnections();
    },
    setDelay(ms) {
      delayMs = ms;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
