import { answerPredicate, type Spec } from '../language/index.js';
import type { CompiledPredicate } from './compiled-spec.js';
import { type EngineParts, requirePart } from './engine-parts.js';

/** A spec's predicates, compiled: by name, by a tool's own name, by index, and the built-in `Answer`. */
export interface PredicateTable {
  readonly predicates: ReadonlyMap<string, CompiledPredicate>;
  readonly predicatesBySourceName: ReadonlyMap<string, CompiledPredicate>;
  readonly predicateList: readonly CompiledPredicate[];
  readonly answer: CompiledPredicate | undefined;
}

/** Whether a rule uses the built-in `Answer` (LANGUAGE.md §7) that the schema does not declare itself. */
function usesAnswer(spec: Spec): boolean {
  return (
    !spec.schema.predicates.has(answerPredicate.name) &&
    spec.rules.some((rule) =>
      [...rule.states, ...(rule.negations ?? [])].some(
        (pattern) => pattern.predicate === answerPredicate,
      ),
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
  const declarations = usesAnswer(spec)
    ? [...spec.schema.predicates.values(), answerPredicate]
    : spec.schema.predicates.values();
  let answer: CompiledPredicate | undefined;
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
    };
    predicateList.push(compiled);
    if (declaration === answerPredicate) {
      answer = compiled;
      continue;
    }
    predicates.set(declaration.name, compiled);
    if (declaration.sourceName !== undefined)
      predicatesBySourceName.set(declaration.sourceName, compiled);
  }
  return { predicates, predicatesBySourceName, predicateList, answer };
}
