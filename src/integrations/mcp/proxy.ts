import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import {
  createGuard,
  formalizeInstruction,
  type Guard,
  type GuardEvent,
  type GuardInstruction,
  type GuardOptions,
} from '../../guard/index.js';
import {
  analyzeComposition,
  checkSpec,
  type Diagnostic,
  renderDiagnostics,
  type Schema,
} from '../../language/index.js';
import { errorMessage } from '../../support/error-message.js';
import type { McpAudit } from './audit.js';
import {
  type CallContext,
  callHandler,
  installHandlers,
  type ProxyState,
  toolRecheck,
} from './call-handling.js';
import type { ConfirmMethod } from './confirm.js';
import { McpProxyError } from './errors.js';
import { schemaFromUpstreamTools, type UpstreamTool } from './schema.js';
import {
  connectUpstream,
  describeUpstream,
  listAllTools,
  type UpstreamTarget,
} from './upstream.js';
import { forwardUpstreamRequests, upstreamQuestionLabel } from './upstream-requests.js';

/** The user's instruction, formalized once at start-up against the upstream's tools. */
export type McpProxyInstruction = GuardInstruction;

/** What strict mode does with a call no rule plans (see `McpProxyOptions.strict`). */
export type McpProxyStrictness = 'refuse' | 'confirm';

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
  /**
   * Strict mode: every call no rule plans — read-only tools included — is refused
   * (`'refuse'`) or asked for (`'confirm'`, through `confirm`'s methods), as the guard
   * answers an unplanned critical call (`unplannedCritical`). Off by default: read-only
   * tools then run unplanned.
   */
  readonly strict?: McpProxyStrictness;
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
 * The upstream's tools, the schema built from them and the spec checked against it; on
 * any failure the upstream is closed and the error is a `McpProxyError`.
 */
async function checkedSpec(
  upstream: Client,
  options: McpProxyOptions,
  state: ProxyState,
): Promise<{ tools: UpstreamTool[]; schema: Schema; spec: string }> {
  try {
    const tools = await listAllTools(upstream);
    await options.onTools?.(tools);
    const built = schemaFromUpstreamTools(tools, { strict: options.strict !== undefined });
    if (!built.ok)
      throw new McpProxyError(
        'upstream-failed',
        `the upstream's tools/list cannot be read as a schema:\n${renderDiagnostics(built.diagnostics, JSON.stringify({ tools }, null, 2), { fileName: 'tools/list' })}`,
        built.diagnostics,
      );
    const schema = built.value;
    const spec =
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
    checkPolicyText(spec, options.guard?.policy, schema);
    return { tools, schema, spec };
  } catch (error) {
    state.closing = true;
    await upstream.close().catch(() => undefined);
    if (McpProxyError.isInstance(error)) throw error;
    throw new McpProxyError(
      'upstream-failed',
      `cannot list the upstream server's tools: ${errorMessage(error)}`,
      [],
      error,
    );
  }
}

/**
 * The operator's policy given as text (`guard.policy`, LANGUAGE.md §8), checked with the
 * spec against the upstream's tools before anything is served: a policy that does not
 * check (or names an objective of the spec) stops the proxy with its diagnostics, located
 * in the policy. A checked policy (a `Spec`) is the guard's to take as it is.
 */
function checkPolicyText(spec: string, policy: unknown, schema: Schema): void {
  if (typeof policy !== 'string') return;
  const pair = analyzeComposition(spec, policy, schema);
  const errors = (diagnostics: readonly Diagnostic[]) =>
    diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  const policyErrors = errors(pair.policy);
  if (policyErrors.length > 0)
    throw new McpProxyError(
      'invalid-policy',
      `the policy does not check against the upstream's tools:\n${renderDiagnostics(policyErrors, policy, { fileName: 'policy' })}`,
      policyErrors,
    );
  const intentErrors = errors(pair.intent);
  if (intentErrors.length > 0)
    throw new McpProxyError(
      'invalid-spec',
      `the spec does not check with the policy:\n${renderDiagnostics(intentErrors, spec, { fileName: 'spec' })}`,
      intentErrors,
    );
}

