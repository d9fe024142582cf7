import { answerPredicate, resolvePredicate, type Spec } from './checker/spec.js';
import {
  type CompiledPolicyPart,
  type CompiledSpecDocument,
  CompiledSpecError,
  compiledSpecFormat,
  compiledSpecVersion,
  shapes,
} from './compiled-spec-format.js';
import { Decimal } from './decimal.js';
import type { PredicateDeclaration, VariableDeclaration } from './schema-model.js';
import type { SourceRange } from './source-range.js';

/**
 * Writes a checked spec as a compiled spec (compiled-spec-format.ts): JSON data that
 * `readCompiledSpec` turns back into the same `Spec`, without its syntax nodes. Every
 * value is written by the table of shapes; a field the table does not know is an error,
 * so a spec is never shipped with part of its meaning left out (the syntax nodes are
 * marked in the table as not shipped: the engine does not read them).
 */

interface Context {
  readonly schema: Spec['schema'];
  readonly variables: ReadonlyMap<VariableDeclaration, readonly [string, number]>;
}

function writeField(value: unknown, field: string, path: string, context: Context): unknown {
  if (field.endsWith('[]')) {
    if (!Array.isArray(value)) throw new CompiledSpecError(path, 'expected a list');
    const element = field.slice(0, -2);
    return value.map((item, index) => writeField(item, element, `${path}[${index}]`, context));
  }
  switch (field) {
    case 'str':
    case 'bool':
      if (typeof value !== (field === 'str' ? 'string' : 'boolean'))
        throw new CompiledSpecError(path, `expected a ${field === 'str' ? 'string' : 'boolean'}`);
      return value;
    case 'int':
      if (!Number.isSafeInteger(value))
        throw new CompiledSpecError(path, 'expected a whole number');
      return value;
    case 'num':
      if (value instanceof Decimal) return { $decimal: value.toString() };
      if (typeof value !== 'number' || !Number.isFinite(value))
        throw new CompiledSpecError(path, 'expected a number');
      return value;
    case 'range': {
      const range = value as SourceRange;
      return [range.start.offset, range.end.offset];
    }
    case 'pred': {
      const predicate = value as PredicateDeclaration;
      // The schema's, `Answer` or `refused A` (LANGUAGE.md §8), as the checker resolves names.
      if (resolvePredicate(context.schema, predicate.name) !== predicate)
        throw new CompiledSpecError(path, `${predicate.name} is not a predicate of the schema`);
      return predicate.name;
    }
    case 'var': {
      const reference = context.variables.get(value as VariableDeclaration);
      return reference ? [...reference] : writeShape(value, 'variable', path, context);
    }
    case 'regex': {
      const regex = value as { pattern?: unknown; flags?: unknown };
      if (typeof regex.pattern !== 'string' || typeof regex.flags !== 'string')
        throw new CompiledSpecError(path, 'a regex without its pattern');
      return [regex.pattern, regex.flags];
    }
    default:
      return writeShape(value, field, path, context);
  }
}

function writeShape(value: unknown, name: string, path: string, context: Context): unknown {
  const shape = shapes[name];
  if (shape === undefined) throw new CompiledSpecError(path, `unknown shape ${name}`);
  if ('oneOf' in shape) {
    if (typeof value !== 'string' || !shape.oneOf.includes(value))
      throw new CompiledSpecError(path, `expected one of ${shape.oneOf.join(', ')}`);
    return value;
  }
  if (typeof value !== 'object' || value === null)
    throw new CompiledSpecError(path, 'expected an object');
  const record = value as Record<string, unknown>;
  let fields: Readonly<Record<string, string>>;
  const result: Record<string, unknown> = {};
  if ('fields' in shape) fields = shape.fields;
  else {
    const kind = record.kind;
    const kindFields = typeof kind === 'string' ? shape.kinds[kind] : undefined;
    if (kindFields === undefined)
      throw new CompiledSpecError(
        `${path}.kind`,
        `the compiled format does not know the kind ${String(kind)}`,
      );
    fields = kindFields;
    result.kind = kind;
  }
  for (const [key, item] of Object.entries(record)) {
    if (item === undefined || (key === 'kind' && !('fields' in shape))) continue;
    const field = fields[key];
    if (field === '-') continue;
    if (field === undefined)
      throw new CompiledSpecError(`${path}.${key}`, 'the compiled format does not know this field');
    result[key] = writeField(
      item,
      field.startsWith('?') ? field.slice(1) : field,
      `${path}.${key}`,
      context,
    );
  }
  for (const [key, field] of Object.entries(fields)) {
    if (field !== '-' && !field.startsWith('?') && !(key in result))
      throw new CompiledSpecError(path, `missing field ${key}`);
  }
  return result;
}

/**
 * The compiled spec of a checked spec (`checkSpec`), as JSON data; with `policy` (a
 * `checkPolicy` of the same schema), the composition as one document (LANGUAGE.md §8),
 * which readers enforce whole or refuse.
 *
 * @example
 * const document = writeCompiledSpec(unwrap(checkSpec(intentText, schema)), unwrap(checkPolicy(policyText, schema)));
 */
export function writeCompiledSpec(spec: Spec, policy?: Spec): CompiledSpecDocument {
  if (spec.role === 'policy')
    throw new CompiledSpecError('$', 'a policy is compiled with the intent it composes with');
  if (policy !== undefined && policy.role !== 'policy')
    throw new CompiledSpecError('$.policy', 'expected a checked policy (checkPolicy)');
  if (policy !== undefined && policy.schema !== spec.schema)
    throw new CompiledSpecError('$.policy', "must be checked against the intent's schema");
  const variables = new Map<VariableDeclaration, readonly [string, number]>();
  const predicates = [...spec.schema.predicates.values()];
  const withBuiltIn = spec.schema.predicates.has(answerPredicate.name)
    ? predicates
    : [...predicates, answerPredicate];
  for (const predicate of withBuiltIn)
    predicate.variables.forEach((variable, index) => {
      if (!variables.has(variable)) variables.set(variable, [predicate.name, index]);
    });
  const context: Context = { schema: spec.schema, variables };
  const givens = spec.givens ?? [];
  return {
    format: compiledSpecFormat,
    version: compiledSpecVersion,
    source: spec.source,
    schema: writeField(
      { id: spec.schema.id, predicates },
      'schemaDocument',
      '$.schema',
      context,
    ) as CompiledSpecDocument['schema'],
    rules: writeField(spec.rules, 'rule[]', '$.rules', context) as unknown[],
    guards: writeField(spec.guards, 'guard[]', '$.guards', context) as unknown[],
    ...(givens.length > 0
      ? {
          givens: givens.map((given, index) =>
            writeField(
              {
                predicate: given.predicate,
                constraints: given.values.map(({ variable, value }) => ({
                  variable,
                  operator: '=',
                  value,
                })),
                range: given.range,
              },
              'pattern',
              `$.givens[${index}]`,
              context,
            ),
          ),
        }
      : {}),
    ...(policy !== undefined ? { policy: writePolicyPart(policy, context) } : {}),
  };
}

function writePolicyPart(policy: Spec, context: Context): CompiledPolicyPart {
  return {
    source: policy.source,
    rules: writeField(policy.rules, 'rule[]', '$.policy.rules', context) as unknown[],
    guards: writeField(policy.guards, 'guard[]', '$.policy.guards', context) as unknown[],
  };
}
