import { isPlainRecord } from '../support/is-record.js';
import { checkCompiledGivens, checkCompiledPolicy } from './check-compiled-composition.js';
import { checkCompiledSpec, requireSchema } from './check-compiled-spec.js';
import {
  type CheckedGiven,
  type CheckedPattern,
  refusedPredicate,
  refusedPrefix,
  type Spec,
} from './checker/spec.js';
import { CompiledSpecError } from './compiled-spec-format.js';
import {
  type Context,
  describe,
  own,
  type ReadCompiledSpecOptions,
  readCompiledHeader,
  readField,
  readItems,
  readSchema,
  specOf,
} from './read-compiled-spec.js';
import type { PredicateDeclaration, Schema } from './schema-model.js';
import { LineIndex } from './source-range.js';

/**
 * Reads a compiled composition (`intentguard compile --policy`, FORMATS.md): the spec as
 * `readCompiledSpec` reads it, and what only a composition holds — the intent's `given`
 * facts and `refused A(…)` states, and the operator's policy — checked exactly as the
 * spec is (shapes, references, the checker's type rules) plus what makes a policy one.
 * Its own module: a page whose document composes nothing never loads it.
 */

/** A compiled document read: the spec, and the operator's policy when it composes one. */
export interface CompiledComposition {
  readonly intent: Spec;
  /** The policy part (`role: 'policy'`, over the intent's very schema); absent when none. */
  readonly policy?: Spec;
}

/** The fields of `policy` (`CompiledPolicyPart`), read against the document's schema. */
const policyPartFields = { source: 'str', rules: 'rule[]', guards: 'guard[]' } as const;

/** Runs a reader or check of a spec's items on the policy part: its paths are `$.policy…`. */
function underPolicy<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (!(error instanceof CompiledSpecError) || error.path.startsWith('$.policy')) throw error;
    const path = `$.policy${error.path.slice(1)}`;
    throw new CompiledSpecError(path, error.message.slice(`compiled spec: ${error.path}: `.length));
  }
}

/**
 * Reads a compiled document — a spec, or a spec and the operator's policy composed — and
 * throws `CompiledSpecError` at the first thing that is not what a writer produces. The
 * policy part is read over the document's one schema (the session requires it), with
 * ranges into its own `source`.
 *
 * @example
 * const { intent, policy } = readCompiledComposition(document, { schema, regex: compileRegex });
 * const session = createSession(intent, policy ? { policy } : {});
 */
export interface ReadCompiledCompositionOptions extends ReadCompiledSpecOptions {
  /**
   * Refuse a document without a policy part: a host that composes reviewed rules with
   * every task pins that they are there (a document stripped of its `policy` is otherwise
   * a valid spec alone).
   */
  readonly requirePolicy?: boolean;
}

export function readCompiledComposition(
  document: unknown,
  options: ReadCompiledCompositionOptions = {},
): CompiledComposition {
  if (!isPlainRecord(document))
    throw new CompiledSpecError('$', `expected an object, found ${describe(document)}`);
  // The header and the spec's fields as the spec's reader checks them; built from own
  // entries, so `__proto__` stays a field it refuses.
  const header = Object.fromEntries(
    Object.entries(document).filter(([key]) => key !== 'givens' && key !== 'policy'),
  );
  readCompiledHeader(header);
  const source = readField(
    own(document, 'source'),
    'str',
    '$.source',
    { values: 0 } as Context,
    1,
  ) as string;
  const predicates = new Map<string, PredicateDeclaration>();
  const context: Context = {
    source,
    lines: new LineIndex(source),
    predicates,
    regex: options.regex,
    values: 0,
  };
  const schema = readSchema(own(document, 'schema'), context);
  // The intent's items also name `refused A` (LANGUAGE.md §8) for each action `A`: not
  // predicates of the schema, so only their reader knows them.
  const withRefused = new Map(predicates);
  for (const predicate of predicates.values())
    if (predicate.kind === 'action')
      withRefused.set(`${refusedPrefix}${predicate.name}`, refusedPredicate(predicate));
  const intentContext: Context = { ...context, predicates: withRefused };
  const { rules, guards } = readItems(document, intentContext);
  checkCompiledSpec(schema, rules, guards, options.pathCheck);
  let intent = specOf(context, schema, rules, guards);
  if (Object.hasOwn(document, 'givens')) {
    // Each fact as the pattern `P(x = v, …)` it is written as.
    const patterns = readField(
      own(document, 'givens'),
      'pattern[]',
      '$.givens',
      context,
      1,
    ) as readonly CheckedPattern[];
    checkCompiledGivens(patterns, options.pathCheck);
    const givens: CheckedGiven[] = patterns.map((pattern) => ({
      predicate: pattern.predicate,
      values: pattern.constraints.map(({ variable, value }) => ({ variable, value })),
      range: pattern.range,
    }));
    if (givens.length > 0) intent = { ...intent, givens };
  }
  let policy: Spec | undefined;
  if (Object.hasOwn(document, 'policy'))
    policy = readPolicyPart(own(document, 'policy'), context, schema, rules, options);
  else if (options.requirePolicy === true)
    throw new CompiledSpecError('$', 'missing field "policy": this document composes no policy');
  if (options.schema !== undefined) requireSchema(schema, options.schema);
  return { intent, ...(policy !== undefined ? { policy } : {}) };
}

/** The policy part, over the document's schema (no `refused`: the intent's alone). */
function readPolicyPart(
  part: unknown,
  context: Context,
  schema: Schema,
  intentRules: Spec['rules'],
  options: ReadCompiledSpecOptions,
): Spec {
  if (!isPlainRecord(part))
    throw new CompiledSpecError('$.policy', `expected an object, found ${describe(part)}`);
  for (const key of Object.keys(part))
    if (!Object.hasOwn(policyPartFields, key))
      throw new CompiledSpecError('$.policy', `unknown field ${JSON.stringify(key)}`);
  const source = readField(own(part, 'source'), 'str', '$.policy.source', context, 1) as string;
  const policyContext: Context = { ...context, source, lines: new LineIndex(source) };
  // Read and checked as a spec's items are; what is wrong is located under `$.policy`.
  const { rules, guards } = underPolicy(() => readItems(part, policyContext));
  underPolicy(() => checkCompiledPolicy(rules, guards, intentRules, options.pathCheck, schema));
  return { ...specOf(policyContext, schema, rules, guards), role: 'policy' };
}
