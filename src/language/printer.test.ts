import { describe, expect, it } from 'vitest';
import { spots } from '../../test/support/syntax.js';
import type { SpecNode, ValueNode } from './ast.js';
import { parseWithDiagnostics } from './parser.js';
import {
  print,
  printAnnotation,
  printGuard,
  printNumber,
  printString,
  printValue,
} from './printer.js';
import { LineIndex } from './source-range.js';

const nowhere = new LineIndex('').range(0, 0);

function format(source: string): string {
  const parsed = parseWithDiagnostics(source);
  expect(spots(parsed.diagnostics)).toEqual([]);
  return print(parsed.value.ast);
}

function reparsedValue(printed: string): string {
  const parsed = parseWithDiagnostics(`A(x = ${printed}) -> B`);
  expect(spots(parsed.diagnostics)).toEqual([]);
  const rule = parsed.value.ast.items[0];
  if (rule?.kind !== 'rule' || rule.body[0]?.kind !== 'pattern') throw new Error('no pattern');
  const value = rule.body[0].constraints[0]?.value;
  if (value?.kind !== 'string') throw new Error('not a string');
  return value.value;
}

describe('print', () => {
  it('prints the VeriSafe-style line in canonical ASCII', () => {
    expect(format('1. A(x=(5, >)) ∧ B(y="k") → Act()')).toBe('A(x > 5) & B(y = "k") -> Act\n');
  });

  it('prints every operator in its ASCII spelling', () => {
    expect(
      format(
        'A(a == 1, b ≠ 2, c <> 3, d ≃ "x", e ≈ "y", f !~ "z", g ≤ 4, h ≥ 5, i ∈ [1], j ⊆ [2], k ∉ [3], l ⊄ [4], m ⊈ [5], n NOT IN [6], o Contains "p", q not contains "r", s matches /a\\/b[/]/i, t not matches //) and B => Done',
      ),
    ).toBe(
      'A(a = 1, b != 2, c != 3, d ~ "x", e ~ "y", f !~ "z", g <= 4, h >= 5, i in [1], j in [2], k not in [3], l not in [4], m not in [5], n not in [6], o contains "p", q not contains "r", s matches /a\\/b[/]/i, t not matches //) & B -> Done\n',
    );
  });

  it('prints one item per line with annotations above and comments above those', () => {
    const source = [
      '# first',
      '@confirm(FINANCIAL, "sure?") @REPEAT(2) 1. L1: A(x = 1_000, y = TODAY) , B -> X; # same line',
      "Reject A(x > 1e6) Because 'too much'",
      'TRUE -> DONE.',
      '# last',
    ].join('\n');
    expect(format(source)).toBe(
      [
        '# first',
        '# same line',
        '@confirm(financial, "sure?")',
        '@repeat(2)',
        'L1: A(x = 1000, y = today) & B -> X',
        'reject A(x > 1000000) because "too much"',
        'true -> Done',
        '# last',
        '',
      ].join('\n'),
    );
  });

  it('prints empty parentheses only in the body, never on the head', () => {
    expect(format('A() & B -> C()')).toBe('A() & B -> C\n');
  });

  it('prints the empty spec as the empty text and a bare comment as #', () => {
    expect(format('')).toBe('');
    expect(format('#\n#   spaced   \n')).toBe('#\n# spaced\n');
  });

  it('prints the example specs so that printing again changes nothing', () => {
    const clock = [
      '1. AlarmTimeSelection(selected_hour = 3, selected_minute = 0, selected_period = AM) → SetAlarm()',
      '3. SetAlarm() ∧ StartTimer() ∧ TimerCurrentState(timer_status = Running) → Done()',
    ].join('\n');
    const printed = format(clock);
    expect(printed).toBe(
      [
        'AlarmTimeSelection(selected_hour = 3, selected_minute = 0, selected_period = AM) -> SetAlarm',
        'SetAlarm() & StartTimer() & TimerCurrentState(timer_status = Running) -> Done',
        '',
      ].join('\n'),
    );
    expect(format(printed)).toBe(printed);
  });

  it('prints a tree built by hand', () => {
    const spec: SpecNode = {
      kind: 'spec',
      items: [
        {
          kind: 'rule',
          annotations: [{ kind: 'repeat', range: nowhere }],
          body: [
            {
              kind: 'count',
              name: { name: 'Upvote', range: nowhere },
              operator: '>=',
              count: 3,
              range: nowhere,
            },
          ],
          head: { name: { name: 'Done', range: nowhere }, isDone: true, range: nowhere },
          comments: [],
          range: nowhere,
        },
        {
          kind: 'guard',
          mode: 'confirm',
          predicate: { name: 'Send', range: nowhere },
          constraints: [],
          comments: ['why'],
          range: nowhere,
        },
      ],
      trailingComments: ['end'],
      range: nowhere,
    };
    expect(print(spec)).toBe('@repeat\nUpvote >= 3 -> Done\n# why\nconfirm Send()\n# end\n');
  });
});

