import type { NumberValue } from './decimal.js';
import type { Operator } from './operators.js';
import type { SourceRange } from './source-range.js';

/**
 * The syntax tree of an intent spec. It is canonical: spelling variants (Unicode
 * operators, `==`, tuple constraints, rule numbers) are normalised by the parser, so
 * two texts that mean the same thing parse to trees that differ only in ranges and
 * comments. The printer turns a tree back into canonical ASCII text.
 */

export interface Identifier {
  readonly name: string;
  readonly range: SourceRange;
}

export const comparisonOperators = ['=', '!=', '<', '<=', '>', '>='] as const;
export type ComparisonOperator = (typeof comparisonOperators)[number];

export { type Operator, operatorPolarity, operators } from './operators.js';

export const arithmeticOperators = ['+', '-', '*', '/'] as const;
export type ArithmeticOperator = (typeof arithmeticOperators)[number];

export const relativeDates = ['today', 'tomorrow', 'yesterday', 'now'] as const;
export type RelativeDate = (typeof relativeDates)[number];

export type ValueNode =
  | { readonly kind: 'string'; readonly value: string; readonly range: SourceRange }
  /** Exact: a plain number when a double prints as it, else a {@link Decimal}. */
  | { readonly kind: 'number'; readonly value: NumberValue; readonly range: SourceRange }
  | { readonly kind: 'boolean'; readonly value: boolean; readonly range: SourceRange }
  /** `YYYY-MM-DD` */
  | { readonly kind: 'date'; readonly value: string; readonly range: SourceRange }
  /** `HH:MM` or `HH:MM:SS`, hours zero-padded */
  | { readonly kind: 'time'; readonly value: string; readonly range: SourceRange }
  /** `YYYY-MM-DDTHH:MM` or with seconds */
  | { readonly kind: 'datetime'; readonly value: string; readonly range: SourceRange }
  | { readonly kind: 'relative'; readonly value: RelativeDate; readonly range: SourceRange }
  /** A bare name: an enum member (or, for a text variable, that text). */
  | { readonly kind: 'name'; readonly value: string; readonly range: SourceRange }
  | { readonly kind: 'list'; readonly elements: readonly ValueNode[]; readonly range: SourceRange }
  /** `$x`: a binding (LANGUAGE.md §7); the name is without the `$`. */
  | { readonly kind: 'binding'; readonly name: string; readonly range: SourceRange }
  /** `90s`, `30m`, `3h`, `2d` (LANGUAGE.md §7); only on the right of arithmetic. */
  | { readonly kind: 'duration'; readonly value: string; readonly range: SourceRange }
  /**
   * `$b * 0.5 + 10`, `$a + $b`, `$departure - 3h - 30m`: bound values computed on
   * (LANGUAGE.md §7). The tree is canonical: parentheses are not kept, the printer writes
   * them where precedence (`* /` before `+ -`, left to right) needs them.
   */
  | ArithmeticNode
  /** `max($a, $b)` (v3, LANGUAGE.md §9): computed on bindings, as arithmetic is. */
  | ExtremumNode
  | {
      readonly kind: 'regex';
      /** The pattern as written between the slashes (escapes kept). */
      readonly pattern: string;
      readonly flags: string;
      readonly range: SourceRange;
    };

/**
 * An operand of arithmetic: a binding, a number, a duration, arithmetic itself, and (v3,
 * LANGUAGE.md §9) a clock word (`now - 24h`) or the least / greatest of two terms
 * (`max(0, $bags - 2 * $n)`).
 */
export type ArithmeticOperand =
  | { readonly kind: 'binding'; readonly name: string; readonly range: SourceRange }
  | { readonly kind: 'number'; readonly value: NumberValue; readonly range: SourceRange }
  | { readonly kind: 'duration'; readonly value: string; readonly range: SourceRange }
  | { readonly kind: 'relative'; readonly value: RelativeDate; readonly range: SourceRange }
  | ExtremumNode
  | ArithmeticNode;

/** `min(a, b)`, `max(a, b)` (v3, LANGUAGE.md §9): the lesser / greater of two scalar terms. */
export interface ExtremumNode {
  readonly kind: 'extremum';
  readonly function: 'min' | 'max';
  readonly left: ArithmeticOperand;
  readonly right: ArithmeticOperand;
  readonly range: SourceRange;
}

