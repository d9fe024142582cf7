import { describe, expect, it } from 'vitest';
import { codes, span, spots, stripRanges } from '../../test/support/syntax.js';
import {
  type ConstraintNode,
  type GuardNode,
  type PatternAtom,
  type RuleNode,
  ruleIds,
  type SpecNode,
  type ValueNode,
} from './ast.js';
import { sortDiagnostics } from './diagnostics/diagnostic.js';
import type { ParseOptions } from './parser.js';
import { parse, parseWithDiagnostics } from './parser.js';

function ast(source: string, options?: ParseOptions): SpecNode {
  const parsed = parseWithDiagnostics(source, options);
  expect(spots(parsed.diagnostics)).toEqual([]);
  return parsed.value.ast;
}

function diagnosticsOf(source: string, options?: ParseOptions): string[] {
  return spots(parseWithDiagnostics(source, options).diagnostics);
}

function rules(source: string): RuleNode[] {
  return ast(source).items.filter((item): item is RuleNode => item.kind === 'rule');
}

function rule(source: string): RuleNode {
  const [first, ...rest] = rules(source);
  expect(rest).toEqual([]);
  return first!;
}

function constraint(text: string): ConstraintNode {
  const atom = rule(`A(${text}) -> B`).body[0] as PatternAtom;
  expect(atom.constraints).toHaveLength(1);
  return atom.constraints[0]!;
}

function value(text: string): ValueNode {
  return constraint(`x = ${text}`).value;
}

/** The tree without ranges and comments, for comparing spellings of one spec. */
function shape(source: string) {
  return stripRanges(ast(source).items);
}

describe('parse and parseWithDiagnostics', () => {
  it('returns the tree and warnings when there are no errors', () => {
    const result = parse('```\nA -> Done\n```');
    expect(result.ok).toBe(true);
    expect(result.value?.ast.items).toHaveLength(1);
    expect(codes(result.diagnostics)).toEqual(['extracted-spec']);
  });

  it('returns no tree when there is an error, but every diagnostic', () => {
    const result = parse('A(x = ) -> B\nC(y = ) -> Done');
    expect(result.ok).toBe(false);
    expect(result.value).toBeUndefined();
    expect(codes(result.diagnostics)).toEqual(['unexpected-token', 'unexpected-token']);
  });

  it('keeps the source and its line index with the tree', () => {
    const source = 'A -> B\nB -> Done\n';
    const parsed = parseWithDiagnostics(source).value;
    expect(parsed.source).toBe(source);
    expect(parsed.lines.lineCount).toBe(3);
    expect(span(parsed.ast.range)).toBe('1:1-3:1');
  });

  it('parses the empty spec and a spec of comments only', () => {
    expect(ast('')).toEqual({
      kind: 'spec',
      items: [],
      trailingComments: [],
      range: expect.anything(),
    });
    expect(ast('# one\n\n// two\n').trailingComments).toEqual(['one', 'two']);
  });
});

describe('the first example of LANGUAGE.md', () => {
  const source = [
    '# rules are: body -> head',
    'R1: RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = true) -> Reserve',
    'R2: Reserve & ReserveResult(success = true) -> Done',
    'R3: RestaurantInfo(name = "R") & ReserveInfo(date = today, time < 19:00, available = false) -> Done',
  ].join('\n');

  it('parses into the expected tree', () => {
    const spec = ast(source);
    expect(spec.items).toHaveLength(3);
    expect(spec.trailingComments).toEqual([]);
    const [first, second] = spec.items as RuleNode[];
    expect(stripRanges(first)).toEqual({
      kind: 'rule',
      annotations: [],
      label: { name: 'R1' },
      body: [
        {
          kind: 'pattern',
          name: { name: 'RestaurantInfo' },
          parenthesized: true,
          constraints: [
            {
              kind: 'constraint',
              variable: { name: 'name' },
              operator: '=',
              value: { kind: 'string', value: 'R' },
            },
          ],
        },
        {
          kind: 'pattern',
          name: { name: 'ReserveInfo' },
          parenthesized: true,
          constraints: [
            {
              kind: 'constraint',
              variable: { name: 'date' },
              operator: '=',
              value: { kind: 'relative', value: 'today' },
            },
            {
              kind: 'constraint',
              variable: { name: 'time' },
              operator: '<',
              value: { kind: 'time', value: '19:00' },
            },
            {
              kind: 'constraint',
              variable: { name: 'available' },
              operator: '=',
              value: { kind: 'boolean', value: true },
            },
          ],
        },
      ],
      head: { name: { name: 'Reserve' }, isDone: false },
      comments: ['rules are: body -> head'],
    });
    expect(stripRanges(second?.body[0])).toEqual({
      kind: 'pattern',
      name: { name: 'Reserve' },
      parenthesized: false,
      constraints: [],
    });
    expect(second?.head).toMatchObject({ name: { name: 'Done' }, isDone: true });
  });

  it('gives every node the range of its text', () => {
    const [first] = ast(source).items as RuleNode[];
    const [restaurant, reserve] = first!.body as PatternAtom[];
    expect(span(first!.range)).toBe('2:1-2:102');
    expect(span(first!.label!.range)).toBe('2:1-2:3');
    expect(span(restaurant!.range)).toBe('2:5-2:31');
    expect(span(restaurant!.name.range)).toBe('2:5-2:19');
    expect(span(restaurant!.constraints[0]!.range)).toBe('2:20-2:30');
    expect(span(restaurant!.constraints[0]!.variable.range)).toBe('2:20-2:24');
    expect(span(restaurant!.constraints[0]!.value.range)).toBe('2:27-2:30');
    expect(span(reserve!.constraints[1]!.range)).toBe('2:60-2:72');
    expect(span(reserve!.constraints[1]!.value.range)).toBe('2:67-2:72');
    expect(span(first!.head.range)).toBe('2:95-2:102');
  });
});

