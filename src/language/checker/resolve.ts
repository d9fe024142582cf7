import {
  type AtomNode,
  type ConstraintNode,
  hasBinding,
  type Identifier,
  type PatternAtom,
  type RuleNode,
} from '../ast.js';
import type { DiagnosticBag } from '../diagnostics/diagnostic.js';
import { printConstraint } from '../printer.js';
import type { PredicateDeclaration, Schema, VariableDeclaration } from '../schema-model.js';
import { findVariable, formatType } from '../schema-model.js';
import type { SourceRange } from '../source-range.js';
import { didYouMean } from '../suggest.js';
import { resolveAccess } from './access.js';
import { allowedOperators, type TypingProblem, typeConstraintValue } from './literal.js';
import { satisfiable } from './satisfiability.js';
import {
  type CheckedConstraint,
  type CheckedPattern,
  type ConfirmRequirement,
  type ObjectiveCondition,
  refusedPredicate,
  resolvePredicate,
} from './spec.js';

/** What the checker knows while resolving names: the schema and the objectives (rule heads). */
export interface NameScope {
  readonly schema: Schema;
  readonly objectives: ReadonlySet<string>;
  readonly diagnostics: DiagnosticBag;
  /** The bindings of the rule or guard being checked, by name (LANGUAGE.md §7). */
  readonly bindings?: Map<string, BindingInfo>;
  /** Inside `not P(...)`, which never binds. */
  readonly negated?: boolean;
  /** The file being checked: an intent (default) or a policy (LANGUAGE.md §8). */
  readonly role?: 'intent' | 'policy';
  /** The objectives of the other file of a composition: naming one is `foreign-objective`. */
  readonly foreign?: ReadonlySet<string>;
}

/** `foreign-objective` when the name is the other file's objective; whether it was. */
function reportForeign(name: string, atom: AtomNode, scope: NameScope): boolean {
  if (!scope.foreign?.has(name) || (atom.kind !== 'pattern' && atom.kind !== 'count')) return false;
  scope.diagnostics.report(
    'foreign-objective',
    { range: atom.name.range },
    { name, owner: scope.role === 'policy' ? 'intent' : 'policy' },
  );
  return true;
}

/**
 * `refused A(…)` (LANGUAGE.md §8): a pattern on the built-in state of A's proposals the
 * policy refused, with A's variables. Only an intent may say it, and only of an action.
 */
function resolveRefused(atom: PatternAtom, scope: NameScope): ResolvedAtom {
  const name = atom.name.name;
  if (scope.role === 'policy') {
    scope.diagnostics.report('refused-in-policy', { range: atom.range }, { name });
    return { kind: 'invalid' };
  }
  const action = scope.schema.predicates.get(name);
  if (action?.kind !== 'action') {
    const actions = [...scope.schema.predicates.values()]
      .filter((predicate) => predicate.kind === 'action')
      .map((predicate) => predicate.name);
    scope.diagnostics.report(
      'refused-not-action',
      { range: atom.name.range },
      {
        name,
        what: action ? 'a state predicate' : 'not declared',
        hint: unknownNameHint(name, actions, actions),
      },
    );
    return { kind: 'invalid' };
  }
  for (const node of atom.absent ?? []) {
    scope.diagnostics.report(
      'absent-outside-action',
      { range: node.range },
      { name: node.name, predicate: `refused ${name}` },
    );
  }
  const patternScope = atom.negated ? { ...scope, negated: true } : scope;
  const pattern = resolvePattern(action, atom.constraints, atom.range, patternScope);
  const refused = { ...pattern, predicate: refusedPredicate(action) };
  return { kind: atom.negated ? 'negation' : 'pattern', pattern: refused };
}

/** What the checker knows of a bound `$x`: its value kind (absent: json) and its binder. */
export interface BindingInfo {
  readonly kind: string | undefined;
  readonly text: string;
  readonly range: SourceRange;
  /** Bound to json values (`kind` is then absent), and the subject as its binder wrote it. */
  readonly json?: { readonly subject: string };
}

