import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  CompleteResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
  ListRootsRequestSchema,
  ListToolsRequestSchema,
  type ListToolsResult,
  McpError,
  ReadResourceRequestSchema,
  ReadResourceResultSchema,
  RootsListChangedNotificationSchema,
  type ServerCapabilities,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { renderRefusal } from '../../guard/adapter-kit/index.js';
import {
  createGuard,
  formalizeInstruction,
  type Guard,
  type GuardDecision,
  type GuardEvent,
  type GuardInstruction,
  type GuardOptions,
} from '../../guard/index.js';
import { checkSpec, renderDiagnostics, type Schema } from '../../language/index.js';
import { errorMessage } from '../../support/error-message.js';
import { invisibleClass } from '../../support/printable-text.js';
import type { McpAudit } from './audit.js';
import { type ConfirmMethod, confirmCall } from './confirm.js';
import { McpProxyError } from './errors.js';
import { schemaFromUpstreamTools, type UpstreamTool } from './schema.js';

/** Invisible characters and quotes: a label cannot close the quotes it is shown in. */
const labelBreaking = new RegExp(`[${invisibleClass}"'\`[\\]«»‘’‚‛“”„‟‹›]`, 'gu');

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

/** The user's instruction, formalized once at start-up against the upstream's tools. */
/** The user's instruction, formalized once at start-up against the upstream's tools. */
export type McpProxyInstruction = GuardInstruction;

export interface McpProxyOptions {
  readonly upstream: UpstreamTarget;
  /** The spec text, checked against the schema built from the upstream's `tools/list`. */
  readonly spec?: string;
  /** Or the user's instruction, formalized once at start-up. */
  readonly instruction?: McpProxyInstruction;
  /** How a call the spec wants confirmed is asked for (default `elicit, console, deny`). */
  readonly confirm?: readonly ConfirmMethod[];
  /** The guard's options (clock, time zone, shadow mode, …). */
  readonly guard?: Omit<GuardOptions, 'onEvent'>;
  /** Every decision is recorded here. */
  readonly audit?: McpAudit;
  /** Diagnostics for the operator (the CLI writes them to stderr; never stdout). */
  readonly log?: (line: string) => void;
  /** How long a person has to answer a confirmation (default 55 s). */
  readonly confirmTimeoutMs?: number;
  /** The terminal for `console` confirmations (default `/dev/tty`). */
  readonly ttyPath?: string;
  /** Called with the upstream's tools as soon as they are listed, before the spec is checked. */
  readonly onTools?: (tools: readonly UpstreamTool[]) => void | Promise<void>;
  /** The proxy's name towards the upstream. */
  readonly clientName?: string;
}

/** A running proxy: connected upstream, a checked spec, one guard for the task. */
export interface McpProxy {
  /** The spec text the guard checks with. */
  readonly spec: string;
  readonly schema: Schema;
  readonly guard: Guard;
  /** The upstream's tools, as listed at start-up. */
  readonly tools: readonly UpstreamTool[];
  /** A new downstream MCP server over this proxy (one per client connection). */
  createServer(): Server;
  /** Serves one client on a transport (stdio); resolves when that client disconnects. */
  serve(transport: Transport): Promise<void>;
  /** Whether the upstream connection is alive. */
  readonly upstreamAlive: boolean;
  close(): Promise<void>;
}

const proxyVersion = '0.1.0';

function describeUpstream(target: UpstreamTarget): string {
  if ('transport' in target) return target.name ?? 'transport';
  return 'url' in target ? target.url : [target.command, ...(target.args ?? [])].join(' ');
}

function errorText(error: unknown): string {
  return errorMessage(error);
}

/**
 * The upstream's name as the label of its forwarded questions: quotes, controls, invisible
 * characters and line breaks removed, spaces collapsed, at most 40 characters (M2).
 */
export function upstreamQuestionLabel(name: unknown): string {
  const clean = String(name ?? '')
    .replace(labelBreaking, ' ')
    .replace(/\s+/gu, ' ')
    .trim();
  const cut = [...clean];
  return cut.length === 0 ? 'unnamed' : cut.length > 40 ? `${cut.slice(0, 39).join('')}…` : clean;
}