describe('the second example of LANGUAGE.md', () => {
  it('parses rules, a @confirm annotation and a guard with a reason', () => {
    const spec = ast(
      [
        'BankCheckBalance() -> BalanceKnown',
        '@confirm(security, "Confirm the transfer details with the user")',
        'BalanceKnown & BankCheckBalanceResult(balance > 1000) & BankTransfer(to = "Alice", amount = 500) -> Transferred',
        'Transferred -> Done',
        'BalanceKnown & BankCheckBalanceResult(balance <= 1000) -> Done',
        'reject BankTransfer(amount > 500) because "never move more than the user asked for"',
      ].join('\n'),
    );
    expect(spec.items.map((item) => item.kind)).toEqual(['rule', 'rule', 'rule', 'rule', 'guard']);
    const first = spec.items[0] as RuleNode;
    expect(first.body[0]).toMatchObject({ parenthesized: true, constraints: [] });
    const confirmed = spec.items[1] as RuleNode;
    expect(stripRanges(confirmed.annotations)).toEqual([
      {
        kind: 'confirm',
        category: 'security',
        message: 'Confirm the transfer details with the user',
      },
    ]);
    expect(span(confirmed.range)).toBe('2:1-3:112');
    const guard = spec.items[4] as GuardNode;
    expect(stripRanges(guard)).toEqual({
      kind: 'guard',
      mode: 'reject',
      predicate: { name: 'BankTransfer' },
      constraints: [
        {
          kind: 'constraint',
          variable: { name: 'amount' },
          operator: '>',
          value: { kind: 'number', value: 500 },
        },
      ],
      reason: 'never move more than the user asked for',
      comments: [],
    });
    expect(span(guard.range)).toBe('6:1-6:84');
  });
});

describe('operators', () => {
  it.each([
    ['x = 1', '='],
    ['x == 1', '='],
    ['x != 1', '!='],
    ['x ≠ 1', '!='],
    ['x <> 1', '!='],
    ['x ~ "a"', '~'],
    ['x ≃ "a"', '~'],
    ['x ≈ "a"', '~'],
    ['x !~ "a"', '!~'],
    ['x < 1', '<'],
    ['x <= 1', '<='],
    ['x ≤ 1', '<='],
    ['x > 1', '>'],
    ['x >= 1', '>='],
    ['x ≥ 1', '>='],
    ['x in [1]', 'in'],
    ['x IN [1]', 'in'],
    ['x ∈ [1]', 'in'],
    ['x ⊆ [1]', 'in'],
    ['x not in [1]', 'not in'],
    ['x NOT In [1]', 'not in'],
    ['x ∉ [1]', 'not in'],
    ['x ⊄ [1]', 'not in'],
    ['x ⊈ [1]', 'not in'],
    ['x contains "a"', 'contains'],
    ['x Contains "a"', 'contains'],
    ['x not contains "a"', 'not contains'],
    ['x matches /a/', 'matches'],
    ['x MATCHES /a/', 'matches'],
    ['x not matches /a/i', 'not matches'],
  ])('reads %s with the operator %s', (text, operator) => {
    expect(constraint(text).operator).toBe(operator);
  });

  it('keeps regex literals with their flags', () => {
    expect(stripRanges(constraint('x matches /^a+\\/b$/ims').value)).toEqual({
      kind: 'regex',
      pattern: '^a+\\/b$',
      flags: 'ims',
    });
  });

  it('reads // after matches as an empty regex, and a later // as a comment', () => {
    const parsed = rule('A(x matches //) -> B // why');
    expect((parsed.body[0] as PatternAtom).constraints[0]?.value).toMatchObject({
      kind: 'regex',
      pattern: '',
    });
    expect(parsed.comments).toEqual(['why']);
  });

  it('reports not followed by something other than in, contains or matches', () => {
    expect(diagnosticsOf('A(x not = 1) -> B')).toEqual(['unexpected-token 1:9-1:10']);
    expect(parseWithDiagnostics('A(x not = 1) -> B').diagnostics[0]?.message).toBe(
      "Expected 'in', 'contains' or 'matches' after 'not', found '='.",
    );
  });

  it('reports a missing operator', () => {
    const parsed = parseWithDiagnostics('A(x 1) -> B');
    expect(spots(parsed.diagnostics)).toEqual(['unexpected-token 1:5-1:6']);
    expect(parsed.diagnostics[0]?.message).toBe(
      "Expected an operator such as =, !=, <, in, contains or matches, found '1'.",
    );
  });
});