export interface ArithmeticNode {
  readonly kind: 'arithmetic';
  readonly left: ArithmeticOperand;
  readonly operator: ArithmeticOperator;
  readonly right: ArithmeticOperand;
  readonly range: SourceRange;
}

/** Whether a value computes on a binding (`$a`, `$a * 2`, `(1 + $a)`, `max($a, 0)`). */
export function hasBinding(
  value: ValueNode | ArithmeticOperand,
): value is Extract<ValueNode, { kind: 'binding' | 'arithmetic' | 'extremum' }> {
  if (value.kind === 'binding') return true;
  return (
    (value.kind === 'arithmetic' || value.kind === 'extremum') &&
    (hasBinding(value.left) || hasBinding(value.right))
  );
}

/** Whether a value computes on the session clock (`now - 24h`, `$d <= today + 1d`). */
export function hasClockWord(value: ValueNode | ArithmeticOperand): boolean {
  if (value.kind === 'relative') return true;
  return (
    (value.kind === 'arithmetic' || value.kind === 'extremum') &&
    (hasClockWord(value.left) || hasClockWord(value.right))
  );
}

/** `* /` bind tighter than `+ -`; operators of one level group left to right. */
export function arithmeticPrecedence(operator: ArithmeticOperator): number {
  return operator === '*' || operator === '/' ? 2 : 1;
}

export interface ConstraintNode {
  readonly kind: 'constraint';
  /** The variable constrained; for a path, filter or function, the root variable (or `it`). */
  readonly variable: Identifier;
  /** Set when the left side is more than the variable (LANGUAGE.md §7). */
  readonly subject?: SubjectNode;
  readonly operator: Operator;
  readonly value: ValueNode;
  readonly range: SourceRange;
}

/** `.field` (a path, or a projection on a list) or `[constraints]` (a filter on a list). */
export type PathStep =
  | { readonly kind: 'field'; readonly name: Identifier }
  | {
      readonly kind: 'filter';
      /** Each element is `it`; a constraint's variable names a field of it, or `it` itself. */
      readonly constraints: readonly ConstraintNode[];
      readonly range: SourceRange;
    }
  /** `[0]`, `[-1]` (v3, LANGUAGE.md §9): one element of a list; negative counts from the end. */
  | { readonly kind: 'index'; readonly position: number; readonly range: SourceRange }
  /** `m.*` (v3, LANGUAGE.md §9): the values of a json object used as a map, in key order. */
  | { readonly kind: 'values'; readonly range: SourceRange }
  /** `keys(m)` (v3): the keys of a json object used as a map, in order; written around the path before it. */
  | { readonly kind: 'keys'; readonly range: SourceRange };

export const coercionTypes = ['number', 'date', 'time', 'datetime', 'boolean'] as const;
/** `x as number`: text read as another type (LANGUAGE.md §7). */
export type CoercionType = (typeof coercionTypes)[number];

export const subjectFunctions = ['count', 'len', 'any', 'each', 'sum', 'min', 'max'] as const;
export type SubjectFunction = (typeof subjectFunctions)[number];

/** `sum`, `min`, `max` (v3, LANGUAGE.md §9): a number made of a list of numbers. */
export const aggregateFunctions = ['sum', 'min', 'max'] as const;
export type AggregateFunction = (typeof aggregateFunctions)[number];

/**
 * The left side of a constraint beyond a plain variable: `results[name ~ "W"].id`,
 * `reminder_time as datetime`,
 * `count(doctors[open = true])`, `count(files matches /pdf/)`, `len(body)`, `each(xs)`.
 * The root variable is the constraint's `variable`.
 */
export interface SubjectNode {
  readonly function?: SubjectFunction;
  readonly steps: readonly PathStep[];
  /** `count(list matches /re/)`: the elements counted. */
  readonly matches?: Extract<ValueNode, { kind: 'regex' }>;
  /** `x as number`: the value (text) is read as this type; a failed reading does not fit. */
  readonly as?: CoercionType;
  /**
   * A filtered list written alone as a constraint, `products[name ~ "x", id = $id]`:
   * some element satisfies the filter (LANGUAGE.md §7). It is stored as what it means
   * without bindings, `count(list[…]) >= 1` (`function` is `count`), so that a reader
   * that does not know the flag still reads it rightly; the printer writes the bare form.
   */
  readonly exists?: true;
  readonly range: SourceRange;
}

