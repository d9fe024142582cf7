import type { Result, Schema } from '../../language/index.js';
import { isCriticalByAnnotations, isCriticalByName, loadToolSchema } from '../../schema/index.js';

/** One tool as an upstream `tools/list` describes it (untrusted). */
export interface UpstreamTool {
  readonly name: string;
  readonly annotations?: unknown;
  readonly [key: string]: unknown;
}

/**
 * The guard's schema from an upstream server's tools. Annotations are the upstream's
 * word, and the upstream is not trusted: a tool is critical when its name says so
 * (`write_file`, `delete_repo`) *or* its annotations do (MCP's defaults: no annotation
 * is destructive). Annotations can make a tool more critical, never less — a
 * `delete_everything` that claims `readOnlyHint: true` stays critical.
 *
 * `strict`: every tool is critical, read-only ones included, so a call no rule plans is
 * refused (or confirmed) whatever it does. Text rules on paths cannot see symlinks or
 * `..` (docs/mcp.md), and an unplanned read is still a read: strict closes both.
 *
 * @example
 * const schema = unwrap(schemaFromUpstreamTools((await client.listTools()).tools, { strict: true }));
 */
export function schemaFromUpstreamTools(
  tools: readonly UpstreamTool[],
  options: { readonly strict?: boolean } = {},
): Result<Schema> {
  const annotationsByName = new Map<string, unknown>();
  for (const tool of tools) {
    if (typeof tool?.name === 'string') annotationsByName.set(tool.name, tool.annotations);
  }
  return loadToolSchema(
    { tools },
    {
      id: 'mcp',
      critical: (name) =>
        options.strict === true ||
        isCriticalByName(name) ||
        isCriticalByAnnotations(annotationsByName.get(name)),
    },
  );
}
