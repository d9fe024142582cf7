import { describe, expect, it } from 'vitest';
import { spots } from '../../test/support/syntax.js';
import { DiagnosticBag } from './diagnostics/diagnostic.js';
import { lex, regexProblem } from './lexer.js';
import { type Limits, resolveLimits } from './limits.js';
import { LineIndex } from './source-range.js';

function lexText(text: string, limits?: Partial<Limits>, start = 0, end = text.length) {
  const resolved = resolveLimits(limits);
  const diagnostics = new DiagnosticBag(resolved.maxDiagnostics);
  const result = lex(text, start, end, new LineIndex(text), diagnostics, resolved);
  return { ...result, diagnostics: diagnostics.items };
}

/** `kind:text` for every token, the compact form most tests compare. */
function kinds(text: string): string[] {
  return lexText(text).tokens.map((token) => `${token.kind}:${token.text}`);
}

function only(text: string) {
  const { tokens, diagnostics } = lexText(text);
  expect(diagnostics).toEqual([]);
  expect(tokens).toHaveLength(1);
  return tokens[0]!;
}

describe('symbols', () => {
  it.each([
    ['(', '('],
    [')', ')'],
    ['[', '['],
    [']', ']'],
    [',', ','],
    ['.', '.'],
    [';', ';'],
    [':', ':'],
    ['&', '&'],
    ['∧', '&'],
    ['->', '->'],
    ['→', '->'],
    ['⇒', '->'],
    ['=>', '->'],
    ['=', '='],
    ['==', '='],
    ['!=', '!='],
    ['≠', '!='],
    ['<>', '!='],
    ['~', '~'],
    ['≃', '~'],
    ['≈', '~'],
    ['!~', '!~'],
    ['<', '<'],
    ['<=', '<='],
    ['≤', '<='],
    ['>', '>'],
    ['>=', '>='],
    ['≥', '>='],
    ['∈', 'in'],
    ['⊆', 'in'],
    ['∉', 'not in'],
    ['⊄', 'not in'],
    ['⊈', 'not in'],
  ])('reads %s as the symbol %s', (spelling, symbol) => {
    const token = only(spelling);
    expect(token).toMatchObject({ kind: 'symbol', text: symbol, start: 0, end: spelling.length });
  });

  it('prefers two-character symbols to single ones', () => {
    expect(kinds('a<=b')).toEqual(['identifier:a', 'symbol:<=', 'identifier:b']);
    expect(kinds('a<b')).toEqual(['identifier:a', 'symbol:<', 'identifier:b']);
    expect(kinds('x=-5')).toEqual(['identifier:x', 'symbol:=', 'number:-5']);
    expect(kinds('x<-5')).toEqual(['identifier:x', 'symbol:<', 'number:-5']);
  });

  it('keeps word operators as identifiers for the parser to read', () => {
    expect(kinds('and in not contains matches AND')).toEqual([
      'identifier:and',
      'identifier:in',
      'identifier:not',
      'identifier:contains',
      'identifier:matches',
      'identifier:AND',
    ]);
  });
});

describe('identifiers and whitespace', () => {
  it('reads identifiers with digits and underscores and keeps their case', () => {
    expect(kinds('_a1 Done TRUE b_2')).toEqual([
      'identifier:_a1',
      'identifier:Done',
      'identifier:TRUE',
      'identifier:b_2',
    ]);
  });

  it('records whether a line break precedes each token', () => {
    const { tokens } = lexText('A B\n  C\r\nD');
    expect(tokens.map((token) => token.newlineBefore)).toEqual([true, false, true, true]);
  });

  it('treats tabs, carriage returns, no-break spaces and byte order marks as spaces', () => {
    const { tokens, diagnostics } = lexText('\ufeffA\t\u00a0B\r');
    expect(diagnostics).toEqual([]);
    expect(tokens.map((token) => token.text)).toEqual(['A', 'B']);
  });

  it('reports names over the identifier length limit', () => {
    const { diagnostics, tokens } = lexText('abcdef x', { maxIdentifierLength: 5 });
    expect(spots(diagnostics)).toEqual(['literal-too-long 1:1-1:7']);
    expect(diagnostics[0]?.data).toMatchObject({ what: 'name', length: 6, limit: 5 });
    expect(tokens).toHaveLength(2);
  });

  it('reads annotations as the name after @', () => {
    expect(only('@confirm')).toMatchObject({ kind: 'annotation', text: 'confirm', end: 8 });
    expect(only('@Repeat')).toMatchObject({ kind: 'annotation', text: 'Repeat' });
  });

  it('reports an @ that is not followed by a name', () => {
    const { diagnostics, tokens } = lexText('@ (');
    expect(spots(diagnostics)).toEqual(['unexpected-character 1:1-1:2']);
    expect(tokens.map((token) => token.text)).toEqual(['(']);
  });
});

