import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../src/language/diagnostics/diagnostic.js';
import { defaultLimits } from '../../src/language/limits.js';
import { type ParseOptions, parseWithDiagnostics } from '../../src/language/parser.js';
import { print } from '../../src/language/printer.js';
import { LineIndex, type SourceRange } from '../../src/language/source-range.js';
import { specArbitrary } from '../support/arbitraries.js';
import { sharedPath } from '../support/shared.js';
import { codes, stripRanges } from '../support/syntax.js';

const examples = sharedPath('examples');
const exampleSpecs = readdirSync(examples, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => readFileSync(join(examples, entry.name, 'spec.intent'), 'utf8'));

/** Every range the parse produced: of diagnostics and of every node of the tree. */
function* rangesOf(value: unknown): Generator<SourceRange> {
  if (Array.isArray(value)) {
    for (const element of value) yield* rangesOf(element);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, field] of Object.entries(value)) {
      if (key === 'range') yield field as SourceRange;
      else yield* rangesOf(field);
    }
  }
}

/**
 * What must hold for any input: no exception, diagnostics bounded in number, and every
 * range inside the input with line and column matching its offset. Checked in a plain
 * loop and asserted once, because large inputs have hundreds of thousands of ranges.
 */
function checkInvariants(
  source: string,
  options?: ParseOptions,
  parsed = parseWithDiagnostics(source, options),
) {
  const lines = new LineIndex(source);
  // Errors and warnings are counted apart, each with one summary past the limit.
  const limit = options?.limits?.maxDiagnostics ?? defaultLimits.maxDiagnostics;
  for (const [severity, summary] of [
    ['error', 'too-many-diagnostics'],
    ['warning', 'too-many-warnings'],
  ] as const) {
    const found = parsed.diagnostics.filter((diagnostic) => diagnostic.severity === severity);
    expect(found.length).toBeLessThanOrEqual(limit + 1);
    const overflow = found.findIndex((diagnostic) => diagnostic.code === summary);
    expect([-1, found.length - 1]).toContain(overflow);
  }
  const wrong: SourceRange[] = [];
  for (const range of rangesOf([parsed.diagnostics, parsed.value.ast])) {
    const inside =
      range.start.offset >= 0 &&
      range.start.offset <= range.end.offset &&
      range.end.offset <= source.length;
    const start = lines.position(range.start.offset);
    const end = lines.position(range.end.offset);
    const consistent =
      start.line === range.start.line &&
      start.column === range.start.column &&
      end.line === range.end.line &&
      end.column === range.end.column;
    if (!inside || !consistent) wrong.push(range);
  }
  expect(wrong).toEqual([]);
  for (const diagnostic of parsed.diagnostics) {
    expect(diagnostic.message).not.toMatch(/[\n\u2028\u2029\u202e]/);
  }
  return parsed;
}

/** A clean parse prints to text that parses cleanly to the same tree. */
function checkCleanRoundTrip(diagnostics: readonly Diagnostic[], ast: Parameters<typeof print>[0]) {
  if (diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return;
  const printed = print(ast);
  const reparsed = parseWithDiagnostics(printed);
  expect(codes(reparsed.diagnostics)).toEqual([]);
  expect(stripRanges(reparsed.value.ast.items)).toEqual(stripRanges(ast.items));
  expect(print(reparsed.value.ast)).toBe(printed);
}

/** Pieces of spec syntax, so that random strings reach deep into the grammar. */
const tokenSoup = fc.string({
  unit: fc.constantFrom(
    'A',
    'x',
    'Done',
    'true',
    'today',
    'reject ',
    'confirm ',
    ' because ',
    '@confirm',
    '@repeat',
    '(financial, ',
    '(',
    ')',
    '[',
    ']',
    ',',
    '.',
    ';',
    ':',
    ' & ',
    ' ∧ ',
    ' and ',
    ' -> ',
    '→',
    '=>',
    ' = ',
    ' != ',
    ' ~ ',
    ' < ',
    ' >= ',
    ' in ',
    ' not ',
    ' contains ',
    ' matches ',
    '/',
    '/a/i',
    '"',
    "'",
    '“',
    '\\',
    '\\u{',
    '}',
    '"text"',
    '1',
    '-2',
    '3.5',
    '1,000',
    '1e999',
    '2025-02-30',
    '24:00',
    '19:00',
    '2025-03-14T19:00',
    '#',
    '//',
    '```',
    '<CHC>',
    '</CHC>',
    'Here is the spec.',
    ' ',
    '\n',
    '\r\n',
    '\t',
    '$',
    '😀',
    '\u0000',
    '\u202e',
  ),
  maxLength: 60,
});

/** Character-level edits of a text. */
const editArbitrary = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    at: fc.nat(),
    text: fc.string({ unit: 'binary', maxLength: 3 }),
  }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), text: tokenSoup }),
  fc.record({
    kind: fc.constant('delete' as const),
    at: fc.nat(),
    length: fc.integer({ min: 1, max: 8 }),
  }),
  fc.record({
    kind: fc.constant('replace' as const),
    at: fc.nat(),
    text: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  }),
);
type Edit = typeof editArbitrary extends fc.Arbitrary<infer T> ? T : never;