describe('VeriSafe tuple constraints', () => {
  it.each([
    ['x=(5, >)', '>', { kind: 'number', value: 5 }],
    ['x = (5, <=)', '<=', { kind: 'number', value: 5 }],
    ['x=("k", !=)', '!=', { kind: 'string', value: 'k' }],
    [
      'x = ([1, 2], not in)',
      'not in',
      {
        kind: 'list',
        elements: [
          { kind: 'number', value: 1 },
          { kind: 'number', value: 2 },
        ],
      },
    ],
    ['x == (19:00, ≥)', '>=', { kind: 'time', value: '19:00' }],
  ])('reads %s as operator %s', (text, operator, expected) => {
    const parsed = constraint(text);
    expect(parsed.operator).toBe(operator);
    expect(stripRanges(parsed.value)).toEqual(expected);
  });

  it('parses the full VeriSafe-style line to the same tree as the canonical form', () => {
    const verisafe = '1. A(x=(5, >)) ∧ B(y="k") → Act()';
    expect(shape(verisafe)).toEqual(shape('A(x > 5) & B(y = "k") -> Act'));
    const parsed = rule(verisafe);
    expect(span(parsed.range)).toBe('1:1-1:34');
    expect(span((parsed.body[0] as PatternAtom).constraints[0]?.range)).toBe('1:6-1:14');
    expect(span(parsed.head.range)).toBe('1:29-1:34');
  });

  it('reports a tuple without its operator', () => {
    expect(diagnosticsOf('A(x = (5)) -> B')).toEqual(['unexpected-token 1:9-1:10']);
    expect(diagnosticsOf('A(x = (5, 6)) -> B')).toEqual(['unexpected-token 1:11-1:12']);
    expect(diagnosticsOf('A(x = (5, >) -> B')).toEqual(['unexpected-token 1:14-1:16']);
  });
});

describe('body and head', () => {
  const canonical = 'A(x = 1) & B & C -> D';

  it.each([
    'A(x = 1) & B & C -> D',
    'A(x = 1) ∧ B ∧ C → D',
    'A(x = 1), B, C => D',
    'A(x = 1) and B AND C -> D',
    'A(x == 1) & B & C -> D()',
    'A(x = 1)\n  & B\n  & C\n  -> D',
  ])('reads %j like the canonical rule', (spelling) => {
    expect(shape(spelling)).toEqual(shape(canonical));
  });

  it('reads an empty body written as true, TRUE or nothing', () => {
    for (const source of ['true -> X', 'True -> X', 'TRUE -> X', '-> X']) {
      expect(rule(source).body).toEqual([]);
    }
    expect(span(rule('-> X').range)).toBe('1:1-1:5');
  });

  it('reads Done as the goal head in any case, with or without parentheses', () => {
    for (const source of ['A -> Done', 'A -> DONE', 'A -> done()', 'A -> Done()']) {
      expect(rule(source).head).toMatchObject({ name: { name: 'Done' }, isDone: true });
    }
    expect(rule('A -> Doner').head).toMatchObject({ name: { name: 'Doner' }, isDone: false });
  });

  it('keeps objective names case-sensitive', () => {
    expect(rule('reserve -> Reserve').body[0]).toMatchObject({ name: { name: 'reserve' } });
  });

  it('distinguishes Name and Name() in the body', () => {
    const [bare, empty] = rule('A & B() -> C').body as PatternAtom[];
    expect(bare).toMatchObject({ parenthesized: false, constraints: [] });
    expect(empty).toMatchObject({ parenthesized: true, constraints: [] });
    expect(span(empty?.range)).toBe('1:5-1:8');
  });

  it.each([
    ['Upvote >= 3', '>=', 3],
    ['Upvote ≥ 3', '>=', 3],
    ['Upvote > 0', '>', 0],
    ['Upvote = 2', '=', 2],
    ['Upvote == 2', '=', 2],
    ['Upvote != 1', '!=', 1],
    ['Upvote < 5', '<', 5],
    ['Upvote <= 5', '<=', 5],
  ])('reads the count atom %s', (text, operator, count) => {
    const atom = rule(`${text} -> Done`).body[0];
    expect(stripRanges(atom)).toEqual({ kind: 'count', name: { name: 'Upvote' }, operator, count });
    expect(span(atom?.range)).toBe(`1:1-1:${text.length + 1}`);
  });

  it.each([
    ['Upvote >= 2.5 -> Done', 'invalid-count 1:11-1:14'],
    ['Upvote >= -1 -> Done', 'invalid-count 1:11-1:13'],
  ])('reports the count in %s and keeps the rule', (source, diagnostic) => {
    const parsed = parseWithDiagnostics(source);
    expect(spots(parsed.diagnostics)).toEqual([diagnostic]);
    expect(parsed.value.ast.items).toHaveLength(1);
  });

  it('requires a number after a count comparison', () => {
    const parsed = parseWithDiagnostics('Upvote >= "3" -> Done');
    expect(spots(parsed.diagnostics)).toEqual(['unexpected-token 1:11-1:14']);
    expect(parsed.diagnostics[0]?.message).toBe(
      'Expected a count after \'Upvote >=\', found the string "3".',
    );
  });

  it('reports Done in a body', () => {
    expect(diagnosticsOf('A & Done -> B\nC -> Done')).toEqual(['done-in-body 1:5-1:9']);
    expect(diagnosticsOf('done() -> B')).toEqual(['done-in-body 1:1-1:5']);
  });

  it('reports constraints on a head over the constraints only', () => {
    const parsed = parseWithDiagnostics('X -> Act(a = 1, b = 2)\nAct -> Done');
    expect(spots(parsed.diagnostics)).toEqual(['head-with-constraints 1:10-1:22']);
    expect(parsed.diagnostics[0]?.hint).toBe(
      'Move the conditions into the body: … & ActInfo(…) -> Act.',
    );
    expect(parsed.value.ast.items).toHaveLength(1);
  });

  it('reports two heads on one line', () => {
    expect(diagnosticsOf('A -> B & C')).toEqual(['multiple-heads 1:8-1:11']);
    expect(diagnosticsOf('A -> B, C')).toEqual(['multiple-heads 1:7-1:10']);
  });

  it('reports a rule without an arrow over its body', () => {
    expect(diagnosticsOf('A(x = 1) & B\nC -> Done')).toEqual(['missing-arrow 1:1-1:13']);
    expect(diagnosticsOf('A(x = 1)')).toEqual(['missing-arrow 1:1-1:9']);
  });

  it('reports a word where an arrow or & belongs', () => {
    const parsed = parseWithDiagnostics('A B -> C');
    expect(spots(parsed.diagnostics)).toEqual(['unexpected-token 1:3-1:4']);
    expect(parsed.diagnostics[0]?.message).toBe("Expected '&' or '->', found 'B'.");
  });

  it('reports a missing head', () => {
    const parsed = parseWithDiagnostics('A ->');
    expect(spots(parsed.diagnostics)).toEqual(['unexpected-token 1:5-1:5']);
    expect(parsed.diagnostics[0]?.message).toBe(
      'Expected an objective name or Done after ->, found the end of the spec.',
    );
  });

  it('does not put line breaks or bidirectional controls of a string into a message', () => {
    const parsed = parseWithDiagnostics('A(x = 1 "a\\nb\\u{202e}c") -> B');
    expect(parsed.diagnostics[0]?.message).toBe("Expected ',' or ')', found the string \"a b c\".");
  });

  it('reports a body that starts with something other than a name', () => {
    const parsed = parseWithDiagnostics('"A" -> B');
    expect(spots(parsed.diagnostics)).toEqual(['unexpected-token 1:1-1:4']);
    expect(parsed.diagnostics[0]?.message).toBe(
      'Expected a predicate or objective name, found the string "A".',
    );
  });
});

