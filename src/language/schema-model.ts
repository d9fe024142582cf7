/**
 * What the names in a spec refer to: predicates with typed variables. Loading these
 * from files and tool schemas lives in `schema/`; the model lives here because the
 * type checker needs it and the language layer sits below the schema layer.
 */

export type ScalarTypeKind = 'text' | 'number' | 'boolean' | 'date' | 'time' | 'datetime';

export type VariableType =
  | { readonly kind: ScalarTypeKind }
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  | { readonly kind: 'list'; readonly element: 'text' | 'number' };

export interface VariableDeclaration {
  readonly name: string;
  readonly type: VariableType;
  readonly description?: string;
  /**
   * For tool parameters: whether the tool requires it. A proposal that omits a required
   * argument or gives it as `null` is `invalid-proposal`.
   */
  readonly required?: boolean;
  /**
   * The tool takes any JSON value here (an object without declared properties, an array
   * without declared items, a schema the model approximates as text): objects, arrays
   * and booleans are read as their JSON text. Every other text variable takes a string
   * (or a number, as its decimal text), and a list an array of those.
   */
  readonly jsonText?: boolean;
  /**
   * A fact only the app or a tool reports (availability, a balance): set by observations,
   * never by a proposal's updates. See `isObserved`.
   */
  readonly observed?: boolean;
  /**
   * A persistent setting of a state predicate (a toggle, mute, a selected filter or tab)
   * that the user expects to stay as it is unless the task names it (LANGUAGE.md §9,
   * frame conditions): a proposal that changes it where no rule or guard constrains it
   * is `revise` (soft, `unplanned-change`). See `declaresSettings`.
   */
  readonly setting?: boolean;
  /**
   * Where the value sits in a tool's arguments or result when that differs from
   * `[name]`: nested objects flatten to `a_b`, and names that are not identifiers are
   * rewritten. The engine reads proposal arguments through this path.
   */
  readonly sourcePath?: readonly string[];
  /**
   * The declared shape of a structured value (LANGUAGE.md §7), with `jsonText`: a
   * `text` variable is a `record{...}`, a `list<text>` one a `list<record{...}>`. Paths
   * into it must name its fields, which are typed like variables (a field may be a
   * record again, or `json` where the schema declares no shape). A field whose key is
   * not an identifier has `sourcePath: [key]`.
   */
  readonly record?: RecordShape;
  /**
   * On a key of a tool's result predicate that holds a call's argument under a name of
   * its own (`arg_status`, because a result field of another type is called `status`):
   * the argument's top-level field in the call's arguments. See docs/schemas.md.
   */
  readonly argument?: string;
}

/** The fields of a record type, in the schema's order. */
export interface RecordShape {
  readonly fields: readonly VariableDeclaration[];
  /**
   * The object takes fields it does not declare (a JSON Schema object without
   * `additionalProperties: false`): an argument's undeclared fields are ignored, since no
   * spec can name them — except one whose name folds to a declared field's. Absent: the
   * object is closed and an undeclared field is `invalid-proposal`.
   */
  readonly open?: boolean;
}

export type PredicateKind = 'state' | 'action';

export interface PredicateDeclaration {
  readonly name: string;
  readonly kind: PredicateKind;
  readonly description: string;
  readonly variables: readonly VariableDeclaration[];
  /** Key variables of a multi-instance state predicate; empty for single-instance. */
  readonly keys: readonly string[];
  /** An irreversible or sensitive action (payments, sends, deletes). */
  readonly critical: boolean;
  /** For a tool's action predicate: the state predicate that holds its last result. */
  readonly resultPredicate?: string;
  /** For a tool result predicate: the action predicate whose result it holds. */
  readonly resultOf?: string;
  /** The tool's own name when it is not a valid identifier (`get-weather` → `get_weather`). */
  readonly sourceName?: string;
  /**
   * Every variable is a fact only the app or a tool reports: set by observations, never
   * by a proposal's updates. Tool results are observed whether or not this is set.
   */
  readonly observed?: boolean;
  /**
   * `"user"`: facts the user states in the instruction (LANGUAGE.md §8), set only by an
   * intent's `given` lines; neither a proposal nor an observation can set them.
   */
  readonly source?: 'user';
}

