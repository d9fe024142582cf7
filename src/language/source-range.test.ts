import { describe, expect, it } from 'vitest';
import { LineIndex } from './source-range.js';

describe('LineIndex', () => {
  const index = new LineIndex('ab\ncd\r\n\nlast');

  it('maps offsets to 1-based lines and columns', () => {
    expect(index.position(0)).toEqual({ offset: 0, line: 1, column: 1 });
    expect(index.position(2)).toEqual({ offset: 2, line: 1, column: 3 });
    expect(index.position(3)).toEqual({ offset: 3, line: 2, column: 1 });
    expect(index.position(5)).toEqual({ offset: 5, line: 2, column: 3 });
    expect(index.position(7)).toEqual({ offset: 7, line: 3, column: 1 });
    expect(index.position(8)).toEqual({ offset: 8, line: 4, column: 1 });
    expect(index.position(12)).toEqual({ offset: 12, line: 4, column: 5 });
  });

  it('clamps offsets outside the text', () => {
    expect(index.position(-5)).toEqual({ offset: 0, line: 1, column: 1 });
    expect(index.position(99)).toEqual({ offset: 12, line: 4, column: 5 });
  });

  it('counts lines, including the empty one after a final newline', () => {
    expect(index.lineCount).toBe(4);
    expect(new LineIndex('').lineCount).toBe(1);
    expect(new LineIndex('a\n').lineCount).toBe(2);
    expect(new LineIndex('a\n').position(2)).toEqual({ offset: 2, line: 2, column: 1 });
  });

  it('gives the text of a line without its terminator', () => {
    expect(index.lineText(1)).toBe('ab');
    expect(index.lineText(2)).toBe('cd');
    expect(index.lineText(3)).toBe('');
    expect(index.lineText(4)).toBe('last');
    expect(index.lineText(0)).toBe('');
    expect(index.lineText(5)).toBe('');
  });

  it('builds half-open ranges and never lets the end come before the start', () => {
    expect(index.range(1, 4)).toEqual({
      start: { offset: 1, line: 1, column: 2 },
      end: { offset: 4, line: 2, column: 2 },
    });
    expect(index.range(4, 1)).toEqual({
      start: { offset: 4, line: 2, column: 2 },
      end: { offset: 4, line: 2, column: 2 },
    });
  });

  it('ends lines at a lone carriage return and counts a CR LF pair as one break', () => {
    const mac = new LineIndex('ab\rcd\r\nef\n\rg');
    expect(mac.lineCount).toBe(5);
    expect(mac.position(3)).toEqual({ offset: 3, line: 2, column: 1 });
    expect(mac.position(5)).toEqual({ offset: 5, line: 2, column: 3 });
    expect(mac.position(6)).toEqual({ offset: 6, line: 2, column: 4 });
    expect(mac.position(7)).toEqual({ offset: 7, line: 3, column: 1 });
    expect(mac.position(10)).toEqual({ offset: 10, line: 4, column: 1 });
    expect(mac.position(11)).toEqual({ offset: 11, line: 5, column: 1 });
    expect([1, 2, 3, 4, 5].map((line) => mac.lineText(line))).toEqual(['ab', 'cd', 'ef', '', 'g']);
  });

  it('counts columns in UTF-16 code units', () => {
    const emoji = new LineIndex('😀x');
    expect(emoji.position(2)).toEqual({ offset: 2, line: 1, column: 3 });
  });

  it('finds positions quickly in a text of many lines', () => {
    const many = new LineIndex('x\n'.repeat(100_000));
    expect(many.position(199_999)).toEqual({ offset: 199_999, line: 100_000, column: 2 });
    expect(many.lineCount).toBe(100_001);
  });
});