describe('values', () => {
  it.each([
    ['"text"', { kind: 'string', value: 'text' }],
    ["'text'", { kind: 'string', value: 'text' }],
    ['“text”', { kind: 'string', value: 'text' }],
    ['"a\\"b\\\\c\\nd\\te\\u{1F600}\'"', { kind: 'string', value: 'a"b\\c\nd\te😀\'' }],
    ['-12', { kind: 'number', value: -12 }],
    ['3.5', { kind: 'number', value: 3.5 }],
    ['1e6', { kind: 'number', value: 1_000_000 }],
    ['1_000', { kind: 'number', value: 1000 }],
    ['true', { kind: 'boolean', value: true }],
    ['False', { kind: 'boolean', value: false }],
    ['TRUE', { kind: 'boolean', value: true }],
    ['2025-03-14', { kind: 'date', value: '2025-03-14' }],
    ['19:00', { kind: 'time', value: '19:00' }],
    ['9:30:15', { kind: 'time', value: '09:30:15' }],
    ['2025-03-14T19:00', { kind: 'datetime', value: '2025-03-14T19:00' }],
    ['today', { kind: 'relative', value: 'today' }],
    ['TODAY', { kind: 'relative', value: 'today' }],
    ['Tomorrow', { kind: 'relative', value: 'tomorrow' }],
    ['yesterday', { kind: 'relative', value: 'yesterday' }],
    ['NOW', { kind: 'relative', value: 'now' }],
    ['Uber', { kind: 'name', value: 'Uber' }],
    ['[]', { kind: 'list', elements: [] }],
    [
      '["a", 1, b]',
      {
        kind: 'list',
        elements: [
          { kind: 'string', value: 'a' },
          { kind: 'number', value: 1 },
          { kind: 'name', value: 'b' },
        ],
      },
    ],
    [
      '[10,200]',
      {
        kind: 'list',
        elements: [
          { kind: 'number', value: 10 },
          { kind: 'number', value: 200 },
        ],
      },
    ],
    [
      '[1,000]',
      {
        kind: 'list',
        elements: [
          { kind: 'number', value: 1 },
          { kind: 'number', value: 0 },
        ],
      },
    ],
    [
      '[[1], [[2]]]',
      {
        kind: 'list',
        elements: [
          { kind: 'list', elements: [{ kind: 'number', value: 1 }] },
          { kind: 'list', elements: [{ kind: 'list', elements: [{ kind: 'number', value: 2 }] }] },
        ],
      },
    ],
  ])('reads the value %s', (text, expected) => {
    expect(stripRanges(value(text))).toEqual(expected);
  });

  it('gives list elements their own ranges', () => {
    const list = value('[1, [2]]');
    expect(span(list.range)).toBe('1:7-1:15');
    if (list.kind !== 'list') throw new Error('expected a list');
    expect(list.elements.map((element) => span(element.range))).toEqual(['1:8-1:9', '1:11-1:14']);
  });

  it('keeps the text of a bare name as written', () => {
    expect(value('service_Name')).toMatchObject({ kind: 'name', value: 'service_Name' });
  });

  it('reports unquoted text of several words with a quoted suggestion', () => {
    const parsed = parseWithDiagnostics('A(x = Blue Hill Cafe, y = 1) -> B\nB -> Done');
    expect(spots(parsed.diagnostics)).toEqual(['unquoted-text 1:7-1:21']);
    expect(parsed.diagnostics[0]?.hint).toBe('Write "Blue Hill Cafe".');
    expect(parsed.value.ast.items).toHaveLength(1);
  });

  it.each([
    [
      'A(x = 1,000) -> B',
      'number-with-comma 1:7-1:12',
      'Write 1000 (or 1_000); a comma separates constraints.',
    ],
    [
      'A(x = 1,000,000) -> B',
      'number-with-comma 1:7-1:16',
      'Write 1000000 (or 1_000_000); a comma separates constraints.',
    ],
    [
      'A(x = -2,500) -> B',
      'number-with-comma 1:7-1:13',
      'Write -2500 (or -2_500); a comma separates constraints.',
    ],
    [
      'A(x = (1,000, >)) -> B',
      'number-with-comma 1:8-1:13',
      'Write 1000 (or 1_000); a comma separates constraints.',
    ],
  ])('reports a thousands separator in %s', (source, diagnostic, hint) => {
    const parsed = parseWithDiagnostics(source);
    expect(spots(parsed.diagnostics)).toEqual([diagnostic]);
    expect(parsed.diagnostics[0]?.hint).toBe(hint);
  });

  it('does not take a comma with spaces or before a name for a thousands separator', () => {
    expect(rule('A(x = 1, y = 2) -> B').body[0]).toMatchObject({
      constraints: [{ value: { value: 1 } }, { value: { value: 2 } }],
    });
    expect(rule('A(x=1,y=2) -> B').body[0]).toMatchObject({ constraints: [{}, {}] });
  });

  it('does not suggest a thousands separator after a decimal number', () => {
    expect(codes(parseWithDiagnostics('A(x = 1.5,000) -> B').diagnostics)).toEqual([
      'unexpected-token',
    ]);
  });

  it('reports a value that is not one', () => {
    expect(diagnosticsOf('A(x = ) -> B')).toEqual(['unexpected-token 1:7-1:8']);
    expect(diagnosticsOf('A(x = [1, ) -> B')).toEqual(['unexpected-token 1:11-1:12']);
    expect(diagnosticsOf('A(x = [1 2]) -> B')).toEqual(['unexpected-token 1:10-1:11']);
  });

  it('reports lexical errors inside values and keeps the rule', () => {
    const parsed = parseWithDiagnostics('A(d = 2025-02-30, t = 24:00) -> B');
    expect(spots(parsed.diagnostics)).toEqual(['invalid-date 1:7-1:17', 'invalid-date 1:23-1:28']);
    expect(parsed.value.ast.items).toHaveLength(1);
  });
});