/**
 * `Name`, `Name()` or `Name(constraints)`. Whether the name is a predicate or an
 * objective is decided by the checker against the schema.
 */
export interface PatternAtom {
  readonly kind: 'pattern';
  readonly name: Identifier;
  /** Whether parentheses were written (`Name()` vs `Name`). */
  readonly parenthesized: boolean;
  readonly constraints: readonly ConstraintNode[];
  /** `not Name(...)` / `not Name` (v2, LANGUAGE.md §7): no instance satisfies it / not achieved. */
  readonly negated?: boolean;
  /** `absent(arg)` items written inside the parentheses (v2; action patterns only). */
  readonly absent?: readonly Identifier[];
  /**
   * `refused A(...)` (LANGUAGE.md §8): holds once a proposal of action `A` matching the
   * constraints was refused by the policy. `name` is the action.
   */
  readonly refused?: true;
  readonly range: SourceRange;
}

/**
 * `(A | B & C)` in a body (v2, LANGUAGE.md §7): one rule per alternative. Each
 * alternative is a conjunction of atoms; `|` is only allowed inside parentheses.
 */
export interface DisjunctionAtom {
  readonly kind: 'disjunction';
  readonly alternatives: readonly (readonly AtomNode[])[];
  readonly range: SourceRange;
}

/** `Name cmp number`: a bound on how many times an objective has been achieved. */
export interface CountAtom {
  readonly kind: 'count';
  readonly name: Identifier;
  readonly operator: ComparisonOperator;
  readonly count: number;
  readonly range: SourceRange;
}

/**
 * `not (A & B & …)` (LANGUAGE.md §9): no assignment satisfies all of the atoms together.
 * Bindings made inside are local to it; bindings the rule makes outside are used. A
 * scope of one plain pattern is written (and parsed as) the v2 `not P(…)`.
 */
export interface ScopedNegationAtom {
  readonly kind: 'scoped-not';
  readonly atoms: readonly AtomNode[];
  readonly range: SourceRange;
}

/**
 * `forall(A => B)` (LANGUAGE.md §9): every assignment that satisfies the condition `A`
 * also satisfies the conclusion `B` — exactly `not (A & not (B))`. The conclusion binds
 * nothing new.
 */
export interface UniversalAtom {
  readonly kind: 'forall';
  readonly condition: readonly AtomNode[];
  readonly conclusion: readonly AtomNode[];
  readonly range: SourceRange;
}

export type AtomNode =
  | PatternAtom
  | CountAtom
  | DisjunctionAtom
  | ComparisonAtom
  | ScopedNegationAtom
  | UniversalAtom;

/**
 * `$paid - $price <= 600`, `$nonfree = max(0, $bags - 2 * $n)` (v3, LANGUAGE.md §9): a
 * condition on the body's bindings. It takes part in the join: a body holds if some
 * assignment satisfies every atom, comparisons included.
 */
export interface ComparisonAtom {
  readonly kind: 'comparison';
  readonly left: ArithmeticOperand;
  readonly operator: ComparisonOperator;
  readonly right: ArithmeticOperand;
  readonly range: SourceRange;
}

export const confirmCategories = ['safety', 'security', 'privacy', 'ethics', 'financial'] as const;
export type ConfirmCategory = (typeof confirmCategories)[number];

export type AnnotationNode =
  | {
      readonly kind: 'confirm';
      readonly category?: ConfirmCategory;
      readonly message?: string;
      readonly range: SourceRange;
    }
  | {
      readonly kind: 'repeat';
      readonly limit?: number;
      /** `@repeat(per: arg)`: once (or `limit` times) per distinct value of the action's argument. */
      readonly per?: Identifier;
      readonly range: SourceRange;
    };

export interface HeadNode {
  /** `Done` for the goal, otherwise an objective name. */
  readonly name: Identifier;
  readonly isDone: boolean;
  readonly range: SourceRange;
}

