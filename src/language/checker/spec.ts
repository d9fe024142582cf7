import type {
  ArithmeticOperator,
  AtomNode,
  CoercionType,
  ComparisonOperator,
  ConfirmCategory,
  ConstraintNode,
  GuardNode,
  Operator,
  RelativeDate,
  RuleNode,
  SpecNode,
  SubjectFunction,
} from '../ast.js';
import type { NumberValue } from '../decimal.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { TextRegex } from '../regex.js';
import type {
  PredicateDeclaration,
  Schema,
  VariableDeclaration,
  VariableType,
} from '../schema-model.js';
import type { LineIndex, SourceRange } from '../source-range.js';
import type { Literal } from './literal.js';

/**
 * A spec that passed the checker: every name resolved against the schema, every
 * value typed. It is immutable and is what sessions enforce.
 *
 * The syntax nodes (`ast`, and `node` on rules, guards and constraints) are there for the
 * language's own tools (lint, fmt, explain, the checker's messages). The engine reads
 * none of them, and a spec read from a compiled document (compiled-spec-format.ts) has
 * none: a page enforcing it carries no syntax tree.
 */
export interface Spec {
  readonly source: string;
  readonly lines: LineIndex;
  /** Absent in a spec read from a compiled document. */
  readonly ast?: SpecNode;
  readonly schema: Schema;
  readonly rules: readonly CheckedRule[];
  readonly guards: readonly CheckedGuard[];
  /** Each objective with the rules whose head it is, in spec order. */
  readonly objectives: ReadonlyMap<string, readonly CheckedRule[]>;
  /** The rules with head Done. */
  readonly doneRules: readonly CheckedRule[];
  /** Warnings found while checking (a spec with errors is never a `Spec`). */
  readonly warnings: readonly Diagnostic[];
  /**
   * `policy` for the operator's standing rules (LANGUAGE.md §8): no Done rule, its rules
   * are permissions. Absent for an intent.
   */
  readonly role?: 'policy';
  /** `given P(…)` facts of an intent (LANGUAGE.md §8), in spec order; absent when none. */
  readonly givens?: readonly CheckedGiven[];
}

/**
 * `given P(x = v, …)`: what the user stated, for a state the schema marks `"source":
 * "user"`. Each constraint is `variable = constant`.
 */
export interface CheckedGiven {
  readonly predicate: PredicateDeclaration;
  readonly values: readonly { readonly variable: VariableDeclaration; readonly value: Literal }[];
  readonly range: SourceRange;
}

/** A spec checked from its text (`checkSpec`): with its syntax tree. */
export type SpecFromText = Spec & { readonly ast: SpecNode };

export interface CheckedConstraint {
  readonly variable: VariableDeclaration;
  readonly operator: Operator;
  readonly value: Literal;
  /** Absent in a spec read from a compiled document. */
  readonly node?: ConstraintNode | undefined;
  /** Set when the left side is a path, filter or function of the variable (LANGUAGE.md §7). */
  readonly access?: CheckedAccess;
  /** Set when the value is a binding `$x`; `value` is then only a placeholder. */
  readonly binding?: CheckedBinding;
}

/**
 * `$x` in a constraint (LANGUAGE.md §7). The binder (`binds`) takes the constrained value
 * (`each`: every element of a projection in turn); a use compares with it (`each`: some
 * element). `kind` is the binder's value kind (`text`, `number`, `date`, …); absent for
 * json values, whose kind only the run-time data tells.
 */
export interface CheckedBinding {
  readonly name: string;
  readonly binds: boolean;
  readonly each: boolean;
  readonly kind?: string;
  /**
   * A use compared with bound values computed on: `$b * 0.5 + 10`, `$a + $b`,
   * `$departure - 3h` (durations in the bindings' units: days for dates, seconds for
   * times and date-times).
   */
  readonly arithmetic?: CheckedArithmetic;
  /** The value as written (`$b`, `$b * 0.5 + 10`), for feedback. */
  readonly text: string;
}

/** Typed arithmetic (LANGUAGE.md §7): bindings, numbers and durations under `+ - * /`. */
export type CheckedArithmetic =
  | { readonly kind: 'binding'; readonly name: string }
  | { readonly kind: 'number'; readonly value: NumberValue }
  /** In the units of the temporal value it is added to: days for dates, else seconds. */
  | { readonly kind: 'duration'; readonly seconds: number }
  | {
      readonly kind: 'operation';
      readonly operator: ArithmeticOperator;
      readonly left: CheckedArithmetic;
      readonly right: CheckedArithmetic;
    }
  /** `now`, `today` (v3): the session clock, as the type it is compared with. */
  | {
      readonly kind: 'clock';
      readonly word: RelativeDate;
      readonly as: 'date' | 'time' | 'datetime';
    }
  /** `min(a, b)`, `max(a, b)` (v3): the lesser / greater of two values of one type. */
  | {
      readonly kind: 'extremum';
      readonly function: 'min' | 'max';
      readonly left: CheckedArithmetic;
      readonly right: CheckedArithmetic;
    };

