import type { Context, MiddlewareHandler } from 'hono';

/** The names of this machine a browser on it reaches loopback through. */
const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Whether a server bound to `host` listens on loopback only. */
export function isLoopbackHost(host: string): boolean {
  return loopbackHosts.has(host);
}

function hostOnly(header: string): string {
  if (header.startsWith('[')) return header.slice(0, header.indexOf(']') + 1);
  return header.split(':')[0] ?? '';
}

function originHost(origin: string): string {
  try {
    return new URL(origin).hostname;
  } catch {
    return '';
  }
}

/**
 * DNS rebinding protection for a server on loopback: a request whose `Host` is not a
 * loopback name, or that carries an `Origin` of another host, came through a name that
 * an attacker's page resolved to this machine — it is refused (403) before anything
 * else looks at it. `forbidden` answers in the server's own error format.
 */
export function loopbackHostsOnly(
  forbidden: (c: Context, what: 'host' | 'origin') => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    if (!loopbackHosts.has(hostOnly(c.req.header('host') ?? ''))) return forbidden(c, 'host');
    const origin = c.req.header('origin');
    if (origin !== undefined && !loopbackHosts.has(originHost(origin)))
      return forbidden(c, 'origin');
    await next();
    return undefined;
  };
}