function applyEdits(text: string, edits: readonly Edit[]): string {
  let result = text;
  for (const edit of edits) {
    const at = result.length === 0 ? 0 : edit.at % (result.length + 1);
    if (edit.kind === 'insert') result = result.slice(0, at) + edit.text + result.slice(at);
    else if (edit.kind === 'delete') result = result.slice(0, at) + result.slice(at + edit.length);
    else result = result.slice(0, at) + edit.text + result.slice(at + 1);
  }
  return result;
}

/** Edits at the level of tokens: drop, repeat or swap whitespace-separated pieces. */
function editTokens(text: string, seeds: readonly number[]): string {
  const pieces = text.split(/(\s+)/);
  for (const seed of seeds) {
    const index = seed % Math.max(1, pieces.length);
    const piece = pieces[index] ?? '';
    switch (seed % 3) {
      case 0:
        pieces.splice(index, 1);
        break;
      case 1:
        pieces.splice(index, 0, piece);
        break;
      default: {
        const other = (seed >> 2) % Math.max(1, pieces.length);
        pieces[index] = pieces[other] ?? '';
        pieces[other] = piece;
      }
    }
  }
  return pieces.join('');
}

describe('random input', () => {
  it('never throws on random bytes, read as UTF-8 and as Latin-1', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        checkInvariants(new TextDecoder().decode(bytes));
        checkInvariants(String.fromCharCode(...bytes));
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on random Unicode strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => {
        checkInvariants(text);
      }),
      { numRuns: 300 },
    );
  });

  it('never throws on random pieces of syntax, and round-trips whatever parses cleanly', () => {
    fc.assert(
      fc.property(tokenSoup, (text) => {
        const parsed = checkInvariants(text);
        checkCleanRoundTrip(parsed.diagnostics, parsed.value.ast);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps every invariant with tiny limits', () => {
    const limits = {
      maxDiagnostics: 3,
      maxItems: 2,
      maxBodyAtoms: 2,
      maxConstraints: 2,
      maxNestingDepth: 1,
      maxStringLength: 3,
      maxIdentifierLength: 3,
      maxListLength: 2,
    };
    fc.assert(
      fc.property(tokenSoup, (text) => {
        checkInvariants(text, { limits });
      }),
      { numRuns: 500 },
    );
  });
});

describe('mutated valid specs', () => {
  it('never throw on character edits of the example specs, and round-trip when clean', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...exampleSpecs),
        fc.array(editArbitrary, { minLength: 1, maxLength: 4 }),
        (spec, edits) => {
          const parsed = checkInvariants(applyEdits(spec, edits));
          checkCleanRoundTrip(parsed.diagnostics, parsed.value.ast);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never throw on token edits of the example specs, and round-trip when clean', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...exampleSpecs),
        fc.array(fc.nat(), { minLength: 1, maxLength: 4 }),
        (spec, seeds) => {
          const parsed = checkInvariants(editTokens(spec, seeds));
          checkCleanRoundTrip(parsed.diagnostics, parsed.value.ast);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never throw on edits of printed generated specs', () => {
    fc.assert(
      fc.property(
        specArbitrary,
        fc.array(editArbitrary, { minLength: 1, maxLength: 3 }),
        (spec, edits) => {
          const parsed = checkInvariants(applyEdits(print(spec), edits));
          checkCleanRoundTrip(parsed.diagnostics, parsed.value.ast);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('large and deep input', () => {
  /**
   * A megabyte reads in a few hundred milliseconds; anything worse than linear would
   * take minutes. The budget is generous so that a loaded machine never fails it,
   * while a quadratic path still does.
   */
  const linearBudgetMs = 5000;

  function timed<T>(run: () => T): { result: T; milliseconds: number } {
    const started = performance.now();
    const result = run();
    return { result, milliseconds: performance.now() - started };
  }

  it('parses 1 MB of random text in well under a second', () => {
    const [text] = fc.sample(
      fc.string({ unit: 'binary', minLength: 1_000_000, maxLength: 1_000_000 }),
      {
        numRuns: 1,
        seed: 42,
      },
    );
    const { result, milliseconds } = timed(() => parseWithDiagnostics(text ?? ''));
    expect(milliseconds).toBeLessThan(linearBudgetMs);
    checkInvariants(text ?? '', {}, result);
    expect(result.diagnostics.length).toBeGreaterThan(0);
  });

  it('parses 1 MB of mutated spec in well under a second', () => {
    const base = exampleSpecs
      .join('\n')
      .repeat(Math.ceil(1_000_000 / exampleSpecs.join('\n').length));
    const [edits] = fc.sample(fc.array(editArbitrary, { minLength: 50, maxLength: 50 }), {
      numRuns: 1,
      seed: 7,
    });
    const text = applyEdits(base.slice(0, 1_000_000), edits ?? []);
    const { result, milliseconds } = timed(() => parseWithDiagnostics(text));
    expect(text.length).toBeGreaterThan(990_000);
    expect(milliseconds).toBeLessThan(linearBudgetMs);
    checkInvariants(text, {}, result);
  });

  it('parses a 1 MB line of letters, and one of words, in well under a second', () => {
    for (const text of [
      'a'.repeat(1_000_000),
      'word '.repeat(200_000),
      `"${'\\u{'.repeat(300_000)}"`,
    ]) {
      const { milliseconds } = timed(() => parseWithDiagnostics(text));
      expect(milliseconds).toBeLessThan(linearBudgetMs);
    }
  });

  it('reports lists nested 100,000 deep without overflowing the stack', () => {
    const text = `A(x = ${'['.repeat(100_000)}1${']'.repeat(100_000)}) -> Done\nB -> Done`;
    const parsed = checkInvariants(text);
    expect(codes(parsed.diagnostics)).toEqual(['nesting-too-deep']);
    expect(parsed.diagnostics[0]?.range?.start.column).toBe(15);
    expect(parsed.value.ast.items).toHaveLength(1);
  });

  it('caps nesting even when the configured limit is larger than the stack allows', () => {
    const text = `A(x = ${'['.repeat(100_000)}) -> Done`;
    const parsed = checkInvariants(text, { limits: { maxNestingDepth: 1e9 } });
    expect(codes(parsed.diagnostics)).toEqual(['nesting-too-deep']);
    expect(parsed.diagnostics[0]?.message).toBe('Lists are nested more than 1000 levels deep.');
  });

  it.each([
    ['(', '('.repeat(100_000)],
    ['&', '&'.repeat(100_000)],
    ['A(', 'A('.repeat(50_000)],
    ['A & ', `${'A & '.repeat(50_000)}B -> Done`],
  ])('reports one error for a long run of %j', (_name, text) => {
    const { result, milliseconds } = timed(() => parseWithDiagnostics(text));
    expect(milliseconds).toBeLessThan(linearBudgetMs);
    checkInvariants(text, {}, result);
    expect(result.diagnostics).toHaveLength(1);
  });

  it('reads a 100,000-rule spec up to maxItems and says so', () => {
    const text = Array.from(
      { length: 100_000 },
      (_, index) => `A${index}(x = ${index}) -> B${index}`,
    ).join('\n');
    const { result, milliseconds } = timed(() => parseWithDiagnostics(text));
    expect(milliseconds).toBeLessThan(linearBudgetMs);
    checkInvariants(text, {}, result);
    expect(codes(result.diagnostics)).toEqual(['too-many-items']);
    expect(result.diagnostics[0]?.range?.start.line).toBe(defaultLimits.maxItems + 1);
    expect(result.value.ast.items).toHaveLength(defaultLimits.maxItems);
  });

  it('reads nothing of an input over maxInputLength', () => {
    const parsed = checkInvariants('A -> Done\n'.repeat(20), { limits: { maxInputLength: 100 } });
    expect(codes(parsed.diagnostics)).toEqual(['input-too-long']);
    expect(parsed.diagnostics[0]?.data).toEqual({ length: 200, limit: 100 });
    expect(parsed.value.ast.items).toEqual([]);
  });

  it('stops at maxDiagnostics and summarises the rest', () => {
    const parsed = checkInvariants('A(x = ) -> B\n'.repeat(1_000));
    expect(parsed.diagnostics).toHaveLength(defaultLimits.maxDiagnostics + 1);
    expect(parsed.diagnostics.at(-1)?.code).toBe('too-many-diagnostics');
    expect(parsed.diagnostics.at(-2)?.range?.start.line).toBe(defaultLimits.maxDiagnostics);
  });
});
