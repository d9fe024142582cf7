import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../../support/error-message.js';
import { McpProxyError } from './errors.js';
import type { UpstreamTool } from './schema.js';

/** The upstream MCP server: a command run over stdio, or a streamable-HTTP endpoint. */
export type UpstreamTarget =
  | {
      readonly command: string;
      readonly args?: readonly string[];
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | { readonly url: string; readonly headers?: Readonly<Record<string, string>> }
  /** An already made client transport (an in-process server, a custom transport). */
  | { readonly transport: Transport; readonly name?: string };

const proxyVersion = '0.1.0';

export function describeUpstream(target: UpstreamTarget): string {
  if ('transport' in target) return target.name ?? 'transport';
  return 'url' in target ? target.url : [target.command, ...(target.args ?? [])].join(' ');
}

export async function listAllTools(client: Client): Promise<UpstreamTool[]> {
  const tools: UpstreamTool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result: ListToolsResult = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...(result.tools as UpstreamTool[]));
    cursor = result.nextCursor;
    if (!cursor) return tools;
  }
  throw new Error('the upstream lists more than 100 pages of tools');
}

function upstreamTransport(target: UpstreamTarget, log: (line: string) => void): Transport {
  if ('transport' in target) return target.transport;
  if ('url' in target) {
    return new StreamableHTTPClientTransport(new URL(target.url), {
      requestInit: { headers: { ...(target.headers ?? {}) } },
    });
  }
  const transport = new StdioClientTransport({
    command: target.command,
    args: [...(target.args ?? [])],
    ...(target.env ? { env: { ...target.env } } : {}),
    ...(target.cwd ? { cwd: target.cwd } : {}),
    stderr: 'pipe',
  });
  // The upstream's own diagnostics go to the operator, marked as the upstream's.
  transport.stderr?.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() !== '') log(`upstream: ${line}`);
    }
  });
  return transport;
}

/**
 * A client connected to the upstream server. The upstream may ask the client things of
 * its own (a form for the person, a completion from the client's model, the client's
 * roots): declared here, forwarded to the client whose call is running (see
 * `forwardUpstreamRequests`), refused when that client cannot answer them.
 */
export async function connectUpstream(
  target: UpstreamTarget,
  upstreamName: string,
  clientName: string | undefined,
  log: (line: string) => void,
): Promise<Client> {
  const upstream = new Client(
    { name: clientName ?? 'intentguard-mcp-proxy', version: proxyVersion },
    { capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } } },
  );
  const transport = upstreamTransport(target, log);
  try {
    await upstream.connect(transport);
  } catch (error) {
    await upstream.close().catch(() => undefined);
    throw new McpProxyError(
      'upstream-failed',
      `cannot connect to the upstream server '${upstreamName}': ${errorMessage(error)}`,
      [],
      error,
    );
  }
  if (transport instanceof StdioClientTransport && transport.pid !== null)
    log(`intentguard: upstream server '${upstreamName}' running (pid ${transport.pid})`);
  return upstream;
}
