/** A point in a source text. `line` and `column` are 1-based; `offset` is a 0-based UTF-16 index. */
export interface Position {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
}

/** A half-open span `[start, end)` of a source text. */
export interface SourceRange {
  readonly start: Position;
  readonly end: Position;
}

/**
 * Maps offsets to line/column positions. Built once per source so that the lexer
 * can hand out offsets cheaply and positions are derived by binary search.
 */
export class LineIndex {
  readonly #lineStarts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    for (let index = 0; index < text.length; index++) {
      if (text.charCodeAt(index) === 10) starts.push(index + 1);
    }
    this.#lineStarts = starts;
  }

  get lineCount(): number {
    return this.#lineStarts.length;
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    let low = 0;
    let high = this.#lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.#lineStarts[middle] ?? 0) <= clamped) low = middle;
      else high = middle - 1;
    }
    return { offset: clamped, line: low + 1, column: clamped - (this.#lineStarts[low] ?? 0) + 1 };
  }

  range(start: number, end: number): SourceRange {
    return { start: this.position(start), end: this.position(Math.max(start, end)) };
  }

  /** The text of a 1-based line without its line terminator. */
  lineText(line: number): string {
    const start = this.#lineStarts[line - 1];
    if (start === undefined) return '';
    const next = this.#lineStarts[line];
    const end = next === undefined ? this.text.length : next - 1;
    const raw = this.text.slice(start, end);
    return raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  }
}
