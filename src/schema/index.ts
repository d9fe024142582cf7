/**
 * Schemas: what the names in a spec refer to, loaded from states files (VeriSafe
 * style, FORMATS.md §1) or converted from tool schemas (ToolEmu, MCP, OpenAI).
 * Runtime-neutral: no file or network access; callers read files themselves.
 */
export {
  criticalToolVerbs,
  isCriticalByAnnotations,
  isCriticalByName,
  readOnlyToolVerbs,
  splitNameWords,
} from './criticality.js';
export { isMcpTool, schemaFromMcpTools } from './from-mcp.js';
export { isOpenAiTool, schemaFromOpenAiTools } from './from-openai.js';
export { isToolemuToolkit, schemaFromToolemu } from './from-toolemu.js';
export {
  type VariableRole,
  type VariablesFromJsonSchemaOptions,
  variablesFromJsonSchema,
} from './json-schema.js';
export { defaultSchemaLimits, resolveSchemaLimits, type SchemaLimits } from './limits.js';
export { type LoadStateSchemaOptions, loadStateSchema } from './load-states.js';
export {
  detectToolSchemaFormat,
  type LoadToolSchemaOptions,
  loadToolSchema,
  type ToolSchemaFormat,
} from './load-tools.js';
export { mergeSchemas } from './merge-schemas.js';
export { isIdentifier, sanitizeName } from './names.js';
export { withToolNames } from './tool-names.js';
export type { ToolSchemaOptions } from './tool-predicates.js';
