import { isPlainRecord } from '../support/is-record.js';
import { checkCompiledSpec, type PathCheck, requireSchema } from './check-compiled-spec.js';
import type { CheckedRule, Spec } from './checker/spec.js';
import {
  answerPredicate,
  CompiledSpecError,
  compiledSpecFormat,
  compiledSpecVersion,
  documentFields,
  documentLimits,
  type RegexCompiler,
  readNumberValue,
  shapes,
} from './compiled-spec-format.js';
import type { PredicateDeclaration, Schema } from './schema-model.js';
import { LineIndex } from './source-range.js';

/**
 * Reads a compiled spec (compiled-spec-format.ts) into the `Spec` the checker produced,
 * without the lexer, parser, checker or diagnostics. The document is untrusted: anything
 * that is not exactly what a writer produces is a `CompiledSpecError` naming where — its
 * shapes and references here, its types by the checker's rules (check-compiled-spec.ts).
 */

export interface ReadCompiledSpecOptions {
  /**
   * The linear-time regex engine (`compileRegex` of regex.ts), for a spec with regexes.
   * Without it, such a spec is refused: a regex constraint is never taken as true.
   */
  readonly regex?: RegexCompiler;
  /**
   * The schema the host vouches for (its own tools or states file). The document's schema
   * must then be this one, predicate for predicate — criticality and what is observed
   * included: a document cannot make a destructive tool harmless, nor let an agent set a
   * fact only the app reports. Without it, the document's schema is taken as given.
   */
  readonly schema?: Schema;
  /**
   * The check of paths, filters, bindings and scopes (`compiledPathChecks` of
   * check-compiled-paths.ts, an engine part: `EngineParts.paths`), for a spec that has them.
   * Without it, such a spec is refused: its types are never taken as checked.
   */
  readonly pathCheck?: PathCheck;
}

export interface Context {
  readonly source: string;
  readonly lines: LineIndex;
  readonly predicates: Map<string, PredicateDeclaration>;
  readonly regex: RegexCompiler | undefined;
  values: number;
}

type Json = unknown;

export function describe(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return 'a string';
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

export function own(value: Record<string, Json>, key: string): Json {
  return Object.hasOwn(value, key) ? value[key] : undefined;
}

export function readField(
  value: Json,
  field: string,
  path: string,
  context: Context,
  depth: number,
): Json {
  if (depth > documentLimits.maxDepth)
    throw new CompiledSpecError(path, `nested deeper than ${documentLimits.maxDepth}`);
  context.values += 1;
  if (context.values > documentLimits.maxValues)
    throw new CompiledSpecError(path, `more than ${documentLimits.maxValues} values`);
  if (field.endsWith('[]')) {
    if (!Array.isArray(value))
      throw new CompiledSpecError(path, `expected a list, found ${describe(value)}`);
    if (value.length > documentLimits.maxListLength)
      throw new CompiledSpecError(
        path,
        `a list of more than ${documentLimits.maxListLength} elements`,
      );
    const element = field.slice(0, -2);
    return Object.freeze(
      value.map((item, index) => readField(item, element, `${path}[${index}]`, context, depth + 1)),
    );
  }
  switch (field) {
    case 'str':
      if (typeof value !== 'string')
        throw new CompiledSpecError(path, `expected a string, found ${describe(value)}`);
      if (value.length > documentLimits.maxStringLength)
        throw new CompiledSpecError(path, `a string longer than ${documentLimits.maxStringLength}`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean')
        throw new CompiledSpecError(path, `expected true or false, found ${describe(value)}`);
      return value;
    case 'int':
      if (!Number.isSafeInteger(value))
        throw new CompiledSpecError(path, `expected a whole number, found ${describe(value)}`);
      return value;
    case 'num': {
      const number = readNumberValue(value);
      if (number === undefined)
        throw new CompiledSpecError(
          path,
          `expected a number or {"$decimal": text}, found ${describe(value)}`,
        );
      return number;
    }
    case 'range':
      return readRange(value, path, context);
    case 'pred':
      return readPredicate(value, path, context);
    case 'var':
      return readVariable(value, path, context, depth);
    case 'regex':
      return readRegex(value, path, context);
    default:
      return readShape(value, field, path, context, depth);
  }
}

function readRange(value: Json, path: string, context: Context): Json {
  const [start, end] = Array.isArray(value) ? value : [];
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !Number.isSafeInteger(start) ||
    !Number.isSafeInteger(end) ||
    (start as number) < 0 ||
    (start as number) > (end as number) ||
    (end as number) > context.source.length
  )
    throw new CompiledSpecError(
      path,
      `expected [start, end] offsets within the source, found ${describe(value)}`,
    );
  return Object.freeze({
    start: context.lines.position(start as number),
    end: context.lines.position(end as number),
  });
}

function findPredicate(name: Json, context: Context): PredicateDeclaration | undefined {
  if (typeof name !== 'string') return undefined;
  return (
    context.predicates.get(name) ?? (name === answerPredicate.name ? answerPredicate : undefined)
  );
}

function readPredicate(value: Json, path: string, context: Context): PredicateDeclaration {
  const predicate = findPredicate(value, context);
  if (predicate === undefined)
    throw new CompiledSpecError(
      path,
      `expected the name of a predicate of the schema, found ${describe(value)}`,
    );
  return predicate;
}

/** `[predicate, index]` for a variable of the schema; an object for one the checker made (a filter's `it`). */
function readVariable(value: Json, path: string, context: Context, depth: number): Json {
  if (!Array.isArray(value)) return readShape(value, 'variable', path, context, depth);
  const predicate = value.length === 2 ? findPredicate(value[0], context) : undefined;
  const index = value[1];
  const variable =
    predicate !== undefined && Number.isSafeInteger(index)
      ? predicate.variables[index as number]
      : undefined;
  if (variable === undefined)
    throw new CompiledSpecError(path, 'expected [predicate, index] of a declared variable');
  return variable;
}

function readRegex(value: Json, path: string, context: Context): Json {
  const [pattern, flags] = Array.isArray(value) ? value : [];
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    typeof pattern !== 'string' ||
    typeof flags !== 'string'
  )
    throw new CompiledSpecError(path, 'expected [pattern, flags]');
  if (context.regex === undefined)
    throw new CompiledSpecError(
      path,
      'the spec has a regex, and no regex engine was given to read it',
    );
  const compiled = context.regex(pattern, flags);
  if (!compiled.ok)
    throw new CompiledSpecError(path, `the regex does not compile: ${compiled.reason}`);
  return compiled.regex;
}