describe('comments', () => {
  it('collects # and // comments, trimmed, with their offsets', () => {
    const { tokens, comments } = lexText('# one \nA // two\r\nB #');
    expect(tokens.map((token) => token.text)).toEqual(['A', 'B']);
    expect(comments).toEqual([
      { text: 'one', start: 0, end: 6 },
      { text: 'two', start: 9, end: 15 },
      { text: '', start: 19, end: 20 },
    ]);
  });

  it('ends a comment at a lone carriage return (old Mac line endings)', () => {
    const { tokens, comments } = lexText('# one\rA -> B // two\rB -> Done');
    expect(tokens.map((token) => token.text)).toEqual(['A', '->', 'B', 'B', '->', 'Done']);
    expect(tokens.map((token) => token.newlineBefore)).toEqual([
      true,
      false,
      false,
      true,
      false,
      false,
    ]);
    expect(comments).toEqual([
      { text: 'one', start: 0, end: 5 },
      { text: 'two', start: 13, end: 19 },
    ]);
  });

  it('does not treat // after matches as a comment: it is the empty regex', () => {
    const { tokens, comments } = lexText('x matches // # not a comment either');
    expect(comments).toEqual([{ text: 'not a comment either', start: 13, end: 35 }]);
    expect(tokens[2]).toMatchObject({ kind: 'regex', text: '', flags: '', start: 10, end: 12 });
  });

  it('reads // after not matches as a regex, whatever the keyword case', () => {
    expect(kinds('x not MATCHES //i')).toEqual([
      'identifier:x',
      'identifier:not',
      'identifier:MATCHES',
      'regex:',
    ]);
  });

  it('stops a run of unknown characters at the start of a // comment', () => {
    const { diagnostics, comments } = lexText('$// note');
    expect(spots(diagnostics)).toEqual(['unexpected-character 1:1-1:2']);
    expect(comments).toEqual([{ text: 'note', start: 1, end: 8 }]);
  });
});

