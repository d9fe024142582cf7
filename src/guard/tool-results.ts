import type { Schema } from '../language/index.js';

/**
 * A tool's output as an observation of its result predicate (`<Tool>Result`), in the
 * shapes the frameworks return: a JSON object (AI SDK), a string holding JSON or text
 * (OpenAI Agents, LangChain), an MCP `CallToolResult` (its `structuredContent`, else the
 * JSON of its text content). Output that has no fields still records that the result
 * exists, so `TResult()` holds. Undefined when the schema has no result predicate for
 * the tool.
 */
export function toolResultObservation(
  schema: Schema,
  toolName: string,
  output: unknown,
): { readonly updates: Record<string, Record<string, unknown>> } | undefined {
  const action = schema.predicates.get(toolName);
  const resultName = action?.resultPredicate;
  if (resultName === undefined || !schema.predicates.has(resultName)) return undefined;
  return { updates: { [resultName]: resultFields(output) } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parsedObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function resultFields(output: unknown): Record<string, unknown> {
  if (typeof output === 'string') return parsedObject(output) ?? {};
  if (!isRecord(output)) return {};
  // MCP CallToolResult: structured content when the tool declares an output schema.
  if (isRecord(output.structuredContent)) return output.structuredContent;
  if (Array.isArray(output.content) && ('isError' in output || output.content.length > 0)) {
    const texts = output.content.flatMap((part: unknown) =>
      isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : [],
    );
    if (texts.length === 1) return parsedObject(texts[0] ?? '') ?? {};
    if (texts.length > 0 || 'isError' in output) return {};
  }
  return output;
}