describe('items', () => {
  it('accepts rule numbers, labels and both', () => {
    const parsed = rules('1. A -> B\n2. L2: B -> C\nL3: C -> Done\n10. D -> Done');
    expect(parsed.map((item) => item.label?.name)).toEqual([undefined, 'L2', 'L3', undefined]);
    expect(span(parsed[1]!.range)).toBe('2:1-2:14');
    expect(span(parsed[1]!.label!.range)).toBe('2:4-2:6');
  });

  it('reads a non-integer number before a dot as the start of a rule, not a rule number', () => {
    expect(diagnosticsOf('1.5. A -> B')).toEqual(['unexpected-token 1:1-1:4']);
  });

  it('ends rules at optional ; or . terminators, several on one line', () => {
    const parsed = rules('A -> B; B -> C. C -> Done;');
    expect(parsed.map((item) => item.head.name.name)).toEqual(['B', 'C', 'Done']);
    expect(span(parsed[0]!.range)).toBe('1:1-1:7');
  });

  it('reads a rule that spans lines', () => {
    const parsed = rule('A(x = 1,\n  y = 2)\n  & B\n  -> C');
    expect(span(parsed.range)).toBe('1:1-4:7');
    expect((parsed.body[0] as PatternAtom).constraints).toHaveLength(2);
  });

  it('numbers unlabelled rules by position, skipping names a written label uses', () => {
    const spec = ast(
      'A -> B\nR1: B -> C\nreject X()\nC -> D\nR3_2: D -> E\nR3: E -> Done\nF -> Done',
    );
    expect(ruleIds(spec)).toEqual(['R1_2', 'R1', 'R3_3', 'R3_2', 'R3', 'R6']);
  });
});