describe('strings', () => {
  it.each([
    ['"plain"', 'plain'],
    ["'single'", 'single'],
    ['"it\'s"', "it's"],
    ['\'say "hi"\'', 'say "hi"'],
    ['"a\\"b"', 'a"b'],
    ["'a\\'b'", "a'b"],
    ['"back\\\\slash"', 'back\\slash'],
    ['"line\\nbreak"', 'line\nbreak'],
    ['"tab\\there"', 'tab\there'],
    ['"\\u{1F600}"', '😀'],
    ['"\\u{41}\\u{0042}"', 'AB'],
    ['"\\u{10FFFF}"', '\u{10ffff}'],
    ['“typographic”', 'typographic'],
    ['‘single typographic’', 'single typographic'],
    ['"ünïcödé 中文"', 'ünïcödé 中文'],
    ['""', ''],
  ])('decodes %s', (source, value) => {
    const { tokens, diagnostics } = lexText(source);
    expect(diagnostics).toEqual([]);
    expect(tokens[0]).toMatchObject({ kind: 'string', text: value, start: 0 });
  });

  it('ends a typographic string at the first closing quote', () => {
    const { tokens, diagnostics } = lexText("“it's “nested” fine”");
    expect(tokens[0]).toMatchObject({ kind: 'string', text: "it's “nested", end: 14 });
    expect(spots(diagnostics)).toEqual(['unexpected-character 1:20-1:21']);
  });

  it('ends a string at its closing quote and records the range of the literal', () => {
    expect(lexText('x = "ab" y').tokens[2]).toMatchObject({ kind: 'string', start: 4, end: 8 });
  });

  it.each([
    ['"a\\qb"', 'invalid-escape 1:3-1:5'],
    ['"\\u{110000}"', 'invalid-escape 1:2-1:4'],
    ['"\\u{}"', 'invalid-escape 1:2-1:4'],
    ['"\\u{1234567}"', 'invalid-escape 1:2-1:4'],
    ['"\\u{12"', 'invalid-escape 1:2-1:4'],
    ['"\\u{zz}"', 'invalid-escape 1:2-1:4'],
  ])('reports the invalid escape in %s and keeps lexing', (source, diagnostic) => {
    const { tokens, diagnostics } = lexText(source);
    expect(spots(diagnostics)).toEqual([diagnostic]);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.kind).toBe('string');
  });

  it('keeps the escaped character out of the value after an invalid escape', () => {
    expect(lexText('"a\\qb"').tokens[0]?.text).toBe('ab');
  });

  it('looks for the closing brace of \\u{ only within six digits (linear time)', () => {
    const text = `"${'\\u{'.repeat(100_000)}"`;
    const started = performance.now();
    const { tokens, diagnostics } = lexText(text);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(tokens).toHaveLength(1);
    expect(diagnostics.at(-1)?.code).toBe('too-many-diagnostics');
  });

  it('reports an unterminated string up to the end of its line and lexes the next line', () => {
    const { tokens, diagnostics } = lexText('x = "open\nB');
    expect(spots(diagnostics)).toEqual(['unterminated-string 1:5-1:10']);
    expect(diagnostics[0]?.hint).toBe('Close it with ".');
    expect(tokens.map((token) => `${token.kind}:${token.text}`)).toEqual([
      'identifier:x',
      'symbol:=',
      'string:open',
      'identifier:B',
    ]);
  });

  it('names the typographic closing quote in the hint', () => {
    const { diagnostics } = lexText('“open');
    expect(spots(diagnostics)).toEqual(['unterminated-string 1:1-1:6']);
    expect(diagnostics[0]?.hint).toBe('Close it with ”.');
  });

  it('reports a backslash before the line break as an invalid escape', () => {
    const { diagnostics } = lexText('"abc\\\nB');
    expect(spots(diagnostics)).toEqual(['invalid-escape 1:5-1:6', 'unterminated-string 1:1-1:6']);
    expect(diagnostics[0]?.message).toBe("'\\U+000A' is not a valid escape in a string.");
  });

  it('reports an escaped character outside the basic plane whole', () => {
    const { diagnostics, tokens } = lexText('"\\😀x"');
    expect(spots(diagnostics)).toEqual(['invalid-escape 1:2-1:5']);
    expect(diagnostics[0]?.message).toBe("'\\😀' is not a valid escape in a string.");
    expect(tokens[0]?.text).toBe('x');
  });

  it('reports strings over the length limit', () => {
    const { diagnostics } = lexText('"abcdef"', { maxStringLength: 5 });
    expect(spots(diagnostics)).toEqual(['literal-too-long 1:1-1:9']);
    expect(diagnostics[0]?.data).toMatchObject({ what: 'string', length: 6, limit: 5 });
  });
});

