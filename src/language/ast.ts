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
  | {
      readonly kind: 'regex';
      /** The pattern as written between the slashes (escapes kept). */
      readonly pattern: string;
      readonly flags: string;
      readonly range: SourceRange;
    };

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
    };

export const coercionTypes = ['number', 'date', 'time', 'datetime', 'boolean'] as const;
/** `x as number`: text read as another type (LANGUAGE.md §7). */
export type CoercionType = (typeof coercionTypes)[number];

export const subjectFunctions = ['count', 'len', 'any', 'each'] as const;
export type SubjectFunction = (typeof subjectFunctions)[number];

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

export type AtomNode = PatternAtom | CountAtom;

export const confirmCategories = ['safety', 'security', 'privacy', 'ethics', 'financial'] as const;
export type ConfirmCategory = (typeof confirmCategories)[number];

export type AnnotationNode =
  | {
      readonly kind: 'confirm';
      readonly category?: ConfirmCategory;
      readonly message?: string;
      readonly range: SourceRange;
    }
  | { readonly kind: 'repeat'; readonly limit?: number; readonly range: SourceRange };

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
  readonly reason?: string;
  readonly comments: readonly string[];
  readonly range: SourceRange;
}

export type ItemNode = RuleNode | GuardNode;

export interface SpecNode {
  readonly kind: 'spec';
  readonly items: readonly ItemNode[];
  /** Comments after the last item. */
  readonly trailingComments: readonly string[];
  readonly range: SourceRange;
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