describe('annotations', () => {
  it.each([
    ['@confirm', { kind: 'confirm' }],
    ['@confirm()', { kind: 'confirm' }],
    ['@CONFIRM', { kind: 'confirm' }],
    ['@confirm(financial)', { kind: 'confirm', category: 'financial' }],
    ['@confirm(Financial)', { kind: 'confirm', category: 'financial' }],
    ['@confirm("Ask first")', { kind: 'confirm', message: 'Ask first' }],
    [
      '@confirm(privacy, "Ask first")',
      { kind: 'confirm', category: 'privacy', message: 'Ask first' },
    ],
    ['@confirm(safety, "")', { kind: 'confirm', category: 'safety', message: '' }],
    ['@repeat', { kind: 'repeat' }],
    ['@repeat()', { kind: 'repeat' }],
    ['@Repeat(3)', { kind: 'repeat', limit: 3 }],
  ])('reads %s', (text, expected) => {
    const parsed = rule(`${text}\nA -> B`);
    expect(stripRanges(parsed.annotations)).toEqual([expected]);
    expect(span(parsed.annotations[0]?.range)).toBe(`1:1-1:${text.length + 1}`);
    expect(span(parsed.range)).toBe('1:1-2:7');
  });

  it('leaves a body that starts with a parenthesized term to the rule, not to the annotation', () => {
    for (const text of ['@repeat\n($a + 0) = 1 -> A', '@confirm\n( $a * 2) > $b -> A']) {
      expect(diagnosticsOf(text), text).toEqual([]);
      expect(rule(text).annotations, text).toHaveLength(1);
    }
  });

  it('reads several annotations, also on the rule line', () => {
    const parsed = rule('@repeat(2) @confirm(ethics) 1. L: A -> B');
    expect(stripRanges(parsed.annotations)).toEqual([
      { kind: 'repeat', limit: 2 },
      { kind: 'confirm', category: 'ethics' },
    ]);
    expect(parsed.label?.name).toBe('L');
  });

  it.each([
    [
      '@confirm(money)\nA -> B',
      'invalid-annotation 1:10-1:15',
      "Invalid arguments for @confirm: 'money' is not a category.",
    ],
    [
      '@repeat(0)\nA -> B',
      'invalid-annotation 1:9-1:10',
      'Invalid arguments for @repeat: 0 is not a positive whole number.',
    ],
    [
      '@repeat(2.5)\nA -> B',
      'invalid-annotation 1:9-1:12',
      'Invalid arguments for @repeat: 2.5 is not a positive whole number.',
    ],
    [
      '@repeat(-1)\nA -> B',
      'invalid-annotation 1:9-1:11',
      'Invalid arguments for @repeat: -1 is not a positive whole number.',
    ],
    ['@later\nA -> B', 'unknown-annotation 1:1-1:7', "Unknown annotation '@later'."],
    [
      '@confirm @confirm\nA -> B',
      'duplicate-annotation 1:10-1:18',
      '@confirm is given twice for this rule.',
    ],
    [
      'A -> B\n@repeat',
      'dangling-annotation 2:1-2:8',
      'This annotation is not followed by a rule.',
    ],
    [
      '@confirm\nreject A()',
      'annotation-on-guard 1:1-1:9',
      'Annotations apply to rules, not to guards.',
    ],
  ])('reports %j', (source, diagnostic, message) => {
    const parsed = parseWithDiagnostics(source);
    expect(spots(parsed.diagnostics)).toEqual([diagnostic]);
    expect(parsed.diagnostics[0]?.message).toBe(message);
  });

  it('keeps the rule after an annotation with bad arguments', () => {
    const parsed = parseWithDiagnostics('@confirm(money)\nA -> B');
    expect(parsed.value.ast.items).toHaveLength(1);
    expect((parsed.value.ast.items[0] as RuleNode).annotations).toMatchObject([
      { kind: 'confirm' },
    ]);
  });

  it('skips the arguments of an unknown annotation but not the rest of the spec', () => {
    const parsed = parseWithDiagnostics('@later(x, "y")\nA -> B\n@foo(\nC -> D\nE -> Done');
    expect(spots(parsed.diagnostics)).toEqual([
      'unknown-annotation 1:1-1:7',
      'unknown-annotation 3:1-3:5',
    ]);
    expect(parsed.value.ast.items.map((item) => (item as RuleNode).head.name.name)).toEqual([
      'B',
      'D',
      'Done',
    ]);
  });

  it('reports malformed annotation arguments', () => {
    expect(diagnosticsOf('@confirm(financial "x")\nA -> B')).toEqual([
      'unexpected-token 1:20-1:23',
    ]);
    expect(diagnosticsOf('@confirm("x", financial)\nA -> B')).toEqual([
      'unexpected-token 1:13-1:14',
    ]);
    expect(diagnosticsOf('@repeat(x)\nA -> B')).toEqual(['unexpected-token 1:9-1:10']);
  });
});

