import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { invisibleClass } from '../../support/printable-text.js';

/** Invisible characters and quotes: a label cannot close the quotes it is shown in. */
const labelBreaking = new RegExp(`[${invisibleClass}"'\`[\\]«»‘’‚‛“”„‟‹›]`, 'gu');

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

/**
 * Forwards the upstream's own requests (elicitation, sampling, roots) to a client: the one
 * with a call running upstream (`running`), or the only client connected; with several
 * candidates the request is refused rather than shown to the wrong person.
 */
export function forwardUpstreamRequests(
  upstream: Client,
  upstreamLabel: string,
  servers: ReadonlySet<Server>,
  running: ReadonlyMap<Server, number>,
): void {
  function clientFor(what: string, capable: (server: Server) => boolean): Server {
    const busy = [...running].filter(([, count]) => count > 0).map(([server]) => server);
    const candidates = busy.length > 0 ? busy : [...servers];
    const [target] = candidates;
    if (candidates.length !== 1 || target === undefined)
      throw new McpError(
        -32603,
        candidates.length === 0
          ? `intentguard: no MCP client is connected yet to answer the server's ${what}; they are forwarded once one that supports them connects`
          : `intentguard: several clients are connected; the server's ${what} is not forwarded`,
      );
    if (!capable(target))
      throw new McpError(-32601, `intentguard: the client does not support ${what}`);
    return target;
  }
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
}