/**
 * `$paid - $price <= 600` (v3, LANGUAGE.md §9): a condition on the bindings of a rule or
 * guard, judged in the join as soon as its bindings have values. `kind` is the type both
 * sides compare as (`number`, `date`, `time`, `datetime`, or `text`/`boolean` for `=`
 * and `!=` of two bindings); absent when only run-time data tells (json).
 */
export interface CheckedComparison {
  readonly left: CheckedArithmetic;
  readonly operator: ComparisonOperator;
  readonly right: CheckedArithmetic;
  readonly kind?: string;
  /** As written, canonical (`$paid - $price <= 600`), for feedback and explain. */
  readonly text: string;
  readonly range: SourceRange;
}

/** A checked path step: a field (projection on a list), or a filter on the elements. */
export type CheckedStep =
  | { readonly kind: 'field'; readonly name: string }
  | {
      readonly kind: 'filter';
      readonly constraints: readonly CheckedConstraint[];
      /** Some constraint of the filter binds or uses a binding: it is judged by the join. */
      readonly joins?: true;
    }
  /** `[0]`, `[-1]` (v3): the element at that position; negative counts from the end. */
  | { readonly kind: 'index'; readonly position: number }
  /** `m.*`, `keys(m)` (v3): the values or the keys of a json object used as a map. */
  | { readonly kind: 'values' }
  | { readonly kind: 'keys' };

/**
 * The typed left side of a constraint: the steps from the variable's value, an optional
 * function, and the type its result is compared as. Paths through `json` values are
 * checked at run time: a missing field or a value of another type makes the constraint
 * false in a rule and true in a guard.
 */
export interface CheckedAccess {
  readonly steps: readonly CheckedStep[];
  readonly function?: SubjectFunction;
  /** `count(list matches /re/)`. */
  readonly matches?: TextRegex;
  /** The type the operator compares (for `any`/`each`: the type of one element). */
  readonly compared: VariableType;
  /** The subject as written, canonical (`results[name ~ "W"].id`), for feedback. */
  readonly text: string;
  /**
   * A filter of the path binds or uses bindings (`results[price <= $max]`): the
   * constraint is judged by the rule's join, under each assignment (LANGUAGE.md §7).
   */
  readonly joins?: true;
  /** A bare filtered list (`products[name ~ "x", id = $id]`): some element satisfies the filter. */
  readonly exists?: true;
  /** `as date` and the like: the text (or json) value read as another type. */
  readonly coercion?: CoercionType;
}

export interface CheckedPattern {
  readonly predicate: PredicateDeclaration;
  readonly constraints: readonly CheckedConstraint[];
  /** `absent(arg)` (v2, action patterns only): arguments the action must not give. */
  readonly absent?: readonly VariableDeclaration[];
  readonly range: SourceRange;
}

/** `Name` (count >= 1) or `Name op n` in a body. */
export interface ObjectiveCondition {
  readonly name: string;
  readonly operator: ComparisonOperator;
  readonly count: number;
  /** Written `not Name` (v2): the same as `Name = 0`, said as "not achieved". */
  readonly negated?: boolean;
  readonly range: SourceRange;
}

export interface ConfirmRequirement {
  readonly category?: ConfirmCategory;
  readonly message?: string;
}

export interface CheckedRule {
  /** The label, or `R<n>` by position. */
  readonly id: string;
  /** Position among the rules of the spec. */
  readonly index: number;
  /** Absent in a spec read from a compiled document. */
  readonly node?: RuleNode;
  /** `Done` or an objective name. */
  readonly head: string;
  readonly isDone: boolean;
  readonly confirm?: ConfirmRequirement;
  /**
   * Present when the rule may be performed again; `limit` absent means no limit. With
   * `per` (v2), the budget is per distinct value of that argument of the rule's action:
   * `limit` (default 1) performances for each value.
   */
  readonly repeat?: { readonly limit?: number; readonly per?: VariableDeclaration };
  /**
   * For one alternative of a disjunctive rule (v2): its letter (the id ends with it) and
   * the body it stands for, without disjunctions.
   */
  readonly alternative?: {
    readonly suffix: string;
    /** Absent in a spec read from a compiled document. */
    readonly body?: readonly AtomNode[];
  };
  readonly states: readonly CheckedPattern[];
  /** `not P(...)` atoms (v2): no instance of P may satisfy these patterns. */
  readonly negations?: readonly CheckedPattern[];
  /** The one action pattern of the body, if any. */
  readonly action?: CheckedPattern;
  readonly objectives: readonly ObjectiveCondition[];
  /**
   * `not (A & B)` and `forall(A => B)` (LANGUAGE.md §9): each holds when no assignment
   * satisfies it, judged after every binding of the body is made. Absent when none.
   */
  readonly scopes?: readonly CheckedScope[];
  /** Conditions on the bindings (v3); absent when none. */
  readonly comparisons?: readonly CheckedComparison[];
}

/**
 * A scoped negation (LANGUAGE.md §9): it holds when no assignment of its own bindings —
 * with the rule's bindings as they are — satisfies every state pattern and makes every
 * nested scope hold. `forall(A => B)` is `not (A & not (B))`: a scope over `A` marked
 * `universal`, whose last nested scope is `B` (its conclusion).
 */
