import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

/** A Hono app (or any fetch handler) served over Node's HTTP server. */
export interface ListeningApp {
  /** The bound origin, e.g. `http://127.0.0.1:8787` (IPv6 addresses in brackets). */
  readonly origin: string;
  /** Stops accepting, drops open connections, and resolves once the server has closed. */
  close(): Promise<void>;
}

/**
 * Serves `fetch` on `host:port` (port 0 picks a free one), for the service and the MCP
 * proxy alike; resolves once bound, rejects when the address cannot be bound.
 */
export async function listenApp(
  fetch: (request: Request, env: unknown) => Response | Promise<Response>,
  host: string,
  port: number,
): Promise<ListeningApp> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch, hostname: host, port }, () => resolve(started));
    started.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    origin: `http://${shown}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
}
