import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { listenMcpHttp, type McpHttpListener } from './http.js';
import { type McpProxy, startMcpProxy } from './proxy.js';

let proxy: McpProxy | undefined;
let listener: McpHttpListener | undefined;
afterEach(async () => {
  await listener?.close();
  await proxy?.close();
  listener = undefined;
  proxy = undefined;
});

describe('listenMcpHttp', () => {
  it('closes sessions that stay idle, so that vanished clients free their slot', async () => {
    const upstream = new Server({ name: 'fake', version: '1' }, { capabilities: { tools: {} } });
    upstream.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'read_note', inputSchema: { type: 'object' } }],
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await upstream.connect(serverSide);
    proxy = await startMcpProxy({
      upstream: { transport: clientSide },
      spec: 'read_note() -> Read\nRead -> Done',
    });
    // Long enough that a loaded machine never idles out the handshake itself.
    listener = await listenMcpHttp(proxy, { sessionIdleMs: 500, maxSessions: 1 });
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    expect((await client.listTools()).tools).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await expect(client.listTools()).rejects.toThrow();
    // The slot is free again: a new client gets a session.
    const next = new Client({ name: 'test', version: '1' });
    await next.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    expect((await next.listTools()).tools).toHaveLength(1);
    await next.close();
    await client.close().catch(() => undefined);
  });
});