/**
 * The name an agent calls an action by, for every text a model or a person reads: the
 * tool's own name when the schema rewrote it (`get-sum` for the predicate `get_sum`),
 * else the predicate's name. Specs and data (reasons' `predicate`, journals) keep the
 * identifier; a model that follows feedback must name a tool its client has.
 *
 * @example
 * callName({ name: 'get_sum', sourceName: 'get-sum', … }) // 'get-sum'
 */
export function callName(predicate: PredicateDeclaration): string {
  return predicate.sourceName ?? predicate.name;
}

export interface Schema {
  /** A stable name for the schema (file name, toolkit list), used by memory and reports. */
  readonly id: string;
  readonly predicates: ReadonlyMap<string, PredicateDeclaration>;
}

const typeNames: Readonly<Record<VariableType['kind'], string>> = {
  text: 'text',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
  time: 'time',
  datetime: 'datetime',
  enum: 'enum',
  list: 'list',
};

/** The type as the language writes it: `text`, `enum[a, b]`, `list<number>`. */
export function formatType(type: VariableType): string {
  if (type.kind === 'enum') return `enum[${type.values.join(', ')}]`;
  if (type.kind === 'list') return `list<${type.element}>`;
  return typeNames[type.kind];
}

/** Fields printed per record before the rest are summarised (`…`); keeps messages bounded. */
const shownFields = 12;

/**
 * The type of a variable or record field as the language writes it, structure included:
 * `record{city: text, zip: number}`, `list<record{…}>`, `json`, `list<json>`.
 */
export function formatVariableType(variable: VariableDeclaration, depth = 0): string {
  if (variable.jsonText !== true) return formatType(variable.type);
  const list = variable.type.kind === 'list';
  if (variable.record === undefined) return list ? 'list<json>' : 'json';
  const fields = variable.record.fields;
  const inner =
    depth >= 3
      ? '…'
      : [
          ...fields
            .slice(0, shownFields)
            .map((field) => `${field.name}: ${formatVariableType(field, depth + 1)}`),
          ...(fields.length > shownFields ? [`… ${fields.length - shownFields} more`] : []),
        ].join(', ');
  const record = `record{${inner}}`;
  return list ? `list<${record}>` : record;
}

/** The field of a record named `name` (as the spec writes it). */
export function findField(shape: RecordShape, name: string): VariableDeclaration | undefined {
  return shape.fields.find((field) => field.name === name);
}

export function findVariable(
  predicate: PredicateDeclaration,
  name: string,
): VariableDeclaration | undefined {
  return predicate.variables.find((variable) => variable.name === name);
}

/**
 * Whether a proposal may not set this predicate (or, given a variable, this variable):
 * it is marked observed, or it holds a tool's result, which only the tool reports.
 */
export function isObserved(
  predicate: PredicateDeclaration,
  variable?: VariableDeclaration,
): boolean {
  if (predicate.observed === true || predicate.resultOf !== undefined) return true;
  if (predicate.source === 'user') return true;
  return variable?.observed === true;
}

/** Whether a proposal may not set some fact of this predicate: itself or one of its variables. */
export function hasObservedFacts(predicate: PredicateDeclaration): boolean {
  return (
    isObserved(predicate) || predicate.variables.some((variable) => variable.observed === true)
  );
}

/**
 * Whether some state variable of the schema is marked `"setting": true`: a spec over it
 * needs the engine's frame-condition part (engine-parts.ts `frame`).
 */
export function declaresSettings(schema: Schema): boolean {
  for (const predicate of schema.predicates.values())
    if (predicate.kind === 'state' && predicate.variables.some((variable) => variable.setting))
      return true;
  return false;
}

/** Builds a schema from declarations; later declarations of the same name replace earlier ones. */
export function createSchema(id: string, predicates: Iterable<PredicateDeclaration>): Schema {
  const map = new Map<string, PredicateDeclaration>();
  for (const predicate of predicates) map.set(predicate.name, predicate);
  return { id, predicates: map };
}

/**
 * The action predicate of a tool, by the name the agent calls it (`get-weather` too).
 *
 * @example
 * toolPredicate(schema, 'get-weather')?.name; // 'get_weather'
 */
export function toolPredicate(schema: Schema, toolName: string): PredicateDeclaration | undefined {
  const named = schema.predicates.get(toolName);
  if (named?.kind === 'action') return named;
  for (const predicate of schema.predicates.values()) {
    if (predicate.kind === 'action' && predicate.sourceName === toolName) return predicate;
  }
  return undefined;
}
