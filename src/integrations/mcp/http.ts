import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../support/error-message.js';
import type { McpProxy } from './proxy.js';

export interface McpHttpOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0: an ephemeral port. */
  readonly port?: number;
  /** The endpoint path (default `/mcp`). */
  readonly path?: string;
  /** Largest request body in bytes (default 4 MiB). */
  readonly maxBodyBytes?: number;
  /** Most concurrent client sessions (default 100). */
  readonly maxSessions?: number;
  /** A session without requests for this long is closed (default 30 minutes). */
  readonly sessionIdleMs?: number;
  readonly log?: (line: string) => void;
}

export interface McpHttpListener {
  /** The endpoint clients connect to, e.g. `http://127.0.0.1:53211/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function hostOnly(header: string): string {
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  return header.split(':')[0] ?? '';
}

function problem(response: ServerResponse, status: number, message: string): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

function readBody(request: IncomingMessage, limit: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    const tooLarge = () => Object.assign(new Error('request body too large'), { status: 413 });
    if (declared > limit) {
      // Read and drop the rest (the reply is sent meanwhile), rather than reset the connection.
      request.resume();
      reject(tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        request.off('data', onData);
        request.off('end', onEnd);
        chunks.length = 0;
        request.resume();
        reject(tooLarge());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(Object.assign(new Error('the body is not JSON'), { status: 400 }));
      }
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', reject);
  });
}

/**
 * Serves the proxy over MCP streamable HTTP: one downstream server per client session
 * (`Mcp-Session-Id`), all over the proxy's one upstream connection and one guard. On a
 * loopback address, requests whose `Host` or `Origin` is not loopback are refused (DNS
 * rebinding).
 */
export async function listenMcpHttp(
  proxy: McpProxy,
  options: McpHttpOptions = {},
): Promise<McpHttpListener> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxSessions = options.maxSessions ?? 100;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const lastSeen = new Map<string, number>();
  const log = options.log ?? (() => undefined);
  const loopback = loopbackHosts.has(host);
  if (!loopback)
    log(
      `intentguard: listening on ${host}, not loopback: the proxy has no authentication of its own; put it behind one`,
    );
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== path) return problem(response, 404, `not found; the endpoint is ${path}`);
    if (loopback) {
      const hostHeader = request.headers.host ?? '';
      if (!loopbackHosts.has(hostOnly(hostHeader))) return problem(response, 403, 'forbidden host');
      const origin = request.headers.origin;
      if (origin !== undefined) {
        let originHost = '';
        try {
          originHost = new URL(origin).hostname;
        } catch {
          originHost = '';
        }
        if (!loopbackHosts.has(originHost)) return problem(response, 403, 'forbidden origin');
      }
    }
    const sessionHeader = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (request.method === 'POST') {
      const body = await readBody(request, maxBody);
      const existing = sessionId ? sessions.get(sessionId) : undefined;
      if (existing && sessionId) {
        lastSeen.set(sessionId, Date.now());
        return existing.handleRequest(request, response, body);
      }
      if (sessionId) return problem(response, 404, 'unknown session');
      if (!isInitializeRequest(body))
        return problem(response, 400, 'no session: start with an initialize request');
      if (sessions.size >= maxSessions) return problem(response, 503, 'too many sessions');
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, transport);
          lastSeen.set(id, Date.now());
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) {
          sessions.delete(transport.sessionId);
          lastSeen.delete(transport.sessionId);
        }
      };
      const server = proxy.createServer();
      await server.connect(transport);
      return transport.handleRequest(request, response, body);
    }
    if (request.method === 'GET' || request.method === 'DELETE') {
      const existing = sessionId ? sessions.get(sessionId) : undefined;
      if (!existing || !sessionId)
        return problem(response, sessionId ? 404 : 400, 'unknown or missing session');
      lastSeen.set(sessionId, Date.now());
      return existing.handleRequest(request, response);
    }
    response.setHeader('allow', 'GET, POST, DELETE');
    return problem(response, 405, 'method not allowed');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      const status = (error as { status?: number }).status ?? 500;
      if (status === 500) log(`intentguard: http: ${errorMessage(error)}`);
      problem(response, status, status === 500 ? 'internal error' : (error as Error).message);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Clients that vanish without DELETE would hold their session (and a slot) forever.
  const sweeper = setInterval(
    () => {
      const now = Date.now();
      for (const [id, seen] of lastSeen) {
        if (now - seen <= idleMs) continue;
        lastSeen.delete(id);
        const transport = sessions.get(id);
        sessions.delete(id);
        transport?.close().catch(() => undefined);
      }
    },
    Math.max(10, Math.min(idleMs, 60_000)),
  );
  sweeper.unref();
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}${path}`,
    async close() {
      clearInterval(sweeper);
      for (const transport of [...sessions.values()])
        await transport.close().catch(() => undefined);
      sessions.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
