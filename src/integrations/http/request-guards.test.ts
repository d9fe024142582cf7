import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { requestBodyLimit } from './body-limit.js';
import { isLoopbackHost, loopbackHostsOnly } from './loopback-hosts.js';

/** The shared middleware of the service and the MCP proxy, on a bare app. */
function app(): Hono {
  const app = new Hono();
  app.use(
    '*',
    loopbackHostsOnly((c, what) => c.text(`forbidden ${what}`, 403)),
  );
  app.use(
    '*',
    requestBodyLimit(10, {
      tooLarge: (c) => c.text('too large', 413),
      badLength: (c) => c.text('bad length', 400),
    }),
  );
  app.post('/', async (c) => c.text(`read ${(await c.req.text()).length}`));
  return app;
}

const post = (headers: Record<string, string>, body: BodyInit = '12345') =>
  app().request('http://127.0.0.1/', {
    method: 'POST',
    headers,
    body,
    ...(typeof body === 'string' ? {} : { duplex: 'half' }),
  } as RequestInit);

describe('loopbackHostsOnly', () => {
  it('lets loopback hosts and origins through', async () => {
    for (const host of ['127.0.0.1:8787', 'localhost', '[::1]:80', 'localhost:3000']) {
      expect((await post({ host })).status, host).toBe(200);
    }
    expect((await post({ host: 'localhost', origin: 'http://[::1]:5173' })).status).toBe(200);
  });

  it('refuses another host or origin (DNS rebinding) before the body is looked at', async () => {
    const host = await post({ host: 'evil.example:80' }, 'x'.repeat(100));
    expect([host.status, await host.text()]).toEqual([403, 'forbidden host']);
    const origin = await post({ host: 'localhost', origin: 'https://evil.example' });
    expect([origin.status, await origin.text()]).toEqual([403, 'forbidden origin']);
    expect((await post({ host: 'localhost', origin: 'null' })).status).toBe(403);
    expect((await post({ host: '127.0.0.1.evil.example' })).status).toBe(403);
  });

  it('knows which bind addresses are loopback', () => {
    expect(['127.0.0.1', 'localhost', '::1'].every(isLoopbackHost)).toBe(true);
    expect(['0.0.0.0', '::', '192.168.1.2'].some(isLoopbackHost)).toBe(false);
  });
});

describe('requestBodyLimit', () => {
  it('answers a declared length over the limit without reading, and closes the connection', async () => {
    const response = await post({ host: 'localhost', 'content-length': '11' }, 'x'.repeat(11));
    expect(response.status).toBe(413);
    expect(response.headers.get('connection')).toBe('close');
    expect((await post({ host: 'localhost', 'content-length': '10' }, 'x'.repeat(10))).status).toBe(
      200,
    );
  });

  it('drains a declared body over the limit before answering, when asked to (the MCP proxy)', async () => {
    const drains = new Hono();
    drains.use(
      '*',
      requestBodyLimit(10, {
        tooLarge: (c) => c.text('too large', 413),
        badLength: (c) => c.text('bad length', 400),
        excess: 'drain',
      }),
    );
    drains.post('/', (c) => c.text('read'));
    const response = await drains.request('http://127.0.0.1/', {
      method: 'POST',
      headers: { 'content-length': '11' },
      body: 'x'.repeat(11),
    });
    expect([response.status, response.headers.get('connection')]).toEqual([413, null]);
  });

  it('counts a streamed body (no Content-Length) as it arrives', async () => {
    const stream = (size: number) =>
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('x'.repeat(size)));
          controller.close();
        },
      });
    expect((await post({ host: 'localhost' }, stream(11))).status).toBe(413);
    const small = await post({ host: 'localhost' }, stream(10));
    expect([small.status, await small.text()]).toEqual([200, 'read 10']);
  });

  it('refuses a Content-Length that is not a number', async () => {
    const response = await post({ host: 'localhost', 'content-length': '1e3' });
    expect([response.status, await response.text()]).toEqual([400, 'bad length']);
  });
});
