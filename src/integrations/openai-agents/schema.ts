import { jsonSchemaOf } from '../../guard/adapter-kit/index.js';
import type { Result, Schema } from '../../language/index.js';
import {
  isCriticalByName,
  loadToolSchema,
  schemaFromOpenAiTools,
  type ToolSchemaOptions,
} from '../../schema/index.js';
import type { FunctionToolLike } from './types.js';

const caller = 'schemaFromOpenAiAgentsTools';

export interface OpenAiAgentsToolSchemaOptions extends ToolSchemaOptions {
  /** Tools left out by name (the finish tool, tools the spec never names). */
  readonly exclude?: readonly string[];
  /**
   * The schema of each tool's result, by tool name (zod 4 or JSON Schema): function tools
   * declare no output schema, and a spec that reads `<Tool>Result` fields
   * (`BankCheckBalanceResult(balance > 1000)`) needs them. A name that is not one of the
   * tools is a `TypeError`, so a typo does not silently leave a result unreadable.
   */
  readonly results?: Readonly<Record<string, unknown>>;
}

/**
 * The schema of an agent's function tools, for writing or formalizing its spec: each
 * tool's `parameters` (JSON Schema, as the SDK converted it from zod) become the action's
 * variables, as `schemaFromOpenAiTools` reads them, and `results` give the `<Tool>Result`
 * fields (without them a result is only its text, `content`). Other tools (hosted,
 * computer, shell) have no parameters to check and are left out; so is the finish tool,
 * when named in `exclude`. Criticality comes from the tool names (`isCriticalByName`)
 * unless `options.critical` decides.
 *
 * @example
 * const schema = unwrap(
 *   schemaFromOpenAiAgentsTools([checkBalance, transfer], {
 *     results: { bank_check_balance: z.object({ balance: z.number() }) },
 *   }),
 * );
 */
export function schemaFromOpenAiAgentsTools(
  tools: readonly FunctionToolLike[],
  options: OpenAiAgentsToolSchemaOptions = {},
): Result<Schema> {
  const { exclude = [], results, ...schemaOptions } = options;
  const functions = tools.filter(
    (tool) => tool.type === 'function' && !exclude.includes(tool.name),
  );
  if (results === undefined)
    return schemaFromOpenAiTools(
      functions.map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description ?? '',
        parameters: tool.parameters ?? { type: 'object', properties: {} },
      })),
      schemaOptions,
    );
  const names = new Set(functions.map((tool) => tool.name));
  for (const name of Object.keys(results))
    if (!names.has(name))
      throw new TypeError(
        `${caller}: results names '${name.slice(0, 80)}', which is not one of the function tools (${[...names].join(', ').slice(0, 300)})`,
      );
  // With result schemas the tools are read as an MCP tools/list (the format that has
  // output schemas), keeping the criticality OpenAI function tools get from their names.
  const { critical } = schemaOptions;
  return loadToolSchema(
    {
      tools: functions.map((tool) => ({
        name: tool.name,
        description: tool.description ?? '',
        inputSchema: tool.parameters ?? { type: 'object', properties: {} },
        ...(Object.hasOwn(results, tool.name)
          ? {
              outputSchema: jsonSchemaOf(
                results[tool.name],
                caller,
                `result schema of '${tool.name}'`,
              ),
            }
          : {}),
      })),
    },
    { ...schemaOptions, critical: (name) => critical?.(name) ?? isCriticalByName(name) },
  );
}
