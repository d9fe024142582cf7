import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { type Context, Hono } from 'hono';
import { errorMessage } from '../../support/error-message.js';
import { requestBodyLimit } from '../http/body-limit.js';
import { listenApp } from '../http/listen.js';
import { isLoopbackHost, loopbackHostsOnly } from '../http/loopback-hosts.js';
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

type Transport = WebStandardStreamableHTTPServerTransport;

/** A JSON-RPC error answer without an id: what MCP clients read from a refused request. */
function problem(c: Context, status: 400 | 403 | 404 | 405 | 413 | 500 | 503, message: string) {
  return c.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, status);
}

/**
 * The client sessions of one listener, each a transport over its own downstream server,
 * closed when idle: clients that vanish without DELETE would hold a slot forever.
 */
class McpSessions {
  readonly #transports = new Map<string, Transport>();
  readonly #lastSeen = new Map<string, number>();
  readonly #sweeper: ReturnType<typeof setInterval>;

  constructor(
    readonly max: number,
    idleMs: number,
  ) {
    this.#sweeper = setInterval(() => this.#sweep(idleMs), Math.max(10, Math.min(idleMs, 60_000)));
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#transports.size;
  }

  /** The session's transport, marked as just used; undefined for an unknown id. */
  use(id: string): Transport | undefined {
    const transport = this.#transports.get(id);
    if (transport !== undefined) this.#lastSeen.set(id, Date.now());
    return transport;
  }

  /** A transport whose session is kept once the client's initialize request has created it. */
  open(): Transport {
    const transport: Transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.#transports.set(id, transport);
        this.#lastSeen.set(id, Date.now());
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#forget(transport.sessionId);
    };
    return transport;
  }

  #forget(id: string): void {
    this.#transports.delete(id);
    this.#lastSeen.delete(id);
  }

  #sweep(idleMs: number): void {
    const now = Date.now();
    for (const [id, seen] of this.#lastSeen) {
      if (now - seen <= idleMs) continue;
      const transport = this.#transports.get(id);
      this.#forget(id);
      transport?.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    for (const transport of [...this.#transports.values()])
      await transport.close().catch(() => undefined);
    this.#transports.clear();
    this.#lastSeen.clear();
  }
}

/** The parsed JSON body of a POST (after the body limit), or a 400 answer. */
async function jsonBody(c: Context): Promise<{ value: unknown } | Response> {
  const text = await c.req.text();
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return problem(c, 400, 'the body is not JSON');
  }
}

/** The MCP endpoint's routes: POST (initialize, or a session's messages), GET and DELETE. */
function mcpApp(proxy: McpProxy, sessions: McpSessions, path: string, options: McpHttpOptions) {
  const app = new Hono();
  const log = options.log ?? (() => undefined);
  app.onError((error, c) => {
    log(`intentguard: http: ${errorMessage(error)}`);
    return problem(c, 500, 'internal error');
  });
  app.notFound((c) => problem(c, 404, `not found; the endpoint is ${path}`));
  if (isLoopbackHost(options.host ?? '127.0.0.1'))
    app.use(
      path,
      loopbackHostsOnly((c, what) => problem(c, 403, `forbidden ${what}`)),
    );
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const bodyLimit = requestBodyLimit(maxBody, {
    tooLarge: (c) => problem(c, 413, 'request body too large'),
    badLength: (c) => problem(c, 400, 'the Content-Length header is not a number'),
    excess: 'drain',
  });

  app.post(path, bodyLimit, async (c) => {
    const body = await jsonBody(c);
    if (body instanceof Response) return body;
    const sessionId = c.req.header('mcp-session-id');
    if (sessionId) {
      const existing = sessions.use(sessionId);
      if (!existing) return problem(c, 404, 'unknown session');
      return existing.handleRequest(c.req.raw, { parsedBody: body.value });
    }
    if (!isInitializeRequest(body.value))
      return problem(c, 400, 'no session: start with an initialize request');
    if (sessions.size >= sessions.max) return problem(c, 503, 'too many sessions');
    const transport = sessions.open();
    await proxy.createServer().connect(transport);
    return transport.handleRequest(c.req.raw, { parsedBody: body.value });
  });
  const existingSession = (c: Context) => {
    const sessionId = c.req.header('mcp-session-id');
    const existing = sessionId ? sessions.use(sessionId) : undefined;
    if (!existing) return problem(c, sessionId ? 404 : 400, 'unknown or missing session');
    return existing.handleRequest(c.req.raw);
  };
  app.get(path, existingSession);
  app.delete(path, existingSession);
  app.all(path, (c) => {
    c.header('allow', 'GET, POST, DELETE');
    return problem(c, 405, 'method not allowed');
  });
  return app;
}

/**
 * Serves the proxy over MCP streamable HTTP (the SDK's web-standard transport on Hono,
 * with the service's body limit): one downstream server per client session
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
  if (!isLoopbackHost(host))
    options.log?.(
      `intentguard: listening on ${host}, not loopback: the proxy has no authentication of its own; put it behind one`,
    );
  const sessions = new McpSessions(
    options.maxSessions ?? 100,
    options.sessionIdleMs ?? 30 * 60_000,
  );
  const app = mcpApp(proxy, sessions, path, options);
  let listening: Awaited<ReturnType<typeof listenApp>>;
  try {
    listening = await listenApp(app.fetch, host, options.port ?? 0);
  } catch (error) {
    await sessions.close();
    throw error;
  }
  return {
    url: `${listening.origin}${path}`,
    async close() {
      await sessions.close();
      await listening.close();
    },
  };
}
