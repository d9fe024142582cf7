import fc from 'fast-check';
import {
  type AnnotationNode,
  type ArithmeticOperand,
  type AtomNode,
  arithmeticOperators,
  type ComparisonAtom,
  type ComparisonOperator,
  type ConstraintNode,
  coercionTypes,
  comparisonOperators,
  confirmCategories,
  type GivenNode,
  type GuardNode,
  type HeadNode,
  type Identifier,
  type ItemNode,
  type Operator,
  operators,
  type PathStep,
  type RuleNode,
  relativeDates,
  type SpecNode,
  type SubjectNode,
  subjectFunctions,
  type ValueNode,
} from '../../src/language/ast.js';
import { type NumberValue, readNumber } from '../../src/language/decimal.js';
import { LineIndex } from '../../src/language/source-range.js';

/**
 * Generators of valid syntax trees for property tests. Every tree they produce prints
 * to text that parses back to the same tree (ranges aside), so the trees respect what
 * the parser cannot represent: no keyword as a name, regexes only after `matches`,
 * lists no deeper than the nesting limit, comments on one line.
 */

/** A range for generated nodes; property tests compare trees without ranges. */
export const nowhere = new LineIndex('').range(0, 0);

/** LANGUAGE.md §2 keywords, plus `and` (a body separator) — never names. */
export const keywords = new Set([
  'done',
  'true',
  'false',
  'today',
  'tomorrow',
  'yesterday',
  'now',
  'in',
  'not',
  'contains',
  'matches',
  'reject',
  'confirm',
  'because',
  'and',
  'refused',
  'given',
  'forall',
]);

export const nameArbitrary: fc.Arbitrary<string> = fc
  .stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/)
  .filter((name) => !keywords.has(name.toLowerCase()));

const identifierArbitrary: fc.Arbitrary<Identifier> = nameArbitrary.map((name) => ({
  name,
  range: nowhere,
}));

/** Text with the characters the printer must escape, the quotes it must not, and any code point. */
export const textArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({
    unit: fc.constantFrom(
      '"',
      "'",
      '\\',
      '\n',
      '\t',
      '\r',
      '\u0000',
      '\u007f',
      '\u2028',
      '“',
      '”',
      '‘',
      '’',
      '#',
      '//',
      '<spec>',
      '```',
      '😀',
      '\ud800',
      '\udfff',
      'a',
      ' ',
      '->',
    ),
    maxLength: 12,
  }),
);

/** Decimals no double prints as (19-digit ids, `500.00000000000000001`): exact `Decimal`s. */
const exactDecimalArbitrary: fc.Arbitrary<NumberValue> = fc
  .tuple(
    fc.boolean(),
    fc.bigInt({ min: 10n ** 17n, max: 10n ** 40n }),
    fc.integer({ min: -60, max: 60 }),
  )
  .map(([negative, digits, exponent]) => {
    const reading = readNumber(`${negative ? '-' : ''}${digits}e${exponent}`);
    return reading.ok ? reading.value : 0;
  });