describe('numbers', () => {
  it.each([
    ['0', 0],
    ['-12', -12],
    ['3.5', 3.5],
    ['-0.25', -0.25],
    ['1e6', 1e6],
    ['2E-3', 0.002],
    ['1.5e+2', 150],
    ['1_000', 1000],
    ['1_000_000.5', 1000000.5],
  ])('reads %s as %d', (source, value) => {
    expect(only(source)).toMatchObject({ kind: 'number', text: source, number: value });
  });

  it('reads a number beyond double precision exactly', () => {
    const token = only('1234567890123456789');
    expect(token).toMatchObject({ kind: 'number', number: 1234567890123456800 });
    expect(String(token.decimal)).toBe('1234567890123456789');
    expect(only('-500.000_000_000_000_000_01').decimal?.toString()).toBe('-500.00000000000000001');
    expect(only('1234567890123456800').decimal).toBeUndefined();
  });

  it('quotes at most a few dozen characters of a malformed number', () => {
    const { diagnostics } = lexText(`${'9'.repeat(4_000_000)}x`);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.message.length).toBeLessThan(120);
  });

  it('reads a rule number: the dot after 1 is a separate symbol', () => {
    expect(kinds('1. A')).toEqual(['number:1', 'symbol:.', 'identifier:A']);
  });

  it('reads -> after a name as the arrow, not as a negative number', () => {
    expect(kinds('A->B')).toEqual(['identifier:A', 'symbol:->', 'identifier:B']);
  });

  it.each([
    ['12px', 'invalid-number 1:1-1:5', 'Quote text values, e.g. "12px".'],
    ['3rd', 'invalid-number 1:1-1:4', 'Quote text values, e.g. "3rd".'],
    ['1e', 'invalid-number 1:1-1:3', 'Quote text values, e.g. "1e".'],
    ['1__0', 'invalid-number 1:1-1:5', 'Underscores may only separate digits, as in 1_000.'],
    ['1_', 'invalid-number 1:1-1:3', 'Underscores may only separate digits, as in 1_000.'],
    ['1_.5', 'invalid-number 1:1-1:5', 'Underscores may only separate digits, as in 1_000.'],
    [
      '1e999',
      'invalid-number 1:1-1:6',
      'The number is too large: numbers must lie within ±1.7976931348623157e308.',
    ],
    [
      '1e-400',
      'invalid-number 1:1-1:7',
      'The number is too close to zero to be represented (below 5e-324); write 0 if zero is meant.',
    ],
    [
      '1'.repeat(101),
      'invalid-number 1:1-1:102',
      'A number may have at most 100 significant digits; write it as text if it is an identifier.',
    ],
  ])('reports %s as an invalid number', (source, diagnostic, hint) => {
    const { tokens, diagnostics } = lexText(source);
    expect(spots(diagnostics)).toEqual([diagnostic]);
    expect(diagnostics[0]?.hint).toBe(hint);
    expect(tokens).toHaveLength(1);
    expect(tokens[0]).toMatchObject({ kind: 'number', end: source.length });
  });

  it('leaves 1,000 to the parser: the comma is a symbol here', () => {
    expect(kinds('1,000')).toEqual(['number:1', 'symbol:,', 'number:000']);
  });
});

describe('dates and times', () => {
  it.each([
    ['2025-03-14', 'date', '2025-03-14'],
    ['2024-02-29', 'date', '2024-02-29'],
    ['2000-02-29', 'date', '2000-02-29'],
    ['19:00', 'time', '19:00'],
    ['7:05', 'time', '07:05'],
    ['19:00:30', 'time', '19:00:30'],
    ['0:00', 'time', '00:00'],
    ['23:59:59', 'time', '23:59:59'],
    ['2025-03-14T19:00', 'datetime', '2025-03-14T19:00'],
    ['2025-03-14T7:00', 'datetime', '2025-03-14T07:00'],
    ['2025-03-14T19:00:30', 'datetime', '2025-03-14T19:00:30'],
  ])('reads %s as a %s', (source, kind, text) => {
    expect(only(source)).toMatchObject({ kind, text, start: 0, end: source.length });
  });

  it.each([
    ['2025-02-30', 'date'],
    ['2023-02-29', 'date'],
    ['1900-02-29', 'date'],
    ['2025-13-01', 'date'],
    ['2025-00-10', 'date'],
    ['2025-04-31', 'date'],
    ['2025-01-00', 'date'],
    ['24:00', 'time'],
    ['12:60', 'time'],
    ['12:00:60', 'time'],
    ['2025-03-14T24:00', 'date-time'],
    ['2025-02-30T10:00', 'date-time'],
  ])('reports %s as an invalid %s', (source, what) => {
    const { tokens, diagnostics } = lexText(source);
    expect(spots(diagnostics)).toEqual([`invalid-date 1:1-1:${source.length + 1}`]);
    expect(diagnostics[0]?.message).toBe(`'${source}' is not a valid ${what}.`);
    expect(tokens).toHaveLength(1);
  });

  it('does not read a time out of a longer number', () => {
    expect(kinds('123:45')).toEqual(['number:123', 'symbol::', 'number:45']);
  });
});