describe('guards', () => {
  it.each([
    ['reject A()', { mode: 'reject', constraints: [] }],
    ['Reject A() BECAUSE "no"', { mode: 'reject', constraints: [], reason: 'no' }],
    ['confirm A(x > 1, y = "z")', { mode: 'confirm', constraints: [{}, {}] }],
    ["CONFIRM A(x = 1) because 'sure'", { mode: 'confirm', reason: 'sure' }],
    ['1. reject A();', { mode: 'reject' }],
  ])('reads %s', (source, expected) => {
    const guard = ast(source).items[0] as GuardNode;
    expect(guard).toMatchObject({ kind: 'guard', predicate: { name: 'A' }, ...expected });
  });

  it('leaves out the reason when there is none', () => {
    expect(ast('reject A()').items[0]).not.toHaveProperty('reason');
  });

  it('reads a rule whose first atom is named like the guard keyword', () => {
    expect(rule('Confirm -> Done').body[0]).toMatchObject({ name: { name: 'Confirm' } });
    expect(rule('confirm(x = 1) -> Done').body[0]).toMatchObject({ name: { name: 'confirm' } });
  });

  it('reports a guard without parentheses or without a quoted reason', () => {
    expect(diagnosticsOf('reject A\nB -> Done')).toEqual(['unexpected-token 2:1-2:2']);
    expect(diagnosticsOf('reject A() because no')).toEqual(['unexpected-token 1:20-1:22']);
    expect(parseWithDiagnostics('reject A() because no').diagnostics[0]?.message).toBe(
      "Expected a quoted reason after because, found 'no'.",
    );
  });
});

describe('comments', () => {
  it('attaches comments to the item below, and same-line comments to the item before', () => {
    const spec = ast(
      [
        '# about A',
        '// also about A',
        'A -> B # trailing A',
        'B -> C; C -> D # trailing C',
        'reject X() # trailing guard',
        '# the end',
      ].join('\n'),
    );
    expect(spec.items.map((item) => item.comments)).toEqual([
      ['about A', 'also about A', 'trailing A'],
      [],
      ['trailing C'],
      ['trailing guard'],
    ]);
    expect(spec.trailingComments).toEqual(['the end']);
  });

  it('keeps comments inside a rule that spans lines with that rule', () => {
    const parsed = rule('A(x = 1, # first\n  y = 2) # second\n  -> B');
    expect(parsed.comments).toEqual(['first', 'second']);
  });

  it('keeps comments between annotations and their rule', () => {
    expect(rule('@confirm\n# why\nA -> B').comments).toEqual(['why']);
  });
});

describe('extraction', () => {
  it('parses a fenced spec and warns with the range of what was kept', () => {
    const source = 'Here is the spec:\n```intent\nA -> Done\n```\nLet me know.';
    const parsed = parseWithDiagnostics(source);
    expect(spots(parsed.diagnostics)).toEqual(['extracted-spec 3:1-4:1']);
    expect(parsed.diagnostics[0]?.message).toBe(
      'Took the spec from a Markdown code fence; the text around it was ignored.',
    );
    expect(span(parsed.value.ast.items[0]?.range)).toBe('3:1-3:10');
  });

  it('reads the whole text as spec with extract: false', () => {
    const parsed = parseWithDiagnostics('```\nA -> Done\n```', { extract: false });
    expect(codes(parsed.diagnostics)).toEqual(['unexpected-character', 'unexpected-character']);
  });
});

