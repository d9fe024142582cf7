import type { Decimal } from './decimal.js';

/** Token kinds of the intent language. Spelling variants are normalised by the lexer. */
export type TokenKind =
  | 'identifier'
  | 'string'
  | 'number'
  | 'date'
  | 'time'
  | 'datetime'
  | 'regex'
  /** `90s`, `30m`, `3h`, `2d` (LANGUAGE.md §7). */
  | 'duration'
  | 'annotation'
  | 'symbol'
  | 'end';

/** Symbols after normalisation: `∧` is `&`, `→`, `⇒` and `=>` are `->`, `≠` is `!=`, `∈` is `in`, … */
export type SymbolText =
  | '('
  | ')'
  | '['
  | ']'
  | ','
  | '&'
  | '|'
  | '->'
  | '='
  | '!='
  | '~'
  | '!~'
  | '<'
  | '<='
  | '>'
  | '>='
  | 'in'
  | 'not in'
  | '.'
  | ';'
  | ':'
  /** `$x`: a binding (LANGUAGE.md §7). */
  | '$'
  /** Arithmetic on a binding: `$b * 0.5`, `$departure - 3h`. */
  | '+'
  | '-'
  | '*'
  | '/';

export interface Token {
  readonly kind: TokenKind;
  /**
   * identifier: the name; string: the decoded text; number: the source text;
   * date/time/datetime: the normalised literal; regex: the pattern; annotation: the
   * name after `@`; symbol: the normalised symbol.
   */
  readonly text: string;
  /** number: its value (the nearest double when `decimal` is set). */
  readonly number?: number | undefined;
  /** number: its exact value when no double prints as it (`1234567890123456789`). */
  readonly decimal?: Decimal | undefined;
  /** regex: its flags. */
  readonly flags?: string | undefined;
  readonly start: number;
  readonly end: number;
  /** Whether a line break separates this token from the previous one. */
  readonly newlineBefore: boolean;
}

export interface Comment {
  /** The text after `#` or `//`, trimmed. */
  readonly text: string;
  readonly start: number;
  readonly end: number;
}
