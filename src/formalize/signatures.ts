import type {
  PredicateDeclaration,
  Schema,
  Spec,
  VariableDeclaration,
  VariableType,
} from '../language/index.js';
import { invisibleClass } from '../support/printable-text.js';
import { defuseMarkers } from './prompts/context.js';

const invisibleCharacter = new RegExp(`[${invisibleClass}]`, 'gu');

/** Bounds on what one predicate contributes to a prompt. */
export interface SignatureLimits {
  readonly descriptionLength: number;
  readonly variableDescriptionLength: number;
  readonly enumValues: number;
}

export const defaultSignatureLimits: SignatureLimits = Object.freeze({
  descriptionLength: 240,
  variableDescriptionLength: 120,
  enumValues: 30,
});

const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * One line of untrusted schema text: no line breaks, no control characters, bounded,
 * and no prompt markers (a description cannot forge an `<instruction>` block, F1).
 */
export function oneLine(text: string, limit: number): string {
  const flat = defuseMarkers(text).replace(invisibleCharacter, ' ').replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : `${flat.slice(0, Math.max(0, limit - 1)).trimEnd()}…`;
}

/**
 * A type as the prompt shows it. Unlike `formatType`, enum members that are not
 * identifiers are quoted, which is how a spec must write them (`= "New Meeting"`).
 */
export function promptType(
  type: VariableType,
  limits: SignatureLimits = defaultSignatureLimits,
): string {
  if (type.kind === 'enum') {
    const shown = type.values
      .slice(0, limits.enumValues)
      .map((value) => (identifierPattern.test(value) ? value : JSON.stringify(oneLine(value, 60))));
    const more =
      type.values.length > limits.enumValues
        ? `, … ${type.values.length - limits.enumValues} more`
        : '';
    return `enum[${shown.join(', ')}${more}]`;
  }
  if (type.kind === 'list') return `list<${type.element}>`;
  return type.kind;
}

/** Fields shown per record in a prompt; the rest are counted (`… 3 more`). */
const promptFields = 20;

/**
 * A variable's type as the prompt shows it, records with their fields (LANGUAGE.md §7):
 * `record{speed: number, day: date}`, `list<record{…}>`, `json` for parts without a
 * declared shape inside them. The model writing the spec must see the field names.
 */
export function promptVariableType(
  variable: VariableDeclaration,
  limits: SignatureLimits = defaultSignatureLimits,
  depth = 0,
): string {
  const record = variable.record;
  if (record === undefined) {
    // A record's json parts are named so; top-level json keeps its v1 rendering.
    if (depth > 0 && variable.jsonText === true)
      return variable.type.kind === 'list' ? 'list<json>' : 'json';
    return promptType(variable.type, limits);
  }
  const shown = record.fields
    .slice(0, promptFields)
    .map(
      (field) =>
        `${field.name}: ${depth >= 2 ? '…' : promptVariableType(field, limits, depth + 1)}`,
    );
  if (record.fields.length > promptFields)
    shown.push(`… ${record.fields.length - promptFields} more`);
  const text = `record{${shown.join(', ')}}`;
  return variable.type.kind === 'list' ? `list<${text}>` : text;
}

function parameter(
  variable: VariableDeclaration,
  predicate: PredicateDeclaration,
  limits: SignatureLimits,
): string {
  const optional = predicate.kind === 'action' && variable.required === false ? '?' : '';
  const key = predicate.keys.includes(variable.name) ? ' key' : '';
  // Observed facts are reported by the app: the spec tests them, the agent cannot set them.
  const observed = variable.observed === true ? ' observed' : '';
  return `${variable.name}${optional}: ${promptVariableType(variable, limits)}${key}${observed}`;
}

function flags(predicate: PredicateDeclaration): string {
  const parts: string[] = [];
  if (predicate.critical) parts.push('critical');
  if (predicate.resultOf !== undefined) {
    // A result is keyed by its call's arguments (LANGUAGE.md §7); the signature lists
    // only its own fields, the arguments being those of the action shown with it.
    parts.push(
      predicate.keys.length > 0
        ? `results of ${predicate.resultOf}, one per call; its arguments are variables too`
        : `last result of ${predicate.resultOf}`,
    );
  } else if (predicate.keys.length > 0) parts.push(`one instance per ${predicate.keys.join(', ')}`);
  // A tool's result is observed by definition; saying so again would only cost tokens.
  if (predicate.resultOf === undefined && predicate.observed === true) parts.push('observed');
  return parts.length > 0 ? `  [${parts.join('; ')}]` : '';
}

/**
 * A predicate as a signature with its description and its variables' descriptions:
 *
 * ```
 * action TodoistDeleteTask(task_id: text)  [critical]
 *   # Deletes a task.
 *   # task_id: The id of the task.
 * ```
 */
export function renderSignature(
  predicate: PredicateDeclaration,
  limits: SignatureLimits = defaultSignatureLimits,
): string {
  // A result's argument variables repeat its action's parameters: not shown twice.
  const shown =
    predicate.resultOf === undefined
      ? predicate.variables
      : predicate.variables.filter((variable) => !predicate.keys.includes(variable.name));
  const parameters = shown.map((variable) => parameter(variable, predicate, limits)).join(', ');
  const lines = [`${predicate.kind} ${predicate.name}(${parameters})${flags(predicate)}`];
  const description = oneLine(predicate.description, limits.descriptionLength);
  if (description !== '' && predicate.resultOf === undefined) lines.push(`  # ${description}`);
  for (const variable of shown) {
    if (variable.description === undefined) continue;
    const text = oneLine(variable.description, limits.variableDescriptionLength);
    if (text !== '') lines.push(`  # ${variable.name}: ${text}`);
  }
  return lines.join('\n');
}

/**
 * Signatures of the given predicates, in the order given, each tool's result
 * predicate right after its action.
 */
export function renderSignatures(
  schema: Schema,
  names: readonly string[],
  limits: SignatureLimits = defaultSignatureLimits,
): string {
  const seen = new Set<string>();
  const blocks: string[] = [];
  const add = (name: string) => {
    if (seen.has(name)) return;
    const predicate = schema.predicates.get(name);
    if (!predicate) return;
    seen.add(name);
    blocks.push(renderSignature(predicate, limits));
  };
  for (const name of names) {
    const predicate = schema.predicates.get(name);
    if (!predicate) continue;
    // A result goes with its action: show the action first when it is selected too.
    if (predicate.resultOf !== undefined && names.includes(predicate.resultOf))
      add(predicate.resultOf);
    add(name);
    if (predicate.resultPredicate !== undefined && names.includes(predicate.resultPredicate))
      add(predicate.resultPredicate);
  }
  return blocks.join('\n');
}

/** Whether the schema was made from tool schemas (ToolEmu, MCP, OpenAI) rather than app states. */
export function isToolSchema(schema: Schema): boolean {
  for (const predicate of schema.predicates.values()) {
    if (predicate.resultPredicate !== undefined || predicate.resultOf !== undefined) return true;
  }
  return false;
}

/** Predicate names a spec uses, in its rules and guards. */
export function predicatesOf(spec: Spec): string[] {
  const names = new Set<string>();
  for (const rule of spec.rules) {
    for (const pattern of rule.states) names.add(pattern.predicate.name);
    if (rule.action) names.add(rule.action.predicate.name);
  }
  for (const guard of spec.guards) names.add(guard.pattern.predicate.name);
  return [...names];
}
