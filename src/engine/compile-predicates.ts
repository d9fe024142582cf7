import {
  answerPredicate,
  type PredicateDeclaration,
  refusedPrefix,
  ruleStatePatterns,
  type Spec,
} from '../language/index.js';
import { noRules } from './compile-rules.js';
import type { CompiledPredicate } from './compiled-spec.js';
import { type EngineParts, requirePart } from './engine-parts.js';

/** A spec's predicates, compiled: by name, by a tool's own name, by index, and the built-in `Answer`. */
export interface PredicateTable {
  readonly predicates: ReadonlyMap<string, CompiledPredicate>;
  readonly predicatesBySourceName: ReadonlyMap<string, CompiledPredicate>;
  readonly predicateList: readonly CompiledPredicate[];
  readonly answer: CompiledPredicate | undefined;
  /** The built-in states behind `refused A(…)` (LANGUAGE.md §8), by action name. */
  readonly refused: ReadonlyMap<string, CompiledPredicate>;
}

/** The `refused A(…)` states the rules read, in rule order, each once. */
function refusedStates(spec: Spec): PredicateDeclaration[] {
  const found = new Map<string, PredicateDeclaration>();
  for (const rule of spec.rules)
    for (const pattern of ruleStatePatterns(rule))
      if (pattern.predicate.name.startsWith(refusedPrefix))
        found.set(pattern.predicate.name, pattern.predicate);
  return [...found.values()];
}

/** Whether a rule uses the built-in `Answer` (LANGUAGE.md §7) that the schema does not declare itself. */
function usesAnswer(spec: Spec): boolean {
  return (
    !spec.schema.predicates.has(answerPredicate.name) &&
    spec.rules.some((rule) =>
      ruleStatePatterns(rule).some((pattern) => pattern.predicate === answerPredicate),
    )
  );
}

/**
 * The first step of compiling a spec: each predicate of its schema with its variables by
 * index. The built-in `Answer` is indexed like any state, but it is not in `predicates`:
 * no proposal or observation can name it.
 */
export function compilePredicates(spec: Spec, parts: EngineParts): PredicateTable {
  const predicates = new Map<string, CompiledPredicate>();
  const predicatesBySourceName = new Map<string, CompiledPredicate>();
  const predicateList: CompiledPredicate[] = [];
  const refusedDeclarations = refusedStates(spec);
  // `Answer` keeps the index after the schema's whenever built-ins follow it, so that a
  // policy compiled over the same schema reads the same state by the same indexes.
  const declarations =
    usesAnswer(spec) || refusedDeclarations.length > 0
      ? [...spec.schema.predicates.values(), answerPredicate, ...refusedDeclarations]
      : spec.schema.predicates.values();
  let answer: CompiledPredicate | undefined;
  const refused = new Map<string, CompiledPredicate>();
  for (const declaration of declarations) {
    // Record arguments are read by the record reader (record-values.ts): a schema with
    // records is refused here when it is not given, rather than at a proposal.
    if (declaration.variables.some((variable) => variable.record !== undefined))
      requirePart(parts, 'paths');
    const variableIndex = new Map(
      declaration.variables.map((variable, index) => [variable.name, index]),
    );
    const compiled: CompiledPredicate = {
      index: predicateList.length,
      declaration,
      name: declaration.name,
      variables: declaration.variables,
      variableIndex,
      keyIndexes: declaration.keys.flatMap((key) => {
        const index = variableIndex.get(key);
        return index === undefined ? [] : [index];
      }),
      actionRules: noRules,
      argumentIndex: undefined,
      layout: undefined,
      actionHeads: undefined,
    };
    predicateList.push(compiled);
    if (declaration === answerPredicate) {
      answer = compiled;
      continue;
    }
    if (declaration.name.startsWith(refusedPrefix)) {
      // Keyed by name for the patterns, but not proposable or observable: not in `predicates`.
      refused.set(declaration.name.slice(refusedPrefix.length), compiled);
      continue;
    }
    predicates.set(declaration.name, compiled);
    if (declaration.sourceName !== undefined)
      predicatesBySourceName.set(declaration.sourceName, compiled);
  }
  return { predicates, predicatesBySourceName, predicateList, answer, refused };
}