export interface CheckedScope {
  readonly states: readonly CheckedPattern[];
  /** Conditions on the bindings it sees (v3), judged in its join; absent when none. */
  readonly comparisons?: readonly CheckedComparison[];
  /** Nested scopes (a v2 `not P(…)` inside a scope is one too); absent when none. */
  readonly scopes?: readonly CheckedScope[];
  /** Written `forall(A => B)`: the last of `scopes` is the conclusion `B`. */
  readonly universal?: true;
  readonly range: SourceRange;
}

/** Every pattern inside a rule's scopes, nested ones too. */
export function scopePatterns(scopes: readonly CheckedScope[] | undefined): CheckedPattern[] {
  const found: CheckedPattern[] = [];
  const visit = (scope: CheckedScope): void => {
    found.push(...scope.states);
    for (const inner of scope.scopes ?? []) visit(inner);
  };
  for (const scope of scopes ?? []) visit(scope);
  return found;
}

/** Every state pattern of a rule's body: its own, its `not P(…)`, and those inside its scopes. */
export function ruleStatePatterns(rule: CheckedRule): CheckedPattern[] {
  return [...rule.states, ...(rule.negations ?? []), ...scopePatterns(rule.scopes)];
}

export interface CheckedGuard {
  readonly index: number;
  /** Absent in a spec read from a compiled document. */
  readonly node?: GuardNode;
  readonly mode: 'reject' | 'confirm';
  readonly pattern: CheckedPattern;
  /** Conditions on the guard's bindings (v3); absent when none. */
  readonly comparisons?: readonly CheckedComparison[];
  readonly reason?: string;
}

/** How often a rule's head may be achieved by this rule: 1 without @repeat. */
/** Whether the intent states `given` facts (LANGUAGE.md §8): what needs their reading part. */
export function statesGivens(spec: Spec): boolean {
  return spec.givens !== undefined && spec.givens.length > 0;
}

export function performanceLimit(rule: CheckedRule): number {
  if (!rule.repeat) return 1;
  // Per value, the budget is unbounded over all values (each value has `limit`).
  if (rule.repeat.per) return Number.POSITIVE_INFINITY;
  return rule.repeat.limit ?? Number.POSITIVE_INFINITY;
}

/** With `@repeat(per: arg)`: how often the rule may be performed for one value of `arg`. */
export function perValueLimit(rule: CheckedRule): number {
  return rule.repeat?.limit ?? 1;
}

/**
 * The built-in state `Answer(text)` (LANGUAGE.md §7): the agent's final answer, holding
 * only while its `finish` is checked, so that a Done rule can constrain what the agent
 * tells the user. A schema that declares its own `Answer` keeps it; otherwise this one
 * is used. Nothing can propose or observe it.
 */
export const answerPredicate: PredicateDeclaration = Object.freeze({
  name: 'Answer',
  kind: 'state',
  description: "The agent's final answer to the user, while its finish is checked.",
  variables: Object.freeze([
    Object.freeze({ name: 'text', type: Object.freeze({ kind: 'text' }) }),
  ]) as readonly VariableDeclaration[],
  keys: Object.freeze([]) as readonly string[],
  critical: false,
  observed: true,
}) as PredicateDeclaration;

/** How the state behind `refused A(…)` is named: no identifier has a space, so no schema can clash. */
export const refusedPrefix = 'refused ';

const refusedPredicates = new WeakMap<PredicateDeclaration, PredicateDeclaration>();

/**
 * The built-in state behind `refused A(…)` (LANGUAGE.md §8): one instance per distinct
 * argument tuple of a proposal of action `A` that the policy refused. Its variables are
 * the action's, so a pattern on it reads like one on the action. Only the session sets
 * it; nothing can propose or observe it.
 */
export function refusedPredicate(action: PredicateDeclaration): PredicateDeclaration {
  let refused = refusedPredicates.get(action);
  if (!refused) {
    refused = Object.freeze({
      name: `${refusedPrefix}${action.name}`,
      kind: 'state',
      description: `Proposals of ${action.name} that the policy refused.`,
      variables: action.variables,
      keys: Object.freeze(action.variables.map((variable) => variable.name)),
      critical: false,
      observed: true,
    }) as PredicateDeclaration;
    refusedPredicates.set(action, refused);
  }
  return refused;
}

/**
 * A predicate name as a spec over `schema` resolves it: the schema's, else a built-in
 * (`Answer`, or `refused A` for an action `A` of the schema).
 */
export function resolvePredicate(schema: Schema, name: string): PredicateDeclaration | undefined {
  const declared = schema.predicates.get(name);
  if (declared) return declared;
  if (name === answerPredicate.name) return answerPredicate;
  if (name.startsWith(refusedPrefix)) {
    const action = schema.predicates.get(name.slice(refusedPrefix.length));
    return action?.kind === 'action' ? refusedPredicate(action) : undefined;
  }
  return undefined;
}