function readShape(value: Json, name: string, path: string, context: Context, depth: number): Json {
  const shape = Object.hasOwn(shapes, name) ? shapes[name] : undefined;
  if (shape === undefined) throw new CompiledSpecError(path, `unknown shape ${name}`);
  if ('oneOf' in shape) {
    if (typeof value !== 'string' || !shape.oneOf.includes(value))
      throw new CompiledSpecError(
        path,
        `expected one of ${shape.oneOf.join(', ')}, found ${describe(value)}`,
      );
    return value;
  }
  if (!isPlainRecord(value))
    throw new CompiledSpecError(path, `expected an object, found ${describe(value)}`);
  if ('fields' in shape) return readObject(value, shape.fields, undefined, path, context, depth);
  const kind = own(value, 'kind');
  if (typeof kind !== 'string' || !Object.hasOwn(shape.kinds, kind))
    throw new CompiledSpecError(
      `${path}.kind`,
      `expected one of ${Object.keys(shape.kinds).join(', ')}, found ${describe(kind)}`,
    );
  return readObject(value, shape.kinds[kind] ?? {}, kind, path, context, depth);
}

function readObject(
  value: Record<string, Json>,
  fields: Readonly<Record<string, string>>,
  kind: string | undefined,
  path: string,
  context: Context,
  depth: number,
): Json {
  for (const key of Object.keys(value)) {
    if (
      !(key === 'kind' && kind !== undefined) &&
      (!Object.hasOwn(fields, key) || fields[key] === '-')
    )
      throw new CompiledSpecError(`${path}`, `unknown field ${JSON.stringify(key)}`);
  }
  const result: Record<string, Json> = {};
  if (kind !== undefined) result.kind = kind;
  for (const [key, field] of Object.entries(fields)) {
    if (field === '-') continue;
    const optional = field.startsWith('?');
    if (!Object.hasOwn(value, key)) {
      if (optional) continue;
      throw new CompiledSpecError(path, `missing field ${JSON.stringify(key)}`);
    }
    result[key] = readField(
      value[key],
      optional ? field.slice(1) : field,
      `${path}.${key}`,
      context,
      depth + 1,
    );
  }
  return Object.freeze(result);
}

export function readSchema(value: Json, context: Context): Schema {
  const schema = readShape(value, 'schemaDocument', '$.schema', context, 1) as {
    id: string;
    predicates: readonly PredicateDeclaration[];
  };
  schema.predicates.forEach((predicate, index) => {
    const at = `$.schema.predicates[${index}]`;
    if (context.predicates.has(predicate.name))
      throw new CompiledSpecError(`${at}.name`, `${predicate.name} is declared twice`);
    const names = new Set(predicate.variables.map((variable) => variable.name));
    if (names.size !== predicate.variables.length)
      throw new CompiledSpecError(`${at}.variables`, 'a variable is declared twice');
    predicate.keys.forEach((key, keyIndex) => {
      if (!names.has(key))
        throw new CompiledSpecError(
          `${at}.keys[${keyIndex}]`,
          `${key} is not a variable of ${predicate.name}`,
        );
    });
    context.predicates.set(predicate.name, predicate);
  });
  return { id: schema.id, predicates: context.predicates };
}

