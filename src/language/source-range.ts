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
  /**
   * Recently computed positions, by offset. Parsers ask for the same offsets again and
   * again (a node starts where its first child starts); sharing the (immutable) objects
   * roughly halves the memory a large tree's ranges take, and with it the GC's work.
   */
  readonly #cachedOffsets = new Int32Array(1024).fill(-1);
  readonly #cachedPositions: Position[] = new Array(1024);
  /** The line of the last lookup: parsers mostly move forward through the text. */
  #lastLine = 0;

  constructor(readonly text: string) {
    // Lines end at `\n`, `\r\n` (one break) and a lone `\r` (old Mac files), as in the lexer.
    const starts = [0];
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code === 10 || (code === 13 && text.charCodeAt(index + 1) !== 10)) starts.push(index + 1);
    }
    this.#lineStarts = starts;
  }

  get lineCount(): number {
    return this.#lineStarts.length;
  }

  position(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.text.length));
    const slot = clamped & 1023;
    const cached = this.#cachedPositions[slot];
    if (this.#cachedOffsets[slot] === clamped && cached) return cached;
    const line = this.#lineOf(clamped);
    const position = {
      offset: clamped,
      line: line + 1,
      column: clamped - (this.#lineStarts[line] ?? 0) + 1,
    };
    this.#cachedOffsets[slot] = clamped;
    this.#cachedPositions[slot] = position;
    return position;
  }

  /** The 0-based line holding `offset`: the last line first, then a binary search. */
  #lineOf(offset: number): number {
    const starts = this.#lineStarts;
    const last = this.#lastLine;
    if ((starts[last] ?? 0) <= offset && offset < (starts[last + 1] ?? Number.POSITIVE_INFINITY)) {
      return last;
    }
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    this.#lastLine = low;
    return low;
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
    // The `\r` of a `\r\n` break is before the `\n` that starts the next line.
    return raw.endsWith('\r') ? raw.slice(0, -1) : raw;
  }
}