export function unknownNameHint(
  name: string,
  candidates: Iterable<string>,
  all: readonly string[],
): string {
  const suggestion = didYouMean(name, candidates);
  if (suggestion) return suggestion;
  // Small schemas are listed in full: that is what an LLM repairing the spec needs.
  return all.length > 0 && all.length <= 12 ? `Known names: ${all.join(', ')}.` : '';
}

/**
 * Version 1 flattened nested objects to `a_b` variables; they are records now (LANGUAGE.md
 * §7). A name that spells a record path that way is pointed to the path (`a.b`).
 */
function flattenedPathHint(predicate: PredicateDeclaration, name: string): string {
  const search = (prefix: string, path: string, fields: readonly VariableDeclaration[]): string => {
    for (const field of fields) {
      const flat = `${prefix}_${field.name}`;
      const dotted = `${path}.${field.name}`;
      if (flat === name) return dotted;
      if (field.record !== undefined && name.startsWith(`${flat}_`)) {
        const found = search(flat, dotted, field.record.fields);
        if (found !== '') return found;
      }
    }
    return '';
  };
  for (const variable of predicate.variables) {
    if (variable.record === undefined || !name.startsWith(`${variable.name}_`)) continue;
    const path = search(variable.name, variable.name, variable.record.fields);
    if (path !== '')
      return `Did you mean '${path}'? Nested objects are records: write the path to the field.`;
  }
  return '';
}

/**
 * The hint for a field asked of a tool's result that holds only the tool's text: the
 * tool declares no output schema, whichever format the schema came from (MCP without
 * `outputSchema`, OpenAI functions, an AI SDK or OpenAI Agents tool without one), and
 * the spec author can fix that at the tool, not in the spec.
 */
function textOnlyResultHint(predicate: PredicateDeclaration, schema: Schema): string {
  if (predicate.resultOf === undefined) return '';
  const action = schema.predicates.get(predicate.resultOf);
  const parameters = new Set(action?.variables.map((variable) => variable.name) ?? []);
  const results = predicate.variables.filter((variable) => !parameters.has(variable.name));
  if (results.length !== 1 || results[0]?.name !== 'content' || results[0].type.kind !== 'text')
    return '';
  const tool = action?.sourceName ?? predicate.resultOf;
  return `${tool} declares no outputSchema; add one to read result fields (its result is only its text, 'content').`;
}

/** Types one constraint of a pattern; undefined when it cannot be typed (reported). */
export function resolveConstraint(
  predicate: PredicateDeclaration,
  node: ConstraintNode,
  scope: NameScope,
): CheckedConstraint | undefined {
  const variable = findVariable(predicate, node.variable.name);
  if (!variable) {
    const names = predicate.variables.map((candidate) => candidate.name);
    scope.diagnostics.report(
      'unknown-variable',
      { range: node.variable.range },
      {
        predicate: predicate.name,
        name: node.variable.name,
        hint:
          flattenedPathHint(predicate, node.variable.name) ||
          didYouMean(node.variable.name, names) ||
          textOnlyResultHint(predicate, scope.schema) ||
          (names.length > 0
            ? `Its variables are: ${names.join(', ')}.`
            : `'${predicate.name}' has no variables; write ${predicate.name}().`),
      },
    );
    return undefined;
  }
  if (node.subject !== undefined || hasBinding(node.value))
    return resolveAccess(variable, node, scope);
  const allowed = allowedOperators(variable.type);
  if (!allowed.includes(node.operator)) {
    scope.diagnostics.report(
      'operator-not-allowed',
      { range: node.range },
      {
        operator: node.operator,
        variable: variable.name,
        type: formatType(variable.type),
        allowed: allowed.join(' '),
      },
    );
    return undefined;
  }
  const problems: TypingProblem[] = [];
  const value = typeConstraintValue(variable, node.operator, node.value, problems);
  for (const problem of problems) {
    scope.diagnostics.report(problem.code, { range: problem.node.range }, problem.data);
  }
  return value === undefined ? undefined : { variable, operator: node.operator, value, node };
}

