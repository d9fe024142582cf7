import {
  createSchema,
  type PredicateDeclaration,
  type Schema,
  type VariableDeclaration,
} from '../language/schema-model.js';
import { checkNameLength } from './fields.js';
import { abbreviate } from './json-input.js';
import { type ConvertedVariable, withoutDuplicates } from './json-schema.js';
import type { SchemaLimits } from './limits.js';
import type { LoadContext } from './load-context.js';
import { isReservedPredicateName, sanitizeName } from './names.js';

/** Options shared by every tool-schema converter. */
export interface ToolSchemaOptions {
  /** The schema's id; defaults to `'tools'`. */
  readonly id?: string;
  /**
   * Decides criticality per tool, given the tool's name as the agent calls it
   * (`TodoistDeleteTask`, `get-weather`); a boolean overrides the format's default,
   * `undefined` keeps it.
   */
  readonly critical?: (toolName: string) => boolean | undefined;
  /** Overrides of `defaultSchemaLimits`. */
  readonly limits?: Partial<SchemaLimits>;
}

/** One tool as a converter read it, before it becomes two predicates. */
export interface ConvertedTool {
  /** The name the agent calls it by, which may not be an identifier. */
  readonly name: string;
  readonly namePath: string;
  readonly description: string;
  readonly parameters: readonly ConvertedVariable[];
  readonly results: readonly ConvertedVariable[];
  /** The format's default criticality, before `ToolSchemaOptions.critical`. */
  readonly critical: boolean;
}

/** The result variable of tools whose output is only text (OpenAI functions, MCP without `outputSchema`). */
export function contentResult(path: string): ConvertedVariable {
  const declaration: VariableDeclaration = {
    name: 'content',
    type: { kind: 'text' },
    description: "The tool's text output.",
  };
  return { declaration, path };
}

/**
 * Turns each tool `T` into an action predicate `T(params…)` and a state predicate
 * `TResult(returns…, params…)` that holds its observed results, one per distinct
 * arguments (LANGUAGE.md §7, FORMATS.md §1), refusing names that collide.
 */
/** The field of a tool's arguments or result a variable reads from. */
function topField(variable: VariableDeclaration): string {
  return variable.sourcePath?.[0] ?? variable.name;
}

/** Whether two variables read a value the same way (type, JSON, record shape). */
function sameType(a: VariableDeclaration, b: VariableDeclaration): boolean {
  const shape = (variable: VariableDeclaration) =>
    JSON.stringify([variable.type, variable.jsonText === true, variable.record ?? null]);
  return shape(a) === shape(b);
}

export class ToolPredicates {
  readonly #predicates = new Map<string, PredicateDeclaration>();
  #toolCount = 0;

  constructor(
    private readonly context: LoadContext,
    private readonly options: ToolSchemaOptions,
  ) {}