const numberArbitrary: fc.Arbitrary<NumberValue> = fc
  .oneof(
    fc.integer({ min: -1_000_000, max: 1_000_000 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    exactDecimalArbitrary,
  )
  .filter((value) => !Object.is(value, -0));

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

export const dateArbitrary: fc.Arbitrary<string> = fc
  .record({
    year: fc.integer({ min: 0, max: 9999 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 31 }),
  })
  .map(
    ({ year, month, day }) =>
      `${pad(year, 4)}-${pad(month)}-${pad(Math.min(day, daysIn(year, month)))}`,
  );

export const timeArbitrary: fc.Arbitrary<string> = fc
  .record({
    hours: fc.integer({ min: 0, max: 23 }),
    minutes: fc.integer({ min: 0, max: 59 }),
    seconds: fc.option(fc.integer({ min: 0, max: 59 }), { nil: undefined }),
  })
  .map(
    ({ hours, minutes, seconds }) =>
      `${pad(hours)}:${pad(minutes)}${seconds === undefined ? '' : `:${pad(seconds)}`}`,
  );

/** Patterns that are valid regexes and contain no line break (a regex ends at the line). */
export const regexArbitrary: fc.Arbitrary<ValueNode> = fc
  .record({
    pattern: fc.constantFrom(
      '',
      'a',
      '^Test',
      '\\d+$',
      'a\\/b',
      '[/]',
      '[a-z]+@example\\.com',
      '(?:x|y)*',
      '\\s',
      'caf\\u00e9',
      '#\\/\\/',
    ),
    flags: fc.constantFrom('', 'i', 'm', 's', 'u', 'is', 'imsu'),
  })
  .map(({ pattern, flags }) => ({ kind: 'regex', pattern, flags, range: nowhere }));

const scalarValueArbitrary: fc.Arbitrary<ValueNode> = fc.oneof(
  textArbitrary.map((value) => ({ kind: 'string' as const, value, range: nowhere })),
  numberArbitrary.map((value) => ({ kind: 'number' as const, value, range: nowhere })),
  fc.boolean().map((value) => ({ kind: 'boolean' as const, value, range: nowhere })),
  dateArbitrary.map((value) => ({ kind: 'date' as const, value, range: nowhere })),
  timeArbitrary.map((value) => ({ kind: 'time' as const, value, range: nowhere })),
  fc.tuple(dateArbitrary, timeArbitrary).map(([date, time]) => ({
    kind: 'datetime' as const,
    value: `${date}T${time}`,
    range: nowhere,
  })),
  fc
    .constantFrom(...relativeDates)
    .map((value) => ({ kind: 'relative' as const, value, range: nowhere })),
  nameArbitrary.map((value) => ({ kind: 'name' as const, value, range: nowhere })),
);

/** Values without regexes, with lists nested at most `depth` deep. */
function valueArbitrary(depth: number): fc.Arbitrary<ValueNode> {
  if (depth === 0) return scalarValueArbitrary;
  return fc.oneof(
    { arbitrary: scalarValueArbitrary, weight: 4 },
    {
      arbitrary: fc
        .array(valueArbitrary(depth - 1), { maxLength: 3 })
        .map((elements) => ({ kind: 'list' as const, elements, range: nowhere })),
      weight: 1,
    },
  );
}

const plainOperators = operators.filter((operator) => !operator.endsWith('matches'));
const regexOperators = operators.filter((operator) => operator.endsWith('matches'));

const plainBindingArbitrary = nameArbitrary.map((name) => ({
  kind: 'binding' as const,
  name,
  range: nowhere,
}));

const durationArbitrary = fc
  .tuple(fc.nat({ max: 1000 }), fc.constantFrom('s', 'm', 'h', 'd'))
  .map(([amount, unit]) => ({
    kind: 'duration' as const,
    value: `${amount}${unit}`,
    range: nowhere,
  }));

/** Arithmetic chains (`$b * 0.5 + 10`, `$a - ($b - 3h)`): a binding leftmost, any shape. */
function arithmeticArbitrary(depth: number): fc.Arbitrary<ArithmeticOperand> {
  const leaf: fc.Arbitrary<ArithmeticOperand> = fc.oneof(
    plainBindingArbitrary,
    numberArbitrary.map((value) => ({ kind: 'number' as const, value, range: nowhere })),
    durationArbitrary,
    // v3 (LANGUAGE.md §9): the session clock's words.
    fc
      .constantFrom(...relativeDates)
      .map((value) => ({ kind: 'relative' as const, value, range: nowhere })),
  );
  if (depth === 0) return leaf;
  return fc.oneof(
    { arbitrary: leaf, weight: 2 },
    // v3: `min(a, b)`, `max(a, b)`.
    {
      arbitrary: fc
        .tuple(
          fc.constantFrom('min' as const, 'max' as const),
          arithmeticArbitrary(depth - 1),
          arithmeticArbitrary(depth - 1),
        )
        .map(([fn, left, right]) => ({
          kind: 'extremum' as const,
          function: fn,
          left,
          right,
          range: nowhere,
        })),
      weight: 1,
    },
    {
      arbitrary: fc
        .tuple(
          arithmeticArbitrary(depth - 1),
          fc.constantFrom(...arithmeticOperators),
          arithmeticArbitrary(depth - 1),
        )
        .map(([left, operator, right]) => ({
          kind: 'arithmetic' as const,
          left,
          operator,
          right,
          range: nowhere,
        })),
      weight: 1,
    },
  );
}

/** The leftmost operand made a binding: the parser reads arithmetic from a `$`. */
function startWithBinding(node: ArithmeticOperand, name: string): ArithmeticOperand {
  if (node.kind === 'arithmetic' || node.kind === 'extremum')
    return { ...node, left: startWithBinding(node.left, name) };
  return { kind: 'binding', name, range: nowhere };
}

const bindingArbitrary: fc.Arbitrary<ValueNode> = fc.oneof(
  plainBindingArbitrary,
  fc
    .tuple(plainBindingArbitrary, fc.constantFrom(...arithmeticOperators), arithmeticArbitrary(2))
    .map(([left, operator, right]) =>
      startWithBinding(
        { kind: 'arithmetic' as const, left, operator, right, range: nowhere },
        left.name,
      ),
    ),
);

/** `now - 24h`, `today + 1d - 12h` (v3): a clock word moved by durations, a constant value. */
const clockShiftArbitrary: fc.Arbitrary<ValueNode> = fc
  .tuple(
    fc.constantFrom(...relativeDates),
    fc.array(fc.tuple(fc.constantFrom('+' as const, '-' as const), durationArbitrary), {
      minLength: 1,
      maxLength: 2,
    }),
  )
  .map(([word, shifts]) =>
    shifts.reduce<ValueNode>(
      (left, [operator, right]) => ({
        kind: 'arithmetic' as const,
        left: left as ArithmeticOperand,
        operator,
        right,
        range: nowhere,
      }),
      { kind: 'relative' as const, value: word, range: nowhere },
    ),
  );

const operatorValueArbitrary = fc.oneof(
  fc.tuple(fc.constantFrom(...plainOperators), clockShiftArbitrary),
  fc.tuple(fc.constantFrom(...plainOperators), valueArbitrary(4)),
  fc.tuple(fc.constantFrom(...plainOperators), bindingArbitrary),
  fc.tuple(fc.constantFrom(...regexOperators), regexArbitrary),
);

/** A constraint on a variable, or on a path of it whose filters hold such constraints. */
function constraintWithSubject(depth: number): fc.Arbitrary<ConstraintNode> {
  // `[0]`, `[-1]` (v3): a position.
  const position: fc.Arbitrary<PathStep> = fc
    .integer({ min: -3, max: 12 })
    .map((index) => ({ kind: 'index' as const, position: index, range: nowhere }));
  // `m.*`, `keys(m)` (v3): the values and the keys of a map.
  const map: fc.Arbitrary<PathStep> = fc
    .constantFrom('values' as const, 'keys' as const)
    .map((kind) => ({ kind, range: nowhere }));
  const step: fc.Arbitrary<PathStep> =
    depth === 0
      ? fc.oneof(
          identifierArbitrary.map((name) => ({ kind: 'field' as const, name })),
          position,
          map,
        )
      : fc.oneof(
          identifierArbitrary.map((name) => ({ kind: 'field' as const, name })),
          position,
          map,
          fc
            .array(constraintWithSubject(depth - 1), { minLength: 1, maxLength: 2 })
            .map((constraints) => ({ kind: 'filter' as const, constraints, range: nowhere })),
        );
  const subject: fc.Arbitrary<SubjectNode | undefined> = fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    {
      arbitrary: fc
        .record(
          {
            function: fc.constantFrom(...subjectFunctions),
            steps: fc.array(step, { maxLength: 3 }),
            matches: regexArbitrary,
            as: fc.constantFrom(...coercionTypes),
          },
          { requiredKeys: ['steps'] },
        )
        .filter(
          (candidate) =>
            (candidate.steps.length > 0 ||
              candidate.function !== undefined ||
              candidate.as !== undefined) &&
            (candidate.matches === undefined || candidate.function === 'count') &&
            (candidate.as === undefined || candidate.function === undefined),
        )
        .map((candidate) => ({ ...candidate, range: nowhere }) as SubjectNode),
      weight: 1,
    },
  );
  return fc
    .tuple(operatorValueArbitrary, identifierArbitrary, subject, fc.boolean())
    .map(([[operator, value], variable, written, bare]): ConstraintNode => {
      // A filtered list alone (`list[…]`): some element satisfies the filter.
      if (
        bare &&
        written !== undefined &&
        written.function === undefined &&
        written.as === undefined &&
        written.matches === undefined &&
        written.steps[written.steps.length - 1]?.kind === 'filter'
      )
        return {
          kind: 'constraint',
          variable,
          subject: { ...written, function: 'count', exists: true },
          operator: '>=',
          value: { kind: 'number', value: 1, range: nowhere },
          range: nowhere,
        };
      return {
        kind: 'constraint' as const,
        variable,
        ...(written ? { subject: written } : {}),
        operator: operator as Operator,
        value,
        range: nowhere,
      };
    });
}

export const constraintArbitrary: fc.Arbitrary<ConstraintNode> = constraintWithSubject(1);

const simpleAtomArbitrary: fc.Arbitrary<AtomNode> = fc.oneof(
  fc
    .record({
      name: identifierArbitrary,
      parenthesized: fc.boolean(),
      constraints: fc.array(constraintArbitrary, { maxLength: 3 }),
      negated: fc.boolean(),
      absent: fc.array(identifierArbitrary, { maxLength: 2 }),
      refused: fc.boolean(),
    })
    .map(({ name, parenthesized, constraints, negated, absent, refused }) => ({
      kind: 'pattern' as const,
      name,
      // `refused A(...)` always has its parentheses (LANGUAGE.md §8).
      parenthesized: parenthesized || refused || constraints.length > 0 || absent.length > 0,
      constraints,
      ...(negated ? { negated } : {}),
      ...(absent.length > 0 ? { absent } : {}),
      ...(refused ? { refused: true as const } : {}),
      range: nowhere,
    })),
  fc
    .record({
      name: identifierArbitrary,
      operator: fc.constantFrom<ComparisonOperator>(...comparisonOperators),
      count: fc.nat(),
    })
    .map((atom) => ({ kind: 'count' as const, ...atom, range: nowhere })),
);

/**
 * v3 scopes (LANGUAGE.md §9): `not (A & B)` of two atoms at least (one plain pattern is the
 * v2 `not P(…)`), and `forall(A => B)`, with one scope nested inside at most.
 */
const scopedNegationArbitrary = (inner: fc.Arbitrary<AtomNode>): fc.Arbitrary<AtomNode> =>
  fc
    .array(inner, { minLength: 2, maxLength: 3 })
    .map((atoms) => ({ kind: 'scoped-not' as const, atoms, range: nowhere }));

const universalArbitrary = (inner: fc.Arbitrary<AtomNode>): fc.Arbitrary<AtomNode> =>
  fc
    .record({
      condition: fc.array(inner, { minLength: 1, maxLength: 2 }),
      conclusion: fc.array(inner, { minLength: 1, maxLength: 2 }),
    })
    .map(({ condition, conclusion }) => ({
      kind: 'forall' as const,
      condition,
      conclusion,
      range: nowhere,
    }));

const scopeMemberArbitrary: fc.Arbitrary<AtomNode> = fc.oneof(
  { arbitrary: simpleAtomArbitrary, weight: 6 },
  { arbitrary: scopedNegationArbitrary(simpleAtomArbitrary), weight: 1 },
  { arbitrary: universalArbitrary(simpleAtomArbitrary), weight: 1 },
);

export const scopeArbitrary: fc.Arbitrary<AtomNode> = fc.oneof(
  scopedNegationArbitrary(scopeMemberArbitrary),
  universalArbitrary(scopeMemberArbitrary),
);

/** `$paid - $price <= 600` (v3): a comparison of terms, a binding leftmost (as a body atom starts). */
const comparisonArbitrary: fc.Arbitrary<ComparisonAtom> = fc
  .tuple(
    plainBindingArbitrary,
    arithmeticArbitrary(2),
    fc.constantFrom<ComparisonOperator>(...comparisonOperators),
    arithmeticArbitrary(2),
  )
  .map(([binding, left, operator, right]) => ({
    kind: 'comparison' as const,
    left: startWithBinding(left, binding.name),
    operator,
    right,
    range: nowhere,
  }));

/** Atoms, v2 disjunctions `(A & B | C)` of them (nested once at most), v3 comparisons and scopes. */
const atomArbitrary: fc.Arbitrary<AtomNode> = fc.oneof(
  { arbitrary: simpleAtomArbitrary, weight: 5 },
  { arbitrary: comparisonArbitrary, weight: 1 },
  { arbitrary: scopeArbitrary, weight: 1 },
  {
    arbitrary: fc
      .array(
        fc.array(
          fc.oneof(
            { arbitrary: simpleAtomArbitrary, weight: 4 },
            {
              arbitrary: fc
                .array(fc.array(simpleAtomArbitrary, { minLength: 1, maxLength: 2 }), {
                  minLength: 2,
                  maxLength: 2,
                })
                .map((alternatives) => ({
                  kind: 'disjunction' as const,
                  alternatives,
                  range: nowhere,
                })),
              weight: 1,
            },
          ),
          { minLength: 1, maxLength: 2 },
        ),
        // Two alternatives at least: `@confirm (A) -> B` reads `(A)` as the annotation's arguments.
        { minLength: 2, maxLength: 3 },
      )
      .map((alternatives) => ({ kind: 'disjunction' as const, alternatives, range: nowhere })),
    weight: 1,
  },
);

const headArbitrary: fc.Arbitrary<HeadNode> = fc.oneof(
  fc.constant({ name: { name: 'Done', range: nowhere }, isDone: true, range: nowhere }),
  identifierArbitrary.map((name) => ({ name, isDone: false, range: nowhere })),
);

/** One line of comment text as the lexer keeps it: trimmed, no line break. */
export const commentArbitrary: fc.Arbitrary<string> = textArbitrary.map((text) =>
  text.replace(/[\n\r]/g, ' ').trim(),
);

const confirmArbitrary: fc.Arbitrary<AnnotationNode> = fc
  .record(
    { category: fc.constantFrom(...confirmCategories), message: textArbitrary },
    { requiredKeys: [] },
  )
  .map((fields) => ({ kind: 'confirm' as const, ...fields, range: nowhere }));

const repeatArbitrary: fc.Arbitrary<AnnotationNode> = fc
  .tuple(
    fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: undefined }),
    fc.option(identifierArbitrary, { nil: undefined }),
  )
  .map(([limit, per]) => ({
    kind: 'repeat' as const,
    ...(limit === undefined ? {} : { limit }),
    ...(per === undefined ? {} : { per }),
    range: nowhere,
  }));