export interface RuleNode {
  readonly kind: 'rule';
  readonly annotations: readonly AnnotationNode[];
  /** Only an explicitly written label; positions give the rest (see `ruleIds`). */
  readonly label?: Identifier;
  /** Empty for `true -> X` or `-> X`. */
  readonly body: readonly AtomNode[];
  readonly head: HeadNode;
  readonly comments: readonly string[];
  readonly range: SourceRange;
}

export interface GuardNode {
  readonly kind: 'guard';
  readonly mode: 'reject' | 'confirm';
  readonly predicate: Identifier;
  readonly constraints: readonly ConstraintNode[];
  /** `absent(arg)` items (v2). */
  readonly absent?: readonly Identifier[];
  /** `reject P(a = $a, b = $b) & $a - $b > 600` (v3): conditions on the guard's bindings. */
  readonly comparisons?: readonly ComparisonAtom[];
  readonly reason?: string;
  readonly comments: readonly string[];
  readonly range: SourceRange;
}

/**
 * `given P(x = v, …)` (LANGUAGE.md §8): a fact the user stated in the instruction, for a
 * state predicate the schema marks `"source": "user"`. It holds from the start of the
 * session and nothing the agent proposes can change it.
 */
export interface GivenNode {
  readonly kind: 'given';
  readonly predicate: Identifier;
  readonly constraints: readonly ConstraintNode[];
  readonly comments: readonly string[];
  readonly range: SourceRange;
}

export type ItemNode = RuleNode | GuardNode | GivenNode;

export interface SpecNode {
  readonly kind: 'spec';
  readonly items: readonly ItemNode[];
  /** Comments after the last item. */
  readonly trailingComments: readonly string[];
  readonly range: SourceRange;
}

/** Letters that label the alternatives of a disjunctive rule: a…z, then aa, ab, … */
export function alternativeSuffix(index: number): string {
  let suffix = '';
  let rest = index;
  do {
    suffix = String.fromCharCode(97 + (rest % 26)) + suffix;
    rest = Math.floor(rest / 26) - 1;
  } while (rest >= 0);
  return suffix;
}

/**
 * The bodies a rule stands for: one per combination of the alternatives of its
 * disjunctions (LANGUAGE.md §7), each with the suffix its rule id gets (`a`, `b`, …;
 * empty for a rule without disjunction). Nested disjunctions expand too. At most `limit`
 * bodies are produced; `truncated` says whether there were more.
 */
export function expandBody(
  body: readonly AtomNode[],
  limit: number,
): { readonly bodies: readonly (readonly AtomNode[])[]; readonly truncated: boolean } {
  let bodies: AtomNode[][] = [[]];
  let truncated = false;
  for (const atom of body) {
    if (atom.kind !== 'disjunction') {
      for (const partial of bodies) partial.push(atom);
      continue;
    }
    const next: AtomNode[][] = [];
    for (const partial of bodies) {
      for (const alternative of atom.alternatives) {
        const inner = expandBody(alternative, limit);
        if (inner.truncated) truncated = true;
        for (const expanded of inner.bodies) {
          if (next.length >= limit) {
            truncated = true;
            break;
          }
          next.push([...partial, ...expanded]);
        }
      }
    }
    bodies = next;
  }
  return { bodies, truncated };
}

/**
 * The identifier each rule is known by: its label, or `R<n>` for the n-th rule
 * (counting rules only). A positional name that a written label already uses is
 * skipped to the next free `R<n>_<k>`, so identifiers are always unique among
 * unlabelled rules; duplicate written labels are a checker error.
 */
export function ruleIds(spec: SpecNode): string[] {
  const rules = spec.items.filter((item): item is RuleNode => item.kind === 'rule');
  const written = new Set(rules.flatMap((rule) => (rule.label ? [rule.label.name] : [])));
  return rules.map((rule, index) => {
    if (rule.label) return rule.label.name;
    const base = `R${index + 1}`;
    if (!written.has(base)) return base;
    let suffix = 2;
    while (written.has(`${base}_${suffix}`)) suffix++;
    return `${base}_${suffix}`;
  });
}