describe('regular expressions', () => {
  it('reads a regex only after matches, with its flags', () => {
    const { tokens, diagnostics } = lexText('x matches /a\\/b[/]c/iu)');
    expect(diagnostics).toEqual([]);
    expect(tokens[2]).toMatchObject({
      kind: 'regex',
      text: 'a\\/b[/]c',
      flags: 'iu',
      start: 10,
      end: 22,
    });
    expect(tokens[3]).toMatchObject({ kind: 'symbol', text: ')' });
  });

  it('reports a slash anywhere else as an unexpected character', () => {
    const { diagnostics } = lexText('x = /a/');
    expect(spots(diagnostics)).toEqual([
      'unexpected-character 1:5-1:6',
      'unexpected-character 1:7-1:8',
    ]);
  });

  it.each([
    ['x matches /a/g', "the flag 'g' is not allowed (use i, m, s or u)"],
    ['x matches /a/y', "the flag 'y' is not allowed (use i, m, s or u)"],
    ['x matches /a/ii', 'a flag is repeated'],
  ])('reports %s as an invalid regex', (source, reason) => {
    const { diagnostics } = lexText(source);
    expect(spots(diagnostics)).toEqual([`invalid-regex 1:11-1:${source.length + 1}`]);
    expect(diagnostics[0]?.data).toMatchObject({ reason });
  });

  it('reports a pattern that RE2 cannot compile, naming the pattern once', () => {
    const { diagnostics } = lexText('x matches /(a/');
    expect(spots(diagnostics)).toEqual(['invalid-regex 1:11-1:15']);
    expect(diagnostics[0]?.message).toBe('Invalid regular expression /(a/: missing closing )');
    expect(diagnostics[0]?.hint).toMatch(/RE2 syntax/);
  });

  it.each([
    ['(a)\\1', "a backreference '\\1'"],
    ['(?<n>a)\\k<n>', "a backreference '\\k'"],
    ['a(?=b)', "lookahead '(?='"],
    ['a(?!b)', "lookahead '(?!'"],
    ['(?<=a)b', "lookbehind '(?<='"],
    ['(?<!a)b', "lookbehind '(?<!'"],
    ['(?>a)', "an atomic group '(?>'"],
    ['a++', "a possessive quantifier '++'"],
  ])('refuses /%s/, which needs backtracking, where it is written', (pattern, construct) => {
    const source = `x matches /${pattern}/`;
    const { diagnostics } = lexText(source);
    expect(spots(diagnostics)).toEqual([`invalid-regex 1:11-1:${source.length + 1}`]);
    expect(diagnostics[0]?.data).toMatchObject({
      reason: `${construct} is not supported (it needs backtracking)`,
    });
    expect(diagnostics[0]?.hint).toMatch(/linear time/);
  });

  it('accepts nested quantifiers: the engine runs them in linear time', () => {
    expect(lexText('x matches /(a+)+$/').diagnostics).toEqual([]);
    expect(lexText('x matches /^(\\w+\\s?)*$/').diagnostics).toEqual([]);
  });

  it('accepts JavaScript unicode escapes and named groups', () => {
    expect(regexProblem('\\u00e9|\\u{1F600}', '')).toBeUndefined();
    expect(regexProblem('(?<user>[a-z]+)@x\\.com', '')).toBeUndefined();
  });

  it('writes invisible characters of an invalid pattern as escapes in the message', () => {
    const { diagnostics } = lexText('x matches /\u202e(/');
    expect(diagnostics[0]?.message).toBe(
      'Invalid regular expression /\\u{202E}(/: missing closing )',
    );
  });

  it('reports an unterminated regex at the end of its line', () => {
    const { tokens, diagnostics } = lexText('x matches /ab\nB');
    expect(spots(diagnostics)).toEqual(['unterminated-regex 1:11-1:14']);
    expect(tokens.map((token) => token.kind)).toEqual([
      'identifier',
      'identifier',
      'regex',
      'identifier',
    ]);
  });

  it('does not let a backslash at the end of the line escape the line break', () => {
    const { tokens, diagnostics } = lexText('x matches /ab\\\nB -> C');
    expect(spots(diagnostics)).toEqual(['unterminated-regex 1:11-1:15']);
    expect(tokens.slice(3).map((token) => token.text)).toEqual(['B', '->', 'C']);
    expect(tokens[3]?.newlineBefore).toBe(true);
  });

  it('does not end a regex at a slash inside a character class', () => {
    expect(lexText('x matches /[/]/').tokens[2]?.text).toBe('[/]');
  });

  it('reports regexes over the length limit without compiling them', () => {
    const { diagnostics } = lexText('x matches /abcdef/', { maxStringLength: 5 });
    expect(spots(diagnostics)).toEqual(['literal-too-long 1:11-1:19']);
    expect(diagnostics[0]?.data).toMatchObject({ what: 'regular expression' });
  });

  it('explains regex problems', () => {
    expect(regexProblem('a+', 'ims')).toBeUndefined();
    expect(regexProblem('a', 'x')).toBe("the flag 'x' is not allowed (use i, m, s or u)");
    expect(regexProblem('[', '')).toBe('missing closing ]');
    expect(regexProblem('a{2,1}', '')).toBe("invalid repeat count: '{2,1}'");
  });
});