/** Reports constraints on one variable that no single value can satisfy together. */
export function reportContradictions(pattern: CheckedPattern, scope: NameScope): boolean {
  const byVariable = new Map<string, CheckedConstraint[]>();
  for (const constraint of pattern.constraints) {
    // Paths, filters, functions and bindings are not reasoned about: never a contradiction.
    if (constraint.access !== undefined || constraint.binding !== undefined) continue;
    const list = byVariable.get(constraint.variable.name) ?? [];
    list.push(constraint);
    byVariable.set(constraint.variable.name, list);
  }
  let contradictory = false;
  for (const constraints of byVariable.values()) {
    const first = constraints[0];
    if (!first || constraints.length < 1) continue;
    if (satisfiable(constraints, first.variable.type)) continue;
    contradictory = true;
    const last = constraints[constraints.length - 1] ?? first;
    scope.diagnostics.report(
      'contradictory-constraints',
      // Constraints checked from text have their syntax nodes.
      { range: { start: first.node!.range.start, end: last.node!.range.end } },
      {
        variable: first.variable.name,
        predicate: pattern.predicate.name,
        constraints: constraints.map((constraint) => printConstraint(constraint.node!)).join(', '),
      },
    );
  }
  return contradictory;
}

export function resolvePattern(
  predicate: PredicateDeclaration,
  constraints: readonly ConstraintNode[],
  range: CheckedPattern['range'],
  scope: NameScope,
  absentNodes: readonly Identifier[] = [],
): CheckedPattern {
  const checked: CheckedConstraint[] = [];
  for (const node of constraints) {
    const constraint = resolveConstraint(predicate, node, scope);
    if (constraint) checked.push(constraint);
  }
  const absent: VariableDeclaration[] = [];
  for (const node of absentNodes) {
    if (predicate.kind !== 'action') {
      scope.diagnostics.report(
        'absent-outside-action',
        { range: node.range },
        { name: node.name, predicate: predicate.name },
      );
      continue;
    }
    const variable = findVariable(predicate, node.name);
    if (!variable) {
      const names = predicate.variables.map((candidate) => candidate.name);
      scope.diagnostics.report(
        'unknown-variable',
        { range: node.range },
        {
          predicate: predicate.name,
          name: node.name,
          hint: didYouMean(node.name, names) || `Its variables are: ${names.join(', ')}.`,
        },
      );
      continue;
    }
    absent.push(variable);
  }
  return absent.length > 0
    ? { predicate, constraints: checked, absent, range }
    : { predicate, constraints: checked, range };
}

export type ResolvedAtom =
  | { readonly kind: 'pattern'; readonly pattern: CheckedPattern }
  /** `not P(...)` on a state predicate (v2). */
  | { readonly kind: 'negation'; readonly pattern: CheckedPattern }
  | { readonly kind: 'objective'; readonly condition: ObjectiveCondition }
  | { readonly kind: 'invalid' };

/**
 * Decides what a body atom refers to (LANGUAGE.md §3): a declared predicate, an
 * objective (a rule head), or nothing — then it is an error with a suggestion.
 */