/** The guard for the task, every decision recorded in the audit (with how it was approved). */
function auditedGuard(
  options: McpProxyOptions,
  checked: { schema: Schema; spec: string },
  upstreamName: string,
  approvalMethods: ReadonlyMap<string, string>,
  unaudited: Set<string>,
  log: (line: string) => void,
): Guard {
  const policy = options.guard?.policy;
  options.audit?.start({
    spec: checked.spec,
    upstream: upstreamName,
    ...(typeof policy === 'string' ? { policy } : {}),
    ...(options.instruction ? { instruction: options.instruction.instruction } : {}),
  });
  const onEvent = (event: GuardEvent): void => {
    try {
      const method = event.kind === 'approval' ? approvalMethods.get(event.id) : undefined;
      options.audit?.record(event, method ? { method } : {});
    } catch (error) {
      // A call whose decision or approval is not in the file must not run (call-handling.ts).
      if (event.kind === 'decision') unaudited.add(event.call.id);
      if (event.kind === 'approval') unaudited.add(event.id);
      log(`intentguard: audit: ${errorMessage(error)}`);
    }
  };
  const strictness =
    options.strict === undefined
      ? {}
      : {
          unplannedCritical:
            options.strict === 'confirm' ? ('confirm' as const) : ('revise' as const),
        };
  return createGuard(checked.spec, checked.schema, {
    ...(options.guard ?? {}),
    ...strictness,
    onEvent,
  });
}

/** What the downstream servers offer: the upstream's capabilities the proxy forwards. */
function downstreamCapabilities(upstream: Client): ServerCapabilities {
  const upstreamCapabilities = upstream.getServerCapabilities() ?? {};
  return {
    tools: { ...(upstreamCapabilities.tools ?? {}) },
    ...(upstreamCapabilities.resources ? { resources: upstreamCapabilities.resources } : {}),
    ...(upstreamCapabilities.prompts ? { prompts: upstreamCapabilities.prompts } : {}),
    ...(upstreamCapabilities.logging ? { logging: upstreamCapabilities.logging } : {}),
    ...(upstreamCapabilities.completions ? { completions: upstreamCapabilities.completions } : {}),
  };
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
  // Checked here, before anything starts: a mistyped strictness must not mean "not strict".
  if (options.strict !== undefined && options.strict !== 'refuse' && options.strict !== 'confirm')
    throw new TypeError("startMcpProxy: 'strict' must be 'refuse', 'confirm' or undefined");
  const upstreamName = describeUpstream(options.upstream);
  const servers = new Set<Server>();
  const upstream = await connectUpstream(options.upstream, upstreamName, options.clientName, log);
  const running = new Map<Server, number>();
  const serverInfo = upstream.getServerVersion() ?? { name: 'mcp', version: '0' };
  // At once: an upstream asks for roots as soon as it is initialized, before any client
  // connects; it gets a clear answer (no client yet) rather than "Method not found".
  forwardUpstreamRequests(upstream, upstreamQuestionLabel(serverInfo.name), servers, running);
  const state: ProxyState = { upstreamAlive: true, closing: false, toolsChanged: false };
  upstream.onclose = () => {
    state.upstreamAlive = false;
    if (!state.closing)
      log(`intentguard: the upstream server '${upstreamName}' closed the connection`);
  };
  upstream.onerror = (error) => log(`intentguard: upstream: ${errorMessage(error)}`);

  const { tools, schema, spec } = await checkedSpec(upstream, options, state);
  const approvalMethods = new Map<string, string>();
  const unaudited = new Set<string>();
  const guard = auditedGuard(
    options,
    { schema, spec },
    upstreamName,
    approvalMethods,
    unaudited,
    log,
  );
  const context: CallContext = {
    upstream,
    upstreamName,
    guard,
    tools,
    state,
    running,
    approvalMethods,
    unaudited,
    confirmMethods: options.confirm ?? ['elicit', 'console', 'deny'],
    ...(options.confirmTimeoutMs !== undefined
      ? { confirmTimeoutMs: options.confirmTimeoutMs }
      : {}),
    ...(options.ttyPath !== undefined ? { ttyPath: options.ttyPath } : {}),
    log,
  };
  const recheckTools = toolRecheck(context);
  const callTool = callHandler(context);

  upstream.fallbackNotificationHandler = async (notification) => {
    if (notification.method === 'notifications/tools/list_changed') await recheckTools();
    for (const server of servers) {
      // biome-ignore lint/suspicious/noExplicitAny: forwarded as the upstream sent it
      server.notification(notification as any).catch(() => undefined);
    }
  };
  const capabilities = downstreamCapabilities(upstream);
  const instructions = upstream.getInstructions();

  function createServer(): Server {
    const server = new Server(serverInfo, {
      capabilities,
      ...(instructions !== undefined ? { instructions } : {}),
    });
    installHandlers(server, context, capabilities, { callTool, recheckTools });
    servers.add(server);
    // The upstream asked for roots before any client could answer: a client that has them
    // is announced, so the upstream asks again and gets them, as if connected directly.
    server.oninitialized = () => {
      if (server.getClientCapabilities()?.roots && state.upstreamAlive)
        upstream.sendRootsListChanged().catch(() => undefined);
    };
    const previous = server.onclose;
    server.onclose = () => {
      servers.delete(server);
      context.running.delete(server);
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
      return state.upstreamAlive;
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
      state.closing = true;
      for (const server of [...servers]) await server.close().catch(() => undefined);
      await upstream.close().catch(() => undefined);
    },
  };
}