describe('unexpected characters', () => {
  it('reports a run of unknown characters once and resumes at the next token', () => {
    const { tokens, diagnostics } = lexText('A $%^ B');
    expect(spots(diagnostics)).toEqual(['unexpected-character 1:3-1:4']);
    expect(diagnostics[0]?.data).toEqual({ character: '$' });
    expect(tokens.map((token) => token.text)).toEqual(['A', 'B']);
  });

  it('reports a character outside the basic plane whole', () => {
    const { diagnostics } = lexText('😀');
    expect(spots(diagnostics)).toEqual(['unexpected-character 1:1-1:3']);
    expect(diagnostics[0]?.message).toBe("Unexpected character '😀'.");
  });

  it.each([
    ['\u202e', 'U+202E'],
    ['\u0000', 'U+0000'],
    ['\u2028', 'U+2028'],
    ['\ud800', 'U+D800'],
    ['\u{e0001}', 'U+E0001'],
  ])('names the invisible character %j by its code point', (character, name) => {
    const { diagnostics } = lexText(`A ${character} B`);
    expect(diagnostics[0]?.message).toBe(`Unexpected character '${name}'.`);
  });

  it('hints at the rewritten name for a `-` inside a tool name, once per name', () => {
    const { diagnostics } = lexText('Ready & trigger-elicitation-request() -> Asked');
    expect(spots(diagnostics)).toEqual([
      'unexpected-character 1:16-1:17',
      'unexpected-character 1:28-1:29',
    ]);
    expect(diagnostics[0]?.hint).toBe(
      "A spec names a tool as an identifier: the tool 'trigger-elicitation-request' is written trigger_elicitation_request.",
    );
    expect(diagnostics[1]?.hint).toBeUndefined();
  });

  it.each(['amount > -5', 'a - b', 'a -'])(
    'gives no name hint for a `-` outside a name: %j',
    (text) => {
      for (const diagnostic of lexText(text).diagnostics) expect(diagnostic.hint).toBeUndefined();
    },
  );

  it('reports a lone ! as unexpected', () => {
    expect(spots(lexText('a ! b').diagnostics)).toEqual(['unexpected-character 1:3-1:4']);
  });

  it('stops lexing once the diagnostic limit is reached', () => {
    const { diagnostics, tokens } = lexText('$ a $ b $ c $ d', { maxDiagnostics: 2 });
    expect(diagnostics.map((diagnostic) => diagnostic.code)).toEqual([
      'unexpected-character',
      'unexpected-character',
      'too-many-diagnostics',
    ]);
    expect(tokens.map((token) => token.text)).toEqual(['a', 'b']);
  });
});

describe('regions', () => {
  it('lexes only the region it is given, with offsets into the whole text', () => {
    const text = 'prose ```A -> B``` more';
    const { tokens } = lexText(text, undefined, 9, 15);
    expect(tokens.map((token) => [token.text, token.start, token.end])).toEqual([
      ['A', 9, 10],
      ['->', 11, 13],
      ['B', 14, 15],
    ]);
  });

  it('does not read a two-character symbol across the end of the region', () => {
    const { tokens } = lexText('a-> b', undefined, 0, 2);
    expect(tokens.map((token) => token.text)).toEqual(['a']);
  });
});
