import type { Result, Schema } from '../../language/index.js';
import { schemaFromOpenAiTools, type ToolSchemaOptions } from '../../schema/index.js';
import type { FunctionToolLike } from './types.js';

/**
 * The schema of an agent's function tools, for writing or formalizing its spec: each
 * tool's `parameters` (JSON Schema, as the SDK converted it from zod) become the action's
 * variables, as `schemaFromOpenAiTools` reads them. Other tools (hosted, computer, shell)
 * have no parameters to check and are left out; so is the finish tool, when named.
 *
 * @example
 * const schema = unwrap(schemaFromOpenAiAgentsTools(agent.tools, { exclude: ['finish'] }));
 */
export function schemaFromOpenAiAgentsTools(
  tools: readonly FunctionToolLike[],
  options: ToolSchemaOptions & { readonly exclude?: readonly string[] } = {},
): Result<Schema> {
  const { exclude = [], ...schemaOptions } = options;
  const functions = tools
    .filter((tool) => tool.type === 'function' && !exclude.includes(tool.name))
    .map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description ?? '',
      parameters: tool.parameters ?? { type: 'object', properties: {} },
    }));
  return schemaFromOpenAiTools(functions, schemaOptions);
}
