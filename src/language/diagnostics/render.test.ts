import { describe, expect, it } from 'vitest';
import { LineIndex } from '../source-range.js';
import { createDiagnostic } from './diagnostic.js';
import { diagnosticToJson, renderDiagnostic, renderDiagnostics } from './render.js';

const source = '# reserve\nR1: ReservInfo(date = today) -> Reserve\n';
const lines = new LineIndex(source);
const unknown = createDiagnostic(
  'unknown-predicate',
  { range: lines.range(14, 24) },
  { name: 'ReservInfo', hint: "Did you mean 'ReserveInfo'?" },
);

describe('renderDiagnostic', () => {
  it('renders the message, location, excerpt, caret and hint', () => {
    expect(renderDiagnostic(unknown, source, { fileName: 'spec.intent' })).toBe(
      [
        "error[unknown-predicate]: Unknown predicate 'ReservInfo'.",
        '  --> spec.intent:2:5',
        '  |',
        '2 | R1: ReservInfo(date = today) -> Reserve',
        '  |     ^^^^^^^^^^',
        "  = hint: Did you mean 'ReserveInfo'?",
      ].join('\n'),
    );
  });

  it('accepts a prepared line index and names the input <input> by default', () => {
    expect(renderDiagnostic(unknown, lines).split('\n')[1]).toBe('  --> <input>:2:5');
  });

  it('renders warnings as warnings and leaves out a missing hint', () => {
    const text = 'A(x = Uber) -> Done';
    const warning = createDiagnostic(
      'bare-text-value',
      { range: new LineIndex(text).range(6, 10) },
      { value: 'Uber', variable: 'x' },
    );
    const rendered = renderDiagnostic(warning, text);
    expect(rendered.split('\n')[0]).toBe(
      'warning[bare-text-value]: The unquoted name Uber is taken as the text "Uber" for \'x\'.',
    );
    const noHint = createDiagnostic(
      'unexpected-character',
      { range: lines.range(0, 1) },
      {
        character: '#',
      },
    );
    expect(renderDiagnostic(noHint, source)).not.toContain('hint');
  });

  it('widens the gutter for long line numbers', () => {
    const text = `${'\n'.repeat(11)}A B`;
    const diagnostic = createDiagnostic(
      'unexpected-token',
      { range: new LineIndex(text).range(13, 14) },
      { expected: "'->'", found: "'B'" },
    );
    expect(renderDiagnostic(diagnostic, text).split('\n').slice(1)).toEqual([
      '  --> <input>:12:3',
      '   |',
      '12 | A B',
      '   |   ^',
    ]);
  });

  it('draws at least one caret for an empty range, also at the end of a line', () => {
    const text = 'A ->';
    const diagnostic = createDiagnostic(
      'unexpected-token',
      { range: new LineIndex(text).range(4, 4) },
      { expected: 'a head', found: 'the end of the spec' },
    );
    expect(renderDiagnostic(diagnostic, text).split('\n').at(-1)).toBe('  |     ^');
  });

  it('underlines a range that spans lines up to the end of its first line', () => {
    const text = 'A(x = 1,\n  y = 2)';
    const diagnostic = createDiagnostic('missing-arrow', {
      range: new LineIndex(text).range(2, 16),
    });
    const rendered = renderDiagnostic(diagnostic, text).split('\n');
    expect(rendered.slice(3, 5)).toEqual(['1 | A(x = 1,', '  |   ^^^^^^']);
  });

  it('cuts long lines to a window around the caret', () => {
    const text = `${'x'.repeat(500)}$${'y'.repeat(500)}`;
    const diagnostic = createDiagnostic(
      'unexpected-character',
      { range: new LineIndex(text).range(500, 501) },
      { character: '$' },
    );
    const [, location, , excerpt, caret] = renderDiagnostic(diagnostic, text).split('\n');
    expect(location).toBe('  --> <input>:1:501');
    expect(excerpt).toBe(`1 | ${'x'.repeat(80)}$${'y'.repeat(79)}`);
    expect(caret).toBe(`  | ${' '.repeat(80)}^`);
  });

  it('shows tabs, controls and bidirectional overrides as spaces so the caret stays aligned', () => {
    const text = '\tA\u202e\u0000 $';
    const diagnostic = createDiagnostic(
      'unexpected-character',
      { range: new LineIndex(text).range(5, 6) },
      { character: '$' },
    );
    const rendered = renderDiagnostic(diagnostic, text).split('\n');
    expect(rendered[3]).toBe('1 |  A   $');
    expect(rendered[4]).toBe('  |      ^');
  });

  it('renders without an excerpt when there is no source', () => {
    expect(renderDiagnostic(unknown, undefined, { fileName: 'spec.intent' })).toBe(
      [
        "error[unknown-predicate]: Unknown predicate 'ReservInfo'.",
        '  --> spec.intent:2:5',
        "  = hint: Did you mean 'ReserveInfo'?",
      ].join('\n'),
    );
  });

  it('renders a JSON path for schema diagnostics', () => {
    const diagnostic = createDiagnostic(
      'schema-unknown-type',
      { path: '$.Alarm.variables[1].type' },
      { type: 'Colour' },
    );
    expect(renderDiagnostic(diagnostic, undefined, { fileName: 'states.json' })).toBe(
      [
        "error[schema-unknown-type]: Unknown variable type 'Colour'.",
        '  --> states.json at $.Alarm.variables[1].type',
        '  = hint: Types are Text, Number, Boolean, Date, Time, DateTime, Enum (with enum_values), List<Text>, List<Number>.',
      ].join('\n'),
    );
  });

  it('names the file for a problem of the whole input, and nothing without a file name', () => {
    const diagnostic = createDiagnostic('too-many-diagnostics', {}, { limit: 100 });
    expect(renderDiagnostic(diagnostic, source, { fileName: 'x.intent' })).toBe(
      'error[too-many-diagnostics]: More than 100 problems were found; the rest are not shown.\n  --> x.intent',
    );
    expect(renderDiagnostic(diagnostic, source)).toBe(
      'error[too-many-diagnostics]: More than 100 problems were found; the rest are not shown.',
    );
  });

  it('colours for a terminal when asked', () => {
    const rendered = renderDiagnostic(unknown, source, { color: true });
    expect(rendered).toContain('\u001b[31merror[unknown-predicate]\u001b[39m');
    expect(rendered).toContain('\u001b[31m^^^^^^^^^^\u001b[39m');
    expect(renderDiagnostic(unknown, source)).not.toContain('\u001b[');
  });
});