/**
 * Reads a compiled spec; throws `CompiledSpecError` at the first thing that is not one. A
 * composition (a `policy` part, `given` facts: `intentguard compile --policy`) is refused
 * here as unknown fields — never read as the spec alone — and read by
 * `readCompiledComposition` (read-compiled-composition.ts), loaded when needed.
 */
export function readCompiledSpec(document: unknown, options: ReadCompiledSpecOptions = {}): Spec {
  readCompiledHeader(document);
  const source = readField(
    own(document, 'source'),
    'str',
    '$.source',
    {
      values: 0,
    } as Context,
    1,
  ) as string;
  const context: Context = {
    source,
    lines: new LineIndex(source),
    predicates: new Map(),
    regex: options.regex,
    values: 0,
  };
  const schema = readSchema(own(document, 'schema'), context);
  const { rules, guards } = readItems(document, context);
  // The checker's type rules, again: a document with the right shapes may still hold a
  // spec the checker would never have produced (K1).
  checkCompiledSpec(schema, rules, guards, options.pathCheck);
  if (options.schema !== undefined) requireSchema(schema, options.schema);
  return specOf(context, schema, rules, guards);
}

/** A document's `format`, `version` and top-level fields (its `source`, `schema`, `rules`, `guards`). */
export function readCompiledHeader(document: unknown): asserts document is Record<string, Json> {
  if (!isPlainRecord(document))
    throw new CompiledSpecError('$', `expected an object, found ${describe(document)}`);
  if (own(document, 'format') !== compiledSpecFormat)
    throw new CompiledSpecError('$.format', `expected "${compiledSpecFormat}"`);
  if (own(document, 'version') !== compiledSpecVersion)
    throw new CompiledSpecError(
      '$.version',
      `expected ${compiledSpecVersion}, found ${describe(own(document, 'version'))} (compile the spec again with this version of intentguard)`,
    );
  for (const key of Object.keys(document)) {
    if (key !== 'format' && key !== 'version' && !Object.hasOwn(documentFields, key))
      throw new CompiledSpecError('$', `unknown field ${JSON.stringify(key)}`);
  }
}

/**
 * The rules and guards of a spec, their indexes in order (a composition's policy part is
 * read by this too: read-compiled-composition.ts moves the paths under `$.policy`).
 */
export function readItems(
  part: Record<string, Json>,
  context: Context,
): { readonly rules: readonly CheckedRule[]; readonly guards: Spec['guards'] } {
  const rules = readField(
    own(part, 'rules'),
    'rule[]',
    '$.rules',
    context,
    1,
  ) as readonly CheckedRule[];
  const guards = readField(
    own(part, 'guards'),
    'guard[]',
    '$.guards',
    context,
    1,
  ) as Spec['guards'];
  const ids = new Set<string>();
  rules.forEach((rule, index) => {
    const path = `$.rules[${index}]`;
    if (rule.index !== index) throw new CompiledSpecError(`${path}.index`, `expected ${index}`);
    if (ids.has(rule.id)) throw new CompiledSpecError(`${path}.id`, `${rule.id} is used twice`);
    ids.add(rule.id);
    if (rule.isDone !== (rule.head === 'Done'))
      throw new CompiledSpecError(`${path}.isDone`, 'must be true exactly when the head is Done');
    if (rule.action !== undefined && rule.action.predicate.kind !== 'action')
      throw new CompiledSpecError(`${path}.action.predicate`, 'expected an action predicate');
    rule.states.forEach((pattern, patternIndex) => {
      if (pattern.predicate.kind !== 'state')
        throw new CompiledSpecError(
          `${path}.states[${patternIndex}].predicate`,
          'expected a state predicate',
        );
    });
  });
  // A guard's index is its position among the items of the spec, in order; a spec has at
  // most as many items as rules and guards (a rule with alternatives is several rules).
  guards.forEach((guard, index) => {
    const previous = index === 0 ? -1 : (guards[index - 1]?.index ?? -1);
    if (guard.index <= previous || guard.index >= rules.length + guards.length)
      throw new CompiledSpecError(
        `$.guards[${index}].index`,
        'expected the position of an item of the spec, after the previous guard',
      );
  });
  return { rules, guards };
}

/** The spec of what was read, with what the checker derives (checker/check.ts). */
export function specOf(
  context: Context,
  schema: Schema,
  rules: readonly CheckedRule[],
  guards: Spec['guards'],
): Spec {
  const objectives = new Map<string, CheckedRule[]>();
  for (const rule of rules) {
    if (rule.isDone) continue;
    const list = objectives.get(rule.head) ?? [];
    list.push(rule);
    objectives.set(rule.head, list);
  }
  return {
    source: context.source,
    lines: context.lines,
    schema,
    rules,
    guards,
    objectives,
    doneRules: rules.filter((rule) => rule.isDone),
    warnings: [],
  };
}