describe('printValue', () => {
  const at = { range: nowhere };
  it.each<[ValueNode, string]>([
    [{ kind: 'string', value: 'a b', ...at }, '"a b"'],
    [{ kind: 'number', value: -2.5, ...at }, '-2.5'],
    [{ kind: 'boolean', value: false, ...at }, 'false'],
    [{ kind: 'date', value: '2025-03-14', ...at }, '2025-03-14'],
    [{ kind: 'time', value: '07:05', ...at }, '07:05'],
    [{ kind: 'datetime', value: '2025-03-14T07:05:09', ...at }, '2025-03-14T07:05:09'],
    [{ kind: 'relative', value: 'tomorrow', ...at }, 'tomorrow'],
    [{ kind: 'name', value: 'Uber', ...at }, 'Uber'],
    [{ kind: 'regex', pattern: '^a\\/b$', flags: 'iu', ...at }, '/^a\\/b$/iu'],
    [
      {
        kind: 'list',
        elements: [
          { kind: 'number', value: 1, ...at },
          { kind: 'list', elements: [], ...at },
        ],
        ...at,
      },
      '[1, []]',
    ],
  ])('prints %j as %s', (value, text) => {
    expect(printValue(value)).toBe(text);
  });
});

describe('printNumber', () => {
  it.each([
    [0, '0'],
    [-0, '0'],
    [-12, '-12'],
    [3.5, '3.5'],
    [1e21, '1e+21'],
    [1.5e-7, '1.5e-7'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
    [Number.MAX_VALUE, '1.7976931348623157e+308'],
    [Number.MIN_VALUE, '5e-324'],
  ])('prints %d as %s, which reads back to the same number', (value, text) => {
    expect(printNumber(value)).toBe(text);
    const parsed = parseWithDiagnostics(`A(x = ${text}) -> B`);
    expect(parsed.diagnostics).toEqual([]);
    expect(parsed.value.ast.items[0]).toMatchObject({
      body: [{ constraints: [{ value: { kind: 'number', value: value === 0 ? 0 : value } }] }],
    });
  });
});

describe('printNumber: exact decimals', () => {
  it.each([
    ['1234567890123456789', '1234567890123456789'],
    ['1_234_567_890_123_456_789', '1234567890123456789'],
    ['500.00000000000000001', '500.00000000000000001'],
    ['-0.000000123456789012345678901', '-1.23456789012345678901e-7'],
    ['12345678901234567890e10', '1.234567890123456789e+29'],
    ['12345678901234567890', '12345678901234567890'],
    ['1.2345678901234567891e300', '1.2345678901234567891e+300'],
  ])('formats %s as %s, the same value', (source, text) => {
    expect(format(`DeleteTweet(id = ${source}) -> Deleted`)).toBe(
      `DeleteTweet(id = ${text}) -> Deleted\n`,
    );
    // Printing what was printed changes nothing: fmt never moves a literal to another value.
    expect(format(`DeleteTweet(id = ${text}) -> Deleted`)).toBe(
      `DeleteTweet(id = ${text}) -> Deleted\n`,
    );
  });
});

describe('printString', () => {
  it.each([
    ['plain', '"plain"'],
    ['say "hi"', '"say \\"hi\\""'],
    ["it's", '"it\'s"'],
    ['back\\slash', '"back\\\\slash"'],
    ['a\nb', '"a\\nb"'],
    ['a\tb', '"a\\tb"'],
    ['\r', '"\\u{d}"'],
    ['\u0000\u001f\u007f', '"\\u{0}\\u{1f}\\u{7f}"'],
    ['\u2028\u2029', '"\\u{2028}\\u{2029}"'],
    ['a\u202eb\u200dc\u{e0001}', '"a\\u{202e}b\\u{200d}c\\u{e0001}"'],
    ['\ud800x\udfff', '"\\u{d800}x\\u{dfff}"'],
    ['😀 “quoted” ‘single’', '"😀 “quoted” ‘single’"'],
    ['', '""'],
  ])('prints %j as %s and reads it back', (value, text) => {
    expect(printString(value)).toBe(text);
    expect(reparsedValue(text)).toBe(value);
  });
});

describe('printAnnotation and printGuard', () => {
  it.each([
    [{ kind: 'confirm' as const, range: nowhere }, '@confirm'],
    [
      { kind: 'confirm' as const, category: 'privacy' as const, range: nowhere },
      '@confirm(privacy)',
    ],
    [{ kind: 'confirm' as const, message: 'a "b"', range: nowhere }, '@confirm("a \\"b\\"")'],
    [
      { kind: 'confirm' as const, category: 'ethics' as const, message: '', range: nowhere },
      '@confirm(ethics, "")',
    ],
    [{ kind: 'repeat' as const, range: nowhere }, '@repeat'],
    [{ kind: 'repeat' as const, limit: 4, range: nowhere }, '@repeat(4)'],
  ])('prints %j as %s', (annotation, text) => {
    expect(printAnnotation(annotation)).toBe(text);
  });

  it('prints guards with and without a reason', () => {
    const guard = {
      kind: 'guard' as const,
      mode: 'reject' as const,
      predicate: { name: 'Pay', range: nowhere },
      constraints: [
        {
          kind: 'constraint' as const,
          variable: { name: 'to', range: nowhere },
          operator: 'not in' as const,
          value: { kind: 'list' as const, elements: [], range: nowhere },
          range: nowhere,
        },
      ],
      comments: [],
      range: nowhere,
    };
    expect(printGuard(guard)).toBe('reject Pay(to not in [])');
    expect(printGuard({ ...guard, reason: 'line\nbreak' })).toBe(
      'reject Pay(to not in []) because "line\\nbreak"',
    );
  });
});