describe('renderDiagnostics', () => {
  it('separates diagnostics with a blank line', () => {
    const second = createDiagnostic('missing-done', {});
    const rendered = renderDiagnostics([unknown, second], source, { fileName: 'spec.intent' });
    expect(rendered.split('\n\n')).toEqual([
      renderDiagnostic(unknown, source, { fileName: 'spec.intent' }),
      renderDiagnostic(second, source, { fileName: 'spec.intent' }),
    ]);
    expect(renderDiagnostics([], source)).toBe('');
  });
});

describe('diagnosticToJson', () => {
  it('keeps the stable fields and leaves out absent ones', () => {
    expect(diagnosticToJson(unknown, 'spec.intent')).toEqual({
      code: 'unknown-predicate',
      severity: 'error',
      message: "Unknown predicate 'ReservInfo'.",
      hint: "Did you mean 'ReserveInfo'?",
      file: 'spec.intent',
      range: {
        start: { offset: 14, line: 2, column: 5 },
        end: { offset: 24, line: 2, column: 15 },
      },
    });
    expect(diagnosticToJson(createDiagnostic('missing-done', {}))).toEqual({
      code: 'missing-done',
      severity: 'error',
      message: 'The spec has no rule with head Done, so the task could never be finished.',
      hint: 'Add a rule such as Goal -> Done.',
    });
  });
});
