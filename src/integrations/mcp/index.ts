/**
 * `intentguard/mcp`: a guarding MCP proxy. It connects to an upstream MCP server as a
 * client, serves the same tools, resources and prompts to MCP clients, and checks every
 * `tools/call` against the task's spec before forwarding it: run, ask the person
 * (elicitation, the terminal) or refuse with feedback the model reads.
 */
export { type McpAudit, openSqliteAudit } from './audit.js';
export {
  type ConfirmMethod,
  confirmCall,
  confirmMethods,
  parseConfirmMethods,
} from './confirm.js';
export { McpProxyError, type McpProxyErrorCode } from './errors.js';
export { listenMcpHttp, type McpHttpListener, type McpHttpOptions } from './http.js';
export {
  type McpProxy,
  type McpProxyInstruction,
  type McpProxyOptions,
  type McpProxyStrictness,
  startMcpProxy,
} from './proxy.js';
export { schemaFromUpstreamTools, type UpstreamTool } from './schema.js';
export type { UpstreamTarget } from './upstream.js';
