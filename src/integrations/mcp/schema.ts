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
 */
export function schemaFromUpstreamTools(tools: readonly UpstreamTool[]): Result<Schema> {
  const annotationsByName = new Map<string, unknown>();
  for (const tool of tools) {
    if (typeof tool?.name === 'string') annotationsByName.set(tool.name, tool.annotations);
  }
  return loadToolSchema(
    { tools },
    {
      id: 'mcp',
      critical: (name) =>
        isCriticalByName(name) || isCriticalByAnnotations(annotationsByName.get(name)),
    },
  );
}