export function resolveAtom(atom: AtomNode, scope: NameScope): ResolvedAtom {
  // Disjunctions are expanded into one rule per alternative before atoms are resolved.
  // Comparisons are typed once the body's bindings are known (checker/comparisons.ts).
  if (atom.kind === 'disjunction' || atom.kind === 'comparison') return { kind: 'invalid' };
  // Scopes (LANGUAGE.md §9) are resolved after the body's bindings: universal.ts.
  if (atom.kind === 'scoped-not' || atom.kind === 'forall') return { kind: 'invalid' };
  if (atom.kind === 'pattern' && atom.refused) return resolveRefused(atom, scope);
  const name = atom.name.name;
  const predicate = resolvePredicate(scope.schema, name);
  // Name lists are built only when a name is wrong: building them per atom is quadratic.
  const predicateNames = () => [...scope.schema.predicates.keys()];
  const objectiveNames = () => [...scope.objectives];
  if (atom.kind === 'count') {
    if (predicate) {
      scope.diagnostics.report(
        'count-on-predicate',
        { range: atom.range },
        {
          name,
          operator: atom.operator,
          count: atom.count,
        },
      );
      return { kind: 'invalid' };
    }
    if (!scope.objectives.has(name)) {
      if (reportForeign(name, atom, scope)) return { kind: 'invalid' };
      scope.diagnostics.report(
        'unknown-objective',
        { range: atom.name.range },
        {
          name,
          hint: unknownNameHint(name, objectiveNames(), objectiveNames()),
        },
      );
      return { kind: 'invalid' };
    }
    return {
      kind: 'objective',
      condition: { name, operator: atom.operator, count: atom.count, range: atom.range },
    };
  }
  const absent = atom.absent ?? [];
  if (predicate) {
    if (atom.negated && predicate.kind === 'action') {
      scope.diagnostics.report('negated-action', { range: atom.range }, { name });
      return { kind: 'invalid' };
    }
    // `not P(...)` never binds: its bindings must be bound by an atom before it.
    const patternScope = atom.negated ? { ...scope, negated: true } : scope;
    const pattern = resolvePattern(predicate, atom.constraints, atom.range, patternScope, absent);
    return { kind: atom.negated ? 'negation' : 'pattern', pattern };
  }
  if (scope.objectives.has(name)) {
    if (atom.constraints.length > 0 || absent.length > 0) {
      scope.diagnostics.report(
        'objective-with-constraints',
        { range: atom.range },
        {
          name,
          hint: didYouMean(name, predicateNames())
            ? `${didYouMean(name, predicateNames())} (a predicate of the schema)`
            : `Write ${name} alone, or constrain a predicate of the schema.`,
        },
      );
      return { kind: 'invalid' };
    }
    // `not Obj` (v2): not achieved, i.e. achieved = 0 times.
    return {
      kind: 'objective',
      condition: atom.negated
        ? { name, operator: '=', count: 0, negated: true, range: atom.range }
        : { name, operator: '>=', count: 1, range: atom.range },
    };
  }
  if (atom.constraints.length > 0 || absent.length > 0) {
    scope.diagnostics.report(
      'unknown-predicate',
      { range: atom.name.range },
      {
        name,
        hint: unknownNameHint(name, predicateNames(), predicateNames()),
      },
    );
  } else if (!reportForeign(name, atom, scope)) {
    scope.diagnostics.report(
      'unknown-objective',
      { range: atom.name.range },
      {
        name,
        hint: unknownNameHint(
          name,
          [...objectiveNames(), ...predicateNames()],
          [...objectiveNames(), ...predicateNames()],
        ),
      },
    );
  }
  return { kind: 'invalid' };
}

/** The annotation-derived parts of a checked rule. */
export function ruleAnnotations(
  rule: RuleNode,
  scope: NameScope,
  action?: CheckedPattern,
): { confirm?: ConfirmRequirement; repeat?: { limit?: number; per?: VariableDeclaration } } {
  const result: {
    confirm?: ConfirmRequirement;
    repeat?: { limit?: number; per?: VariableDeclaration };
  } = {};
  for (const annotation of rule.annotations) {
    if (rule.head.isDone) {
      scope.diagnostics.report(
        'annotation-ignored',
        { range: annotation.range },
        { name: annotation.kind },
      );
      continue;
    }
    if (annotation.kind === 'confirm') {
      result.confirm = {
        ...(annotation.category ? { category: annotation.category } : {}),
        ...(annotation.message !== undefined ? { message: annotation.message } : {}),
      };
    } else {
      const limit = annotation.limit === undefined ? {} : { limit: annotation.limit };
      const per = annotation.per;
      if (per === undefined) {
        result.repeat = limit;
        continue;
      }
      const variable = action ? findVariable(action.predicate, per.name) : undefined;
      if (!action || !variable) {
        const names = action?.predicate.variables.map((candidate) => candidate.name) ?? [];
        scope.diagnostics.report(
          'repeat-per-without-action',
          { range: per.range },
          {
            name: per.name,
            hint: action
              ? didYouMean(per.name, names) ||
                `The arguments of ${action.predicate.name} are: ${names.join(', ')}.`
              : 'Add the action whose argument it is to the body, or write @repeat(n).',
          },
        );
        continue;
      }
      result.repeat = { ...limit, per: variable };
    }
  }
  return result;
}
