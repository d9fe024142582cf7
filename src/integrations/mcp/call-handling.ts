import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  CompleteResultSchema,
  EmptyResultSchema,
  GetPromptRequestSchema,
  GetPromptResultSchema,
  ListPromptsRequestSchema,
  ListPromptsResultSchema,
  ListResourcesRequestSchema,
  ListResourcesResultSchema,
  ListResourceTemplatesRequestSchema,
  ListResourceTemplatesResultSchema,
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
import type { Guard, GuardDecision } from '../../guard/index.js';
import { errorMessage } from '../../support/error-message.js';
import { type ConfirmMethod, confirmCall } from './confirm.js';
import type { UpstreamTool } from './schema.js';
import { listAllTools } from './upstream.js';

/** What the proxy knows of the upstream connection and its tools, changing as it runs. */
export interface ProxyState {
  upstreamAlive: boolean;
  closing: boolean;
  /** The upstream's tools differ from the pinned ones: every call is refused (M1). */
  toolsChanged: boolean;
}

/** What handling a client's requests needs: the upstream, the guard, the shared state. */
export interface CallContext {
  readonly upstream: Client;
  readonly upstreamName: string;
  readonly guard: Guard;
  readonly tools: readonly UpstreamTool[];
  readonly state: ProxyState;
  /** Tool calls each client has running upstream (the upstream's own requests belong to one). */
  readonly running: Map<Server, number>;
  /** How each call being asked about was answered, for the audit of its approval. */
  readonly approvalMethods: Map<string, string>;
  /** Calls whose decision or approval the audit file could not record: they do not run. */
  readonly unaudited: Set<string>;
  readonly confirmMethods: readonly ConfirmMethod[];
  readonly confirmTimeoutMs?: number;
  readonly ttyPath?: string;
  readonly log: (line: string) => void;
}

type CallParams = {
  name: string;
  arguments?: Record<string, unknown> | undefined;
  _meta?: Record<string, unknown> | undefined;
};
type CallExtra = {
  signal: AbortSignal;
  sendNotification: (notification: never) => Promise<void>;
};

/** A refusal as the model reads it: a tool result with `isError`, never a protocol error. */
function refusal(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Lists the upstream's tools again and compares them with the pinned ones: the tool
 * definitions the spec was checked against. When they differ — announced or not — every
 * call is refused until the proxy restarts (the spec may no longer mean the same, M1).
 */
export function toolRecheck(context: CallContext): () => Promise<void> {
  const { state, log } = context;
  const toolsText = JSON.stringify(context.tools);
  return async () => {
    if (state.toolsChanged) return;
    try {
      const now = await listAllTools(context.upstream);
      if (JSON.stringify(now) !== toolsText) {
        state.toolsChanged = true;
        log(
          'intentguard: the upstream changed its tools; every call is refused until the proxy restarts',
        );
      }
    } catch (error) {
      state.toolsChanged = true;
      log(`intentguard: the upstream's tools cannot be listed again: ${errorMessage(error)}`);
    }
  };
}

function safeResult(
  context: CallContext,
  id: string,
  outcome: { output: unknown } | { error: unknown },
): void {
  try {
    context.guard.result(id, outcome);
  } catch (error) {
    context.log(
      `intentguard: internal error while recording the result of ${id}: ${errorMessage(error)}`,
    );
  }
}

/** The guard's decision on a call, the person asked when the spec wants it: `run`, or the refusal. */
async function decideCall(
  context: CallContext,
  server: Server,
  call: { id: string; name: string; args: Record<string, unknown> },
  signal: AbortSignal,
): Promise<'run' | CallToolResult> {
  const { guard, log } = context;
  const { id, name } = call;
  let decision: GuardDecision;
  let unasked = false;
  try {
    decision = guard.check(call);
    if (decision.action === 'ask') {
      const answer = await confirmCall(
        context.confirmMethods,
        { server, prompt: decision.prompt, tool: name, signal },
        {
          log,
          ...(context.confirmTimeoutMs !== undefined
            ? { timeoutMs: context.confirmTimeoutMs }
            : {}),
          ...(context.ttyPath !== undefined ? { ttyPath: context.ttyPath } : {}),
        },
      );
      unasked = answer.method === 'deny' || answer.method === 'none';
      context.approvalMethods.set(id, answer.method);
      decision = guard.approve(id, answer.approved);
      context.approvalMethods.delete(id);
    }
  } catch (error) {
    log(`intentguard: internal error while checking ${name}: ${errorMessage(error)}`);
    return refusal(renderRefusal({ code: 'unchecked', reason: 'an internal error' }));
  }
  if (decision.action !== 'run' && unasked)
    return refusal(renderRefusal({ code: 'approval-missing', question: decision.prompt }));
  if (decision.action !== 'run') return refusal(decision.message);
  return 'run';
}

function upstreamDown(context: CallContext): CallToolResult {
  return refusal(
    `intentguard: the call was not made: the upstream MCP server '${context.upstreamName}' is not running. Tell the user; the server needs a restart.`,
  );
}

/** Makes an allowed call upstream, its progress passed on, its result recorded. */
async function forwardCall(
  context: CallContext,
  server: Server,
  id: string,
  params: CallParams,
  extra: CallExtra,
): Promise<CallToolResult> {
  const { running, upstream } = context;
  const name = params.name;
  const args = params.arguments ?? {};
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
    safeResult(context, id, { error: errorMessage(error) });
    if (!context.state.upstreamAlive) return upstreamDown(context);
    return refusal(
      `intentguard: the upstream MCP server failed on ${name}: ${errorMessage(error)}`,
    );
  } finally {
    running.set(server, (running.get(server) ?? 1) - 1);
  }
  safeResult(context, id, result.isError === true ? { error: result } : { output: result });
  return result;
}