/** At most one annotation of each kind, in either order. */
const annotationsArbitrary: fc.Arbitrary<AnnotationNode[]> = fc
  .tuple(
    fc.option(confirmArbitrary, { nil: undefined }),
    fc.option(repeatArbitrary, { nil: undefined }),
    fc.boolean(),
  )
  .map(([confirm, repeat, repeatFirst]) => {
    const annotations = [confirm, repeat].filter(
      (annotation): annotation is AnnotationNode => annotation !== undefined,
    );
    return repeatFirst ? annotations.reverse() : annotations;
  });

export const ruleArbitrary: fc.Arbitrary<RuleNode> = fc
  .record({
    annotations: annotationsArbitrary,
    label: fc.option(identifierArbitrary, { nil: undefined }),
    body: fc.array(atomArbitrary, { maxLength: 4 }),
    head: headArbitrary,
    comments: fc.array(commentArbitrary, { maxLength: 2 }),
  })
  .map(({ label, ...rule }) => ({
    kind: 'rule' as const,
    ...rule,
    ...(label ? { label } : {}),
    range: nowhere,
  }));

export const guardArbitrary: fc.Arbitrary<GuardNode> = fc
  .record({
    mode: fc.constantFrom('reject' as const, 'confirm' as const),
    predicate: identifierArbitrary,
    constraints: fc.array(constraintArbitrary, { maxLength: 3 }),
    absent: fc.array(identifierArbitrary, { maxLength: 2 }),
    comparisons: fc.array(comparisonArbitrary, { maxLength: 2 }),
    reason: fc.option(textArbitrary, { nil: undefined }),
    comments: fc.array(commentArbitrary, { maxLength: 2 }),
  })
  .map(({ reason, absent, comparisons, ...guard }) => ({
    kind: 'guard' as const,
    ...guard,
    ...(absent.length > 0 ? { absent } : {}),
    ...(comparisons.length > 0 ? { comparisons } : {}),
    ...(reason === undefined ? {} : { reason }),
    range: nowhere,
  }));

/** `given P(x = v, …)` (LANGUAGE.md §8): equalities with constant values. */
export const givenArbitrary: fc.Arbitrary<GivenNode> = fc
  .record({
    predicate: identifierArbitrary,
    constraints: fc.array(constraintArbitrary, { minLength: 1, maxLength: 3 }),
    comments: fc.array(commentArbitrary, { maxLength: 2 }),
  })
  .map((given) => ({ kind: 'given' as const, ...given, range: nowhere }));

export const specArbitrary: fc.Arbitrary<SpecNode> = fc
  .record({
    items: fc.array(
      fc.oneof<fc.Arbitrary<ItemNode>[]>(ruleArbitrary, guardArbitrary, givenArbitrary),
      {
        maxLength: 6,
      },
    ),
    trailingComments: fc.array(commentArbitrary, { maxLength: 2 }),
  })
  .map((spec) => ({ kind: 'spec' as const, ...spec, range: nowhere }));
