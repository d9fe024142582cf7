import { jsonSchemaOf } from '../../guard/adapter-kit/index.js';
import type { Result, Schema } from '../../language/index.js';
import { type LoadToolSchemaOptions, loadToolSchema } from '../../schema/index.js';

/*
 * The guard's schema from LangChain tools, read structurally (`name`, `description`,
 * `schema`) without importing LangChain. A tool's `schema` is zod or JSON Schema; zod
 * converts through its Standard JSON Schema interface (zod 4, `jsonSchemaOf`).
 */

const caller = 'schemaFromLangChainTools';

export interface LangChainToolSchemaOptions extends LoadToolSchemaOptions {
  /**
   * The schema of each tool's result, by tool name (zod or JSON Schema): LangChain tools
   * declare no output schema, and a spec that reads `<Tool>Result` fields needs them.
   */
  readonly results?: Readonly<Record<string, unknown>>;
}

/**
 * Builds the schema a guard checks a spec against from the tools a LangChain agent will
 * call: names and input fields become action predicates, and `results` give the
 * `<Tool>Result` fields later calls may depend on. The tools are read as an MCP
 * `tools/list` would list them, so the other options (criticality, limits) are
 * `loadToolSchema`'s. Throws a `TypeError` for a schema it cannot read as JSON Schema.
 *
 * @example
 * const schema = unwrap(
 *   schemaFromLangChainTools(tools, { results: { BankCheckBalance: z.object({ balance: z.number() }) } }),
 * );
 * const guard = createGuard(specText, schema, { now: new Date() });
 */
export function schemaFromLangChainTools(
  tools: readonly object[],
  options: LangChainToolSchemaOptions = {},
): Result<Schema> {
  const { results = {}, ...loadOptions } = options;
  const listed = tools.map((tool, index) => {
    const record = tool as Record<string, unknown>;
    const name = typeof record.name === 'string' ? record.name : `tools[${index}]`;
    const result = Object.hasOwn(results, name) ? results[name] : undefined;
    return {
      name,
      ...(typeof record.description === 'string' ? { description: record.description } : {}),
      inputSchema: jsonSchemaOf(record.schema, caller, `schema of '${name}'`),
      ...(result !== undefined
        ? { outputSchema: jsonSchemaOf(result, caller, `result schema of '${name}'`) }
        : {}),
    };
  });
  return loadToolSchema({ tools: listed }, loadOptions);
}
