import type { PredicateDeclaration, Schema, VariableDeclaration } from '../language/index.js';
import { toolPredicate } from '../language/schema-model.js';
import { isRecord } from '../support/is-record.js';

/**
 * A tool's output as an observation of its result predicate (`<Tool>Result`), in the
 * shapes the frameworks return: a JSON object (AI SDK), a string holding JSON or text
 * (OpenAI Agents, LangChain), an MCP `CallToolResult` (its `structuredContent`, else the
 * JSON of its text content). Output that has no fields still records that the result
 * exists, so `TResult()` holds. Undefined when the schema has no result predicate for
 * the tool.
 *
 * `args` are the arguments of the call that produced the output (the guard's own copy of
 * the allowed call, never the agent's later word): the result is keyed by them, so each
 * distinct call keeps its own result (LANGUAGE.md §7). The arguments fill only the
 * result's key variables, and the output only its other fields, so the output cannot
 * re-key itself — also where a result field stands for an argument (it echoes the id
 * it was asked for): that field holds the call's argument, not the output's echo.
 */
export function toolResultObservation(
  schema: Schema,
  toolName: string,
  output: unknown,
  args?: unknown,
): { readonly updates: Record<string, Record<string, unknown>> } | undefined {
  const action = toolPredicate(schema, toolName);
  const resultName = action?.resultPredicate;
  const result = resultName === undefined ? undefined : schema.predicates.get(resultName);
  if (resultName === undefined || result === undefined) return undefined;
  const fields = textOnlyResult(action, result)
    ? contentFields(output)
    : { ...(declaredContent(result, output) ?? resultFields(output)) };
  const argumentFields = new Set(result.keys);
  for (const variable of result.variables) {
    if (!argumentFields.has(variable.name)) continue;
    delete fields[topField(variable)];
    delete fields[variable.name];
  }
  if (isRecord(args)) {
    for (const variable of result.variables) {
      if (!argumentFields.has(variable.name)) continue;
      // A result field that stands for an argument (`get_order → {order_id, …}`) is
      // filled from the call's argument too, and a key under a reserved name
      // (`arg_status`) from the argument it names: keys identify calls (schemas.md).
      const parameter =
        variable.argument === undefined
          ? action?.variables.find(
              (candidate) =>
                candidate.name === variable.name || topField(candidate) === topField(variable),
            )
          : undefined;
      const from =
        variable.argument ?? (parameter === undefined ? topField(variable) : topField(parameter));
      if (Object.hasOwn(args, from)) {
        Object.defineProperty(fields, topField(variable), {
          value: args[from],
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
  }
  return { updates: { [resultName]: fields } };
}

/** The field of a tool's arguments or result a variable reads from. */
function topField(variable: VariableDeclaration): string {
  return variable.sourcePath?.[0] ?? variable.name;
}

/**
 * Whether a tool's result is only its text (`content`, schemas.md "Formats"): an OpenAI
 * function, an MCP tool without `outputSchema`, an adapter's tool without result fields.
 */
function textOnlyResult(
  action: PredicateDeclaration | undefined,
  result: PredicateDeclaration,
): boolean {
  const parameters = new Set(action?.variables.map((variable) => variable.name) ?? []);
  const fields = result.variables.filter((variable) => !parameters.has(variable.name));
  return fields.length === 1 && fields[0]?.name === 'content' && fields[0].type.kind === 'text';
}

/**
 * The output of a text-only tool as its `content`: the text itself (JSON or not, the
 * text is what the tool said), or an MCP `CallToolResult`'s text parts one per line.
 * Any other output is read field by field as usual, so what the schema does not declare
 * is still reported and journaled.
 */
function contentFields(output: unknown): Record<string, unknown> {
  if (typeof output === 'string') return { content: output };
  if (isRecord(output) && Array.isArray(output.content)) {
    const texts = textParts(output.content);
    if (texts.length > 0) return { content: texts.join('\n') };
  }
  return { ...resultFields(output) };
}

/**
 * A text output that is no JSON object, as the `content` a result schema declares with a
 * shape (`"content": {"type": "array", …}`): MCP output schemas are objects, so a tool
 * that answers a JSON array in text (τ-bench's flight searches) is described this way.
 * Text that does not parse leaves `content` unreported: a rule needing it does not
 * fire, and inside `not` it counts as matching (fail closed). Undefined where the
 * result declares no such `content`, or the output is not such text.
 */
function declaredContent(
  result: PredicateDeclaration,
  output: unknown,
): Record<string, unknown> | undefined {
  // The declaration first: most results declare no such content, and their text (a JSON
  // object, often) is then parsed once, by resultFields, not here as well.
  const content = result.variables.find(
    (variable) => variable.name === 'content' && !result.keys.includes(variable.name),
  );
  if (content === undefined || content.jsonText !== true) return undefined;
  const text = outputText(output);
  if (text === undefined || parsedObject(text) !== undefined) return undefined;
  try {
    return { content: JSON.parse(text) as unknown };
  } catch {
    return {};
  }
}

/** The text of a string output, or of an MCP `CallToolResult` with one text part and no structured content. */
function outputText(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (!isRecord(output) || output.isError === true || isRecord(output.structuredContent))
    return undefined;
  if (!Array.isArray(output.content)) return undefined;
  const texts = textParts(output.content);
  return texts.length === 1 ? texts[0] : undefined;
}

/** The texts of an MCP `CallToolResult`'s content parts. */
function textParts(content: readonly unknown[]): string[] {
  return content.flatMap((part: unknown) =>
    isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? [part.text] : [],
  );
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
    const texts = textParts(output.content);
    if (texts.length === 1) return parsedObject(texts[0] ?? '') ?? {};
    if (texts.length > 0 || 'isError' in output) return {};
  }
  return output;
}