  /** Whether another tool may be added; reports once when the limit is reached. */
  hasRoom(path: string): boolean {
    const { maxTools, maxPredicates } = this.context.limits;
    const limit = Math.min(maxTools, Math.floor(maxPredicates / 2));
    if (this.#toolCount < limit) return true;
    this.context.reportOnce('schema-too-large', path, {
      reason: `More than ${limit} tools; the rest were not read.`,
    });
    return false;
  }

  add(tool: ConvertedTool): void {
    this.#toolCount++;
    const name = this.#predicateName(tool);
    if (name === undefined) return;
    const resultName = `${name}Result`;
    for (const taken of [name, resultName]) {
      if (this.#predicates.has(taken)) {
        this.context.reportOnce('schema-duplicate', tool.namePath, { name: taken });
        return;
      }
    }
    const override = this.options.critical?.(tool.name);
    const critical = typeof override === 'boolean' ? override : tool.critical;
    const parameters = this.#declarations(tool.parameters, tool.namePath);
    const results = this.#declarations(tool.results, tool.namePath);
    const { variables, keys } = this.#keyedResult(parameters, results);
    this.#predicates.set(name, {
      name,
      kind: 'action',
      description: tool.description,
      variables: parameters,
      keys: [],
      critical,
      resultPredicate: resultName,
      ...(name === tool.name ? {} : { sourceName: tool.name }),
    });
    this.#predicates.set(resultName, {
      name: resultName,
      kind: 'state',
      description:
        keys.length === 0
          ? `The result of the last ${tool.name} call.`
          : `The result of a ${tool.name} call, one per distinct arguments (${keys.join(', ')}).`,
      variables,
      // Each distinct call keeps its own result: an earlier search still holds after a
      // different one, and a repeated call replaces its own result only.
      keys,
      critical: false,
      resultOf: name,
      // Only the tool reports what it returned: an agent that could propose it would
      // forge the precondition of its next step.
      observed: true,
    });
  }

  /**
   * The result's variables and keys: its fields, then the call's parameters (without
   * `required`: a result may be observed without its call's arguments, which then key it
   * as "not given"). Every parameter keys the result (T1), so a tool that echoes its id
   * keeps one result per call:
   * - a parameter that a result field of the same type already names (`get_order(order_id)
   *   → {order_id, …}`, by name or top-level field) is that field: the field stands for
   *   the argument, and the guard fills it with the call's own argument;
   * - one whose namesake field has another type (`search(status: text) → {status:
   *   number}`) keeps its own variable under a reserved name, `arg_status` (with `_`
   *   added until the name is free), that says which argument it holds (`argument`).
   * Parameters beyond the variable limit are left out.
   */
  #keyedResult(
    parameters: readonly VariableDeclaration[],
    results: readonly VariableDeclaration[],
  ): { variables: VariableDeclaration[]; keys: string[] } {
    const keys: string[] = [];
    const added: VariableDeclaration[] = [];
    const taken = new Set([...results, ...parameters].map((variable) => variable.name));
    const room = Math.max(0, this.context.limits.maxVariables - results.length);
    for (const parameter of parameters) {
      const { required: _required, ...variable } = parameter;
      const field = results.find(
        (result) => result.name === parameter.name || topField(result) === topField(parameter),
      );
      if (field !== undefined && sameType(field, parameter)) {
        if (!keys.includes(field.name)) keys.push(field.name);
        continue;
      }
      if (added.length >= room) continue;
      if (field === undefined) {
        added.push(variable);
        keys.push(variable.name);
        continue;
      }
      let name = `arg_${parameter.name}`;
      while (taken.has(name)) name += '_';
      taken.add(name);
      const { sourcePath: _sourcePath, ...rest } = variable;
      added.push({ ...rest, name, argument: topField(parameter) });
      keys.push(name);
    }
    return { variables: [...results, ...added], keys };
  }

  build(): Schema {
    return createSchema(this.options.id ?? 'tools', this.#predicates.values());
  }

  #predicateName(tool: ConvertedTool): string | undefined {
    const { context } = this;
    if (!checkNameLength(tool.name, 'tool', tool.namePath, context)) return undefined;
    const name = sanitizeName(tool.name);
    if (name === undefined) {
      context.reportOnce('schema-invalid-name', tool.namePath, {
        name: abbreviate(tool.name),
        what: 'tool',
      });
      return undefined;
    }
    if (isReservedPredicateName(name)) {
      context.reportOnce('schema-reserved-name', tool.namePath, {
        reason: `A tool cannot be called '${name}': Done is the head that finishes a task.`,
      });
      return undefined;
    }
    return name;
  }

  #declarations(variables: readonly ConvertedVariable[], path: string): VariableDeclaration[] {
    const { maxVariables } = this.context.limits;
    if (variables.length > maxVariables) {
      this.context.reportOnce('schema-too-large', path, {
        reason: `This tool has ${variables.length} variables after flattening; at most ${maxVariables} are accepted.`,
      });
    }
    const unique = withoutDuplicates(variables.slice(0, maxVariables), this.context);
    return unique.map((variable) => variable.declaration);
  }
}