/**
 * An upstream's question as the person sees it: a header naming the server and saying it
 * is not intentguard's, then the server's text with every line quoted (`│ `), so that no
 * line of it can pass for intentguard's own question (which starts `Allow …`, unquoted).
 */
export function upstreamQuestion(label: string, message: string): string {
  const body = message
    .replace(/\r\n?|[\u0085\u2028\u2029]/gu, '\n')
    .replace(/[\p{Cf}]|[^\P{Cc}\n\t]/gu, '')
    .split('\n')
    .map((line) => `│ ${line}`)
    .join('\n');
  return `The MCP server [${label}] asks (this question is not from intentguard; the answer goes to that server):\n${body}`;
}

/** A refusal as the model reads it: a tool result with `isError`, never a protocol error. */
function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

async function listAllTools(client: Client): Promise<UpstreamTool[]> {
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

async function specFromInstruction(
  source: McpProxyInstruction,
  schema: Schema,
  guard: Omit<GuardOptions, 'onEvent'>,
): Promise<string> {
  const { result } = await formalizeInstruction(source, schema, guard);
  if (!result.ok)
    throw new McpProxyError(
      'no-valid-spec',
      `the instruction gave no valid spec: ${result.failure.message}`,
      result.diagnostics,
    );
  return result.value.text;
}

/**
 * Connects to the upstream MCP server, builds the guard's schema from its `tools/list`,
 * checks the spec (or formalizes the instruction) and returns the proxy. Without a spec
 * or an instruction it refuses to start: a guard with nothing to check against would
 * refuse everything, and a proxy that forwarded unchecked would be no guard.
 *
 * @example
 * const proxy = await startMcpProxy({ upstream: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', dir] }, spec });
 * await proxy.serve(new StdioServerTransport());
 */
export async function startMcpProxy(options: McpProxyOptions): Promise<McpProxy> {
  const log = options.log ?? (() => undefined);
  if (options.spec === undefined && options.instruction === undefined)
    throw new McpProxyError(
      'no-spec',
      'no spec to guard with: give the spec (--spec FILE) or the user instruction (--instruction TEXT)',
    );
  const confirmMethods = options.confirm ?? ['elicit', 'console', 'deny'];
  const upstreamName = describeUpstream(options.upstream);
  // The upstream may ask the client things of its own (a form for the person, a
  // completion from the client's model, the client's roots): declared here, forwarded
  // to the client whose call is running (see `clientFor`), refused when that client
  // cannot answer them.
  const upstream = new Client(
    { name: options.clientName ?? 'intentguard-mcp-proxy', version: proxyVersion },
    { capabilities: { elicitation: { form: {} }, sampling: {}, roots: { listChanged: true } } },
  );
  let upstreamAlive = false;
  let closing = false;
  const servers = new Set<Server>();

  const transport = upstreamTransport(options.upstream, log);
  try {
    await upstream.connect(transport);
  } catch (error) {
    await upstream.close().catch(() => undefined);
    throw new McpProxyError(
      'upstream-failed',
      `cannot connect to the upstream server '${upstreamName}': ${errorText(error)}`,
      [],
      error,
    );
  }
  upstreamAlive = true;
  if (transport instanceof StdioClientTransport && transport.pid !== null)
    log(`intentguard: upstream server '${upstreamName}' running (pid ${transport.pid})`);
  upstream.onclose = () => {
    upstreamAlive = false;
    if (!closing) log(`intentguard: the upstream server '${upstreamName}' closed the connection`);
  };
  upstream.onerror = (error) => log(`intentguard: upstream: ${errorText(error)}`);

  let tools: UpstreamTool[];
  let schema: Schema;
  let spec: string;
  try {
    tools = await listAllTools(upstream);
    await options.onTools?.(tools);
    const built = schemaFromUpstreamTools(tools);
    if (!built.ok)
      throw new McpProxyError(
        'upstream-failed',
        `the upstream's tools/list cannot be read as a schema:\n${renderDiagnostics(built.diagnostics, JSON.stringify({ tools }, null, 2), { fileName: 'tools/list' })}`,
        built.diagnostics,
      );
    schema = built.value;
    spec =
      options.spec ??
      (await specFromInstruction(
        options.instruction as McpProxyInstruction,
        schema,
        options.guard ?? {},
      ));
    const checked = checkSpec(spec, schema);
    if (!checked.ok)
      throw new McpProxyError(
        'invalid-spec',
        `the spec does not check against the upstream's tools:\n${renderDiagnostics(checked.diagnostics, spec, { fileName: 'spec' })}`,
        checked.diagnostics,
      );
  } catch (error) {
    closing = true;
    await upstream.close().catch(() => undefined);
    if (McpProxyError.isInstance(error)) throw error;
    throw new McpProxyError(
      'upstream-failed',
      `cannot list the upstream server's tools: ${errorText(error)}`,
      [],
      error,
    );
  }

  options.audit?.start({
    spec,
    upstream: upstreamName,
    ...(options.instruction ? { instruction: options.instruction.instruction } : {}),
  });
  const approvalMethods = new Map<string, string>();
  const onEvent = (event: GuardEvent): void => {
    try {
      const method = event.kind === 'approval' ? approvalMethods.get(event.id) : undefined;
      options.audit?.record(event, method ? { method } : {});
    } catch (error) {
      log(`intentguard: audit: ${errorText(error)}`);
    }
  };
  const guard = createGuard(spec, schema, { ...(options.guard ?? {}), onEvent });
  const toolNames = new Set(tools.map((tool) => tool.name));
  // The tool definitions the spec was checked against, pinned: clients are shown these
  // and no others, and when the upstream's differ — announced or not — every call is
  // refused until the proxy restarts (the spec may no longer mean the same, M1).
  const toolsText = JSON.stringify(tools);
  const pinnedTools: ListToolsResult = { tools: tools as ListToolsResult['tools'] };
  let toolsChanged = false;
  let callCounter = 0;

  /** Lists the upstream's tools again and compares them with the pinned ones. */
  async function recheckTools(): Promise<void> {
    if (toolsChanged) return;
    try {
      const now = await listAllTools(upstream);
      if (JSON.stringify(now) !== toolsText) {
        toolsChanged = true;
        log(
          'intentguard: the upstream changed its tools; every call is refused until the proxy restarts',
        );
      }
    } catch (error) {
      toolsChanged = true;
      log(`intentguard: the upstream's tools cannot be listed again: ${errorText(error)}`);
    }
  }

  upstream.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/tools/list_changed') await recheckTools();
    for (const server of servers) {
      // biome-ignore lint/suspicious/noExplicitAny: forwarded as the upstream sent it
      server.notification(notification as any).catch(() => undefined);
    }
  };

  const upstreamCapabilities = upstream.getServerCapabilities() ?? {};
  const capabilities: ServerCapabilities = {
    tools: { ...(upstreamCapabilities.tools ?? {}) },
    ...(upstreamCapabilities.resources ? { resources: upstreamCapabilities.resources } : {}),
    ...(upstreamCapabilities.prompts ? { prompts: upstreamCapabilities.prompts } : {}),
    ...(upstreamCapabilities.logging ? { logging: upstreamCapabilities.logging } : {}),
    ...(upstreamCapabilities.completions ? { completions: upstreamCapabilities.completions } : {}),
  };
  const serverInfo = upstream.getServerVersion() ?? { name: 'mcp', version: '0' };
  const instructions = upstream.getInstructions();

  /** Tool calls each client has running upstream (the upstream's own requests belong to one). */
  const running = new Map<Server, number>();
  /**
   * The client an upstream request is meant for: the one with a call running upstream,
   * or the only client connected; with several candidates the request is refused
   * rather than shown to the wrong person.
   */
  function clientFor(what: string, capable: (server: Server) => boolean): Server {
    const busy = [...running].filter(([, count]) => count > 0).map(([server]) => server);
    const candidates = busy.length > 0 ? busy : [...servers];
    const [target] = candidates;
    if (candidates.length !== 1 || target === undefined)
      throw new McpError(
        -32603,
        candidates.length === 0
          ? `intentguard: no client is connected to answer the server's ${what}`
          : `intentguard: several clients are connected; the server's ${what} is not forwarded`,
      );
    if (!capable(target))
      throw new McpError(-32601, `intentguard: the client does not support ${what}`);
    return target;
  }
  const upstreamLabel = upstreamQuestionLabel(serverInfo.name);
  upstream.setRequestHandler(ElicitRequestSchema, (request, extra) => {
    const target = clientFor('requests for input (elicitation)', (server) =>
      Boolean(server.getClientCapabilities()?.elicitation),
    );
    if (request.params.mode === 'url')
      throw new McpError(-32601, 'intentguard: URL elicitation is not forwarded');
    // Marked as the server's, so that the person never takes it for intentguard's own question.
    return target.elicitInput(
      { ...request.params, message: upstreamQuestion(upstreamLabel, request.params.message) },
      { signal: extra.signal },
    );
  });
  upstream.setRequestHandler(CreateMessageRequestSchema, (request, extra) =>
    clientFor('sampling requests', (server) =>
      Boolean(server.getClientCapabilities()?.sampling),
    ).createMessage(request.params, { signal: extra.signal }),
  );
  upstream.setRequestHandler(ListRootsRequestSchema, (request, extra) =>
    clientFor('roots requests', (server) =>
      Boolean(server.getClientCapabilities()?.roots),
    ).listRoots(request.params, { signal: extra.signal }),
  );

  const upstreamDown = (): CallToolResult =>
    refusal(
      `intentguard: the call was not made: the upstream MCP server '${upstreamName}' is not running. Tell the user; the server needs a restart.`,
    );

  async function callTool(
    server: Server,
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    extra: {
      signal: AbortSignal;
      sendNotification: (notification: never) => Promise<void>;
    },
  ): Promise<CallToolResult> {
    const id = `mcp-${++callCounter}`;
    const name = params.name;
    const args = params.arguments ?? {};
    if (toolsChanged)
      return refusal(
        'intentguard: refused: the upstream server changed its tools after the spec was checked; restart the proxy.',
      );
    if (!toolNames.has(name))
      return refusal(`intentguard: refused: the upstream server has no tool '${name}'.`);
    let decision: GuardDecision;
    let unasked = false;
    try {
      decision = guard.check({ id, name, args });
      if (decision.action === 'ask') {
        const answer = await confirmCall(
          confirmMethods,
          { server, prompt: decision.prompt, tool: name, signal: extra.signal },
          {
            log,
            ...(options.confirmTimeoutMs !== undefined
              ? { timeoutMs: options.confirmTimeoutMs }
              : {}),
            ...(options.ttyPath !== undefined ? { ttyPath: options.ttyPath } : {}),
          },
        );
        unasked = answer.method === 'deny' || answer.method === 'none';
        approvalMethods.set(id, answer.method);
        decision = guard.approve(id, answer.approved);
        approvalMethods.delete(id);
      }
    } catch (error) {
      log(`intentguard: internal error while checking ${name}: ${errorText(error)}`);
      return refusal(renderRefusal({ code: 'unchecked', reason: 'an internal error' }));
    }
    if (decision.action !== 'run' && unasked)
      return refusal(renderRefusal({ code: 'approval-missing', question: decision.prompt }));
    if (decision.action !== 'run') return refusal(decision.message);
    if (!upstreamAlive) {
      safeResult(id, { error: 'the upstream server is not running' });
      return upstreamDown();
    }
    let result: CallToolResult;
    running.set(server, (running.get(server) ?? 0) + 1);
    try {
      const progressToken = params._meta?.['progressToken'];
      result = (await upstream.callTool(
        { name, arguments: args, ...(params._meta ? { _meta: params._meta } : {}) },
        undefined,
        {
          signal: extra.signal,
          resetTimeoutOnProgress: true,
          ...(progressToken !== undefined
            ? {
                onprogress: (progress) => {
                  extra
                    .sendNotification({
                      method: 'notifications/progress',
                      params: { ...progress, progressToken },
                    } as never)
                    .catch(() => undefined);
                },
              }
            : {}),
        },
      )) as CallToolResult;
    } catch (error) {
      safeResult(id, { error: errorText(error) });
      if (!upstreamAlive) return upstreamDown();
      return refusal(`intentguard: the upstream MCP server failed on ${name}: ${errorText(error)}`);
    } finally {
      running.set(server, (running.get(server) ?? 1) - 1);
    }
    safeResult(id, result.isError === true ? { error: result } : { output: result });
    return result;
  }

  function safeResult(id: string, outcome: { output: unknown } | { error: unknown }): void {
    try {
      guard.result(id, outcome);
    } catch (error) {
      log(`intentguard: internal error while recording the result of ${id}: ${errorText(error)}`);
    }
  }

  function forward<T>(run: () => Promise<T>): Promise<T> {
    if (!upstreamAlive)
      return Promise.reject(new Error(`the upstream MCP server '${upstreamName}' is not running`));
    return run();
  }

  function createServer(): Server {
    const server = new Server(serverInfo, {
      capabilities,
      ...(instructions !== undefined ? { instructions } : {}),
    });
    // The pinned tools, in one page; asking also checks the upstream's own list (M1).
    server.setRequestHandler(ListToolsRequestSchema, (request) =>
      forward(async () => {
        if (request.params?.cursor !== undefined)
          throw new McpError(-32602, 'intentguard: unknown cursor: the tools come in one page');
        await recheckTools();
        return pinnedTools;
      }),
    );
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      callTool(server, request.params, extra as never),
    );
    if (capabilities.resources) {
      server.setRequestHandler(ListResourcesRequestSchema, (request, extra) =>
        forward(() =>
          upstream.request(request, ListResourcesResultSchema, { signal: extra.signal }),
        ),
      );
      server.setRequestHandler(ListResourceTemplatesRequestSchema, (request, extra) =>
        forward(() =>
          upstream.request(request, ListResourceTemplatesResultSchema, { signal: extra.signal }),
        ),
      );
      server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
        forward(() =>
          upstream.request(request, ReadResourceResultSchema, { signal: extra.signal }),
        ),
      );
      if (capabilities.resources.subscribe) {
        server.setRequestHandler(SubscribeRequestSchema, (request, extra) =>
          forward(() => upstream.request(request, EmptyResultSchema, { signal: extra.signal })),
        );
        server.setRequestHandler(UnsubscribeRequestSchema, (request, extra) =>
          forward(() => upstream.request(request, EmptyResultSchema, { signal: extra.signal })),
        );
      }
    }
    if (capabilities.prompts) {
      server.setRequestHandler(ListPromptsRequestSchema, (request, extra) =>
        forward(() => upstream.request(request, ListPromptsResultSchema, { signal: extra.signal })),
      );
      server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
        forward(() => upstream.request(request, GetPromptResultSchema, { signal: extra.signal })),
      );
    }
    if (capabilities.completions) {
      server.setRequestHandler(CompleteRequestSchema, (request, extra) =>
        forward(() => upstream.request(request, CompleteResultSchema, { signal: extra.signal })),
      );
    }
    if (capabilities.logging) {
      server.setRequestHandler(SetLevelRequestSchema, (request, extra) =>
        forward(() => upstream.request(request, EmptyResultSchema, { signal: extra.signal })),
      );
    }
    server.setNotificationHandler(RootsListChangedNotificationSchema, () =>
      upstreamAlive ? upstream.sendRootsListChanged().catch(() => undefined) : undefined,
    );
    servers.add(server);
    const previous = server.onclose;
    server.onclose = () => {
      servers.delete(server);
      running.delete(server);
      previous?.();
    };
    return server;
  }

  return {
    spec,
    schema,
    guard,
    tools,
    createServer,
    get upstreamAlive() {
      return upstreamAlive;
    },
    serve(transport) {
      const server = createServer();
      return new Promise<void>((resolve, reject) => {
        const onclose = server.onclose;
        server.onclose = () => {
          onclose?.();
          resolve();
        };
        server.connect(transport).catch(reject);
      });
    },
    async close() {
      closing = true;
      for (const server of [...servers]) await server.close().catch(() => undefined);
      await upstream.close().catch(() => undefined);
    },
  };
}