describe('error recovery', () => {
  it('reports every error and still parses the valid rules after them', () => {
    const source = [
      'A(x = ) -> B',
      'B -> C(y = 1)',
      'C(z = Two Words) -> D',
      'D & Done -> E',
      'E(w = 1,000) -> F',
      'F -> G & H',
      'G(v = "open) -> H',
      'Good(q = 1) -> Done',
      'H -> ',
      'Fine -> Done',
      'Last -> Done',
    ].join('\n');
    const parsed = parseWithDiagnostics(source);
    expect(spots(sortDiagnostics(parsed.diagnostics))).toEqual([
      'unexpected-token 1:7-1:8',
      'head-with-constraints 2:8-2:13',
      'unquoted-text 3:7-3:16',
      'done-in-body 4:5-4:9',
      'number-with-comma 5:7-5:12',
      'multiple-heads 6:8-6:11',
      'unterminated-string 7:7-7:18',
      'unexpected-token 10:6-10:8',
    ]);
    expect(
      parsed.value.ast.items.map((item) => (item.kind === 'rule' ? item.body[0] : undefined)),
    ).toMatchObject([{ name: { name: 'Good' } }, { name: { name: 'Last' } }]);
  });

  it('reports a second arrow instead of reading an always-true rule out of it', () => {
    const parsed = parseWithDiagnostics('A -> B -> C\nC -> Done');
    expect(spots(parsed.diagnostics)).toEqual(['unexpected-token 1:8-1:10']);
    expect(parsed.diagnostics[0]?.message).toBe(
      "Expected the end of the rule (a rule has one '->'), found '->'.",
    );
    expect(parsed.value.ast.items).toHaveLength(1);
    expect(rules('A -> B\n-> C').map((item) => item.body.length)).toEqual([1, 0]);
  });

  it('reports no second error right after an unterminated string or regex', () => {
    for (const [source, diagnostic] of [
      ['A(x = "open) -> B\nC -> Done', 'unterminated-string 1:7-1:18'],
      ['A(x = “open”, y = ‘open) -> B\nC -> Done', 'unterminated-string 1:19-1:30'],
      ['A(x matches /open) -> B\nC -> Done', 'unterminated-regex 1:13-1:24'],
      ['A(x matches /open\\/i) -> B\nC -> Done', 'unterminated-regex 1:13-1:27'],
    ] as const) {
      const parsed = parseWithDiagnostics(source);
      expect(spots(parsed.diagnostics)).toEqual([diagnostic]);
      expect(parsed.value.ast.items).toHaveLength(1);
    }
    expect(diagnosticsOf('A(x = "closed" y) -> B')).toEqual(['unexpected-token 1:16-1:17']);
    expect(diagnosticsOf('A(x matches /a/i y) -> B')).toEqual(['unexpected-token 1:18-1:19']);
  });

  it('recovers at the next ; or . on the same line', () => {
    const parsed = parseWithDiagnostics('A( -> B; C -> Done');
    expect(spots(parsed.diagnostics)).toEqual(['unexpected-token 1:4-1:6']);
    expect(parsed.value.ast.items).toHaveLength(1);
  });

  it('does not stop at line starts inside brackets while recovering', () => {
    const parsed = parseWithDiagnostics('A(x = [1,\n2 3]) -> B\nC -> Done');
    expect(spots(parsed.diagnostics)).toEqual(['unexpected-token 2:3-2:4']);
    expect(parsed.value.ast.items).toHaveLength(1);
  });
});

describe('limits', () => {
  it('reports input over maxInputLength without reading it', () => {
    const parsed = parseWithDiagnostics('A -> Done', { limits: { maxInputLength: 5 } });
    expect(spots(parsed.diagnostics)).toEqual(['input-too-long 1:1-1:1']);
    expect(parsed.diagnostics[0]?.message).toBe(
      'The spec is 9 characters long; at most 5 are accepted.',
    );
    expect(parsed.value.ast.items).toEqual([]);
  });

  it('reports too many items once and keeps the first ones', () => {
    const parsed = parseWithDiagnostics('A -> B\nB -> C\nC -> D\nD -> Done', {
      limits: { maxItems: 2 },
    });
    expect(spots(parsed.diagnostics)).toEqual(['too-many-items 3:1-4:10']);
    expect(parsed.value.ast.items).toHaveLength(2);
  });

  it('reports too many atoms, constraints and list elements', () => {
    const limits = { maxBodyAtoms: 2, maxConstraints: 2, maxListLength: 2 };
    expect(diagnosticsOf('A & B & C -> D', { limits })).toEqual(['too-many-atoms 1:9-1:10']);
    expect(diagnosticsOf('A(a=1, b=2, c=3) -> D', { limits })).toEqual([
      'too-many-constraints 1:13-1:14',
    ]);
    expect(diagnosticsOf('A(a in [1, 2, 3]) -> D', { limits })).toEqual([
      'list-too-long 1:15-1:16',
    ]);
    expect(diagnosticsOf('A & B -> D\nA(a=1, b=2) & B(c in [1, 2]) -> D', { limits })).toEqual([]);
  });

  it('reports lists nested too deep', () => {
    expect(diagnosticsOf('A(x = [[[1]]]) -> B', { limits: { maxNestingDepth: 2 } })).toEqual([
      'nesting-too-deep 1:9-1:10',
    ]);
    expect(diagnosticsOf('A(x = [[1]]) -> B', { limits: { maxNestingDepth: 2 } })).toEqual([]);
  });

  it('summarises diagnostics past the limit in one', () => {
    const parsed = parseWithDiagnostics('$\n'.repeat(10), { limits: { maxDiagnostics: 3 } });
    expect(codes(parsed.diagnostics)).toEqual([
      'unexpected-character',
      'unexpected-character',
      'unexpected-character',
      'too-many-diagnostics',
    ]);
    expect(parsed.diagnostics[3]?.range).toBeUndefined();
    expect(parsed.diagnostics[3]?.message).toBe(
      'More than 3 problems were found; the rest are not shown.',
    );
  });
});

describe('keywords', () => {
  it('reads keywords in any case', () => {
    expect(
      shape('@CONFIRM(FINANCIAL)\nTRUE -> DONE\nREJECT A(x NOT IN [TODAY], y = FALSE) BECAUSE "r"'),
    ).toEqual(
      shape('@confirm(financial)\ntrue -> Done\nreject A(x not in [today], y = false) because "r"'),
    );
  });
});