/** The `tools/call` handler: every call checked by the guard before it goes upstream. */
export function callHandler(
  context: CallContext,
): (server: Server, params: CallParams, extra: CallExtra) => Promise<CallToolResult> {
  const toolNames = new Set(context.tools.map((tool) => tool.name));
  let callCounter = 0;
  return async (server, params, extra) => {
    const id = `mcp-${++callCounter}`;
    const name = params.name;
    const args = params.arguments ?? {};
    if (context.state.toolsChanged)
      return refusal(
        'intentguard: refused: the upstream server changed its tools after the spec was checked; restart the proxy.',
      );
    if (!toolNames.has(name))
      return refusal(`intentguard: refused: the upstream server has no tool '${name}'.`);
    const decided = await decideCall(context, server, { id, name, args }, extra.signal);
    const unaudited = context.unaudited.delete(id);
    if (decided !== 'run') return decided;
    if (unaudited) {
      safeResult(context, id, { error: 'the audit file could not record the decision' });
      return refusal(
        "intentguard: refused: the audit file could not record this call, so it did not run. Tell the user: the audit file needs attention (see the proxy's log).",
      );
    }
    if (!context.state.upstreamAlive) {
      safeResult(context, id, { error: 'the upstream server is not running' });
      return upstreamDown(context);
    }
    return forwardCall(context, server, id, params, extra);
  };
}

/**
 * Installs a downstream server's handlers: `tools/list` (the pinned tools), `tools/call`
 * (checked), and whatever else the upstream offers, forwarded as it is.
 */
export function installHandlers(
  server: Server,
  context: CallContext,
  capabilities: ServerCapabilities,
  handlers: {
    readonly callTool: ReturnType<typeof callHandler>;
    readonly recheckTools: () => Promise<void>;
  },
): void {
  const { upstream, state } = context;
  const pinnedTools: ListToolsResult = { tools: context.tools as ListToolsResult['tools'] };
  function forward<T>(run: () => Promise<T>): Promise<T> {
    if (!state.upstreamAlive)
      return Promise.reject(
        new Error(`the upstream MCP server '${context.upstreamName}' is not running`),
      );
    return run();
  }
  // The pinned tools, in one page; asking also checks the upstream's own list (M1).
  server.setRequestHandler(ListToolsRequestSchema, (request) =>
    forward(async () => {
      if (request.params?.cursor !== undefined)
        throw new McpError(-32602, 'intentguard: unknown cursor: the tools come in one page');
      await handlers.recheckTools();
      return pinnedTools;
    }),
  );
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    handlers.callTool(server, request.params, extra as never),
  );
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (request, extra) =>
      forward(() => upstream.request(request, ListResourcesResultSchema, { signal: extra.signal })),
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (request, extra) =>
      forward(() =>
        upstream.request(request, ListResourceTemplatesResultSchema, { signal: extra.signal }),
      ),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      forward(() => upstream.request(request, ReadResourceResultSchema, { signal: extra.signal })),
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
    state.upstreamAlive ? upstream.sendRootsListChanged().catch(() => undefined) : undefined,
  );
}
