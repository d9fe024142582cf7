import { unprintableClass } from '../support/printable-text.js';
import { relativeDates } from './ast.js';
import { approximateNumber, isDecimal, type NumberProblem, readNumber } from './decimal.js';
import type { DiagnosticBag } from './diagnostics/diagnostic.js';
import type { Limits } from './limits.js';
import { operatorSymbols } from './operators.js';
import { compileRegex } from './regex.js';
import type { LineIndex } from './source-range.js';
import type { Comment, SymbolText, Token } from './tokens.js';

const unprintableCharacter = new RegExp(`^[${unprintableClass}]$`, 'u');
const unprintableCharacters = new RegExp(`[${unprintableClass}]`, 'gu');

/** Punctuation; operator spellings come from the operator table. */
const punctuation: Readonly<Record<string, SymbolText>> = {
  '(': '(',
  ')': ')',
  '[': '[',
  ']': ']',
  ',': ',',
  '&': '&',
  '∧': '&',
  '|': '|',
  '∨': '|',
  '→': '->',
  '⇒': '->',
  '->': '->',
  '=>': '->',
  '.': '.',
  ';': ';',
  ':': ':',
  $: '$',
  '+': '+',
  '-': '-',
  '*': '*',
  '/': '/',
};

/**
 * Every spelling of the rule arrow. The spec extractor finds rules by it, so what it
 * takes for a rule is exactly what the lexer reads as one.
 */
export const arrowSpellings: readonly string[] = Object.keys(punctuation).filter(
  (spelling) => punctuation[spelling] === '->',
);

const allSymbols: ReadonlyArray<readonly [string, SymbolText]> = [
  ...Object.entries(punctuation),
  // Symbol-spelled operators are exactly the operator symbols of `SymbolText`.
  ...[...operatorSymbols].map(
    ([spelling, operator]) => [spelling, operator as SymbolText] as const,
  ),
];

/** Single characters that stand for a symbol, including the Unicode spellings. */
const singleSymbols: ReadonlyMap<string, SymbolText> = new Map(
  allSymbols.filter(([spelling]) => spelling.length === 1),
);

/** Two-character symbols, tried before single ones. */
const doubleSymbols: ReadonlyMap<string, SymbolText> = new Map(
  allSymbols.filter(([spelling]) => spelling.length === 2),
);

const doubleStarts = new Set([...doubleSymbols.keys()].map((pair) => pair.charCodeAt(0)));

/** Typographic quotes that LLMs emit, mapped to their closing partner. */
const quotePairs: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '“': '”',
  '‘': '’',
};

const simpleEscapes: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  n: '\n',
  t: '\t',
};

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Spaces, tabs, line breaks, no-break spaces and byte order marks. */
function isBlank(code: number): boolean {
  return (
    code === 32 || code === 10 || code === 9 || code === 13 || code === 0xfeff || code === 0xa0
  );
}

/**
 * A line ends at `\n`, at `\r\n` and at a lone `\r` (old Mac files): otherwise a file
 * with `\r` endings would be one line, and its first comment would swallow the spec.
 */
function isLineBreak(code: number): boolean {
  return code === 10 || code === 13;
}

function isIdentifierStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function isIdentifierPart(code: number): boolean {
  return isIdentifierStart(code) || isDigit(code);
}

/**
 * The hint for a `-` inside a name (`get-sum(…)`): MCP and other toolkits name tools
 * with hyphens, the schema rewrites them to identifiers (docs/schemas.md), and the spec
 * must use the rewrite. Undefined when the `-` does not join two name parts.
 */
function hyphenatedNameHint(text: string, position: number): string | undefined {
  if (!isIdentifierPart(text.charCodeAt(position - 1))) return undefined;
  if (!isIdentifierPart(text.charCodeAt(position + 1))) return undefined;
  const isNamePart = (code: number) => isIdentifierPart(code) || code === 45; // `-`
  let start = position;
  while (start > 0 && isNamePart(text.charCodeAt(start - 1))) start--;
  // One hint per name, at its first `-` (`trigger-elicitation-request` has two).
  if (text.slice(start, position).includes('-')) return undefined;
  let end = position;
  while (end < text.length && end - start < 64 && isNamePart(text.charCodeAt(end))) end++;
  const name = text.slice(start, end).replace(/-+$/, '');
  if (!isIdentifierStart(name.charCodeAt(0))) return undefined;
  return `A spec names a tool as an identifier: the tool '${name}' is written ${name.replace(/-/g, '_')}.`;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

const datePattern = /\d{4}-\d{2}-\d{2}(?:T\d{1,2}:\d{2}(?::\d{2})?)?/y;
const timePattern = /\d{1,2}:\d{2}(?::\d{2})?/y;
const numberPattern = /\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?/y;

const numberHints: Readonly<Record<NumberProblem, string>> = {
  shape: 'Write a number such as 12, -3.5, 1e6 or 1_000.',
  digits:
    'A number may have at most 100 significant digits; write it as text if it is an identifier.',
  overflow: 'The number is too large: numbers must lie within ±1.7976931348623157e308.',
  underflow:
    'The number is too close to zero to be represented (below 5e-324); write 0 if zero is meant.',
};

/** Characters of a malformed literal quoted in a diagnostic; a spec can hold megabytes of digits. */
const maxQuotedLiteral = 60;

function abbreviateLiteral(text: string): string {
  return text.length > maxQuotedLiteral ? `${text.slice(0, maxQuotedLiteral - 1)}…` : text;
}

/** Validates and zero-pads `H:MM[:SS]`; undefined when out of range. */
function normaliseTime(text: string): string | undefined {
  const parts = text.split(':').map(Number);
  const [hours = 0, minutes = 0, seconds] = parts;
  if (hours > 23 || minutes > 59 || (seconds !== undefined && seconds > 59)) return undefined;
  const padded = `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
  return seconds === undefined ? padded : `${padded}:${String(seconds).padStart(2, '0')}`;
}

function validDate(text: string): boolean {
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/**
 * The character itself, or `U+XXXX` for one that cannot be seen or would disturb the
 * message around it (controls, bidirectional overrides, line separators, lone surrogates).
 */
function printableCharacter(character: string): string {
  if (character === '') return character;
  if (!unprintableCharacter.test(character)) return character;
  const code = character.codePointAt(0) ?? 0;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** `text` with every invisible or disturbing character written as `\u{XXXX}`. */
function printableText(text: string): string {
  return text.replace(
    unprintableCharacters,
    (character) => `\\u{${(character.codePointAt(0) ?? 0).toString(16).toUpperCase()}}`,
  );
}

export interface LexResult {
  readonly tokens: Token[];
  readonly comments: Comment[];
}

/** A lexer that runs only as far ahead as its reader asks. */
export interface IncrementalLexer {
  /**
   * The token at `index` (counting from the first), lexing as far as needed; undefined
   * past the last token and for released ones.
   */
  at(index: number): Token | undefined;
  /** Lets go of the tokens before `index`; the reader will not look at them again. */
  release(index: number): void;
  /** The comments lexed so far, in order. */
  readonly comments: Comment[];
}

/**
 * Turns the region `[start, end)` of `text` into tokens. Problems become diagnostics
 * and the lexer carries on, so that one bad character does not hide the rest.
 */
export function lex(
  text: string,
  start: number,
  end: number,
  lines: LineIndex,
  diagnostics: DiagnosticBag,
  limits: Limits,
): LexResult {
  const lexer = startLexer(text, start, end, lines, diagnostics, limits);
  const tokens: Token[] = [];
  for (let token = lexer.at(0); token !== undefined; token = lexer.at(tokens.length)) {
    tokens.push(token);
  }
  return { tokens, comments: lexer.comments };
}

/**
 * `lex`, on demand: the parser stops early (at `maxItems`, or when diagnostics are
 * full), and lexing megabytes it will never read was most of the cost of hostile input.
 * Released tokens are dropped, so that a large input does not keep every token alive
 * (the garbage collector's work on them was as large as the lexing itself).
 */
export function startLexer(
  text: string,
  start: number,
  end: number,
  lines: LineIndex,
  diagnostics: DiagnosticBag,
  limits: Limits,
): IncrementalLexer {
  /** Tokens from number `base` on; earlier ones were released. */
  let tokens: Token[] = [];
  let base = 0;
  let last: Token | undefined;
  let beforeLast: Token | undefined;
  const comments: Comment[] = [];
  let position = start;
  let newlineBefore = true;
  /**
   * Inside arithmetic (after its first operator): operands (`$x`, numbers, durations,
   * parentheses) keep it going; any other token ends it.
   */
  let arithmetic = false;

  const range = (from: number, to: number) => ({ range: lines.range(from, to) });
  const push = (token: Omit<Token, 'newlineBefore'>) => {
    // Every token gets the same shape, in the same property order: spreading objects of
    // varying shapes made lexing megamorphic and several times slower on large inputs.
    beforeLast = last;
    last = {
      kind: token.kind,
      text: token.text,
      number: token.number,
      decimal: token.decimal,
      flags: token.flags,
      start: token.start,
      end: token.end,
      newlineBefore,
    };
    tokens.push(last);
    newlineBefore = false;
    if (arithmetic || token.kind === 'symbol') {
      const text = token.kind === 'symbol' ? token.text : '';
      if (text === '+' || text === '-' || text === '*' || text === '/') arithmetic = true;
      else if (
        !(
          token.kind === 'number' ||
          token.kind === 'duration' ||
          text === '(' ||
          text === ')' ||
          text === '$' ||
          (token.kind === 'identifier' && beforeLast?.kind === 'symbol' && beforeLast.text === '$')
        )
      )
        arithmetic = false;
    }
  };
  const previousIsMatches = () =>
    last?.kind === 'identifier' && last.text.toLowerCase() === 'matches';
  /**
   * Arithmetic (`+ - * /`) is read only right after a binding `$x`, or after an operand of
   * arithmetic already begun (a number, a duration, a closing parenthesis) (LANGUAGE.md §7).
   */
  const previousIsBinding = () =>
    (last?.kind === 'identifier' && beforeLast?.kind === 'symbol' && beforeLast.text === '$') ||
    (arithmetic &&
      (last?.kind === 'number' ||
        last?.kind === 'duration' ||
        (last?.kind === 'symbol' && last.text === ')')));
  /**
   * v3 (LANGUAGE.md §9): arithmetic also starts at a clock word (`now - 24h`), and, when
   * a blank follows the operator (so that `-2` stays a number), at a number (`500 * $n`),
   * a duration or a closing parenthesis (`max($a, $b) - 1`).
   */
  const previousStartsArithmetic = () => {
    if (last?.kind === 'identifier')
      return (relativeDates as readonly string[]).includes(last.text.toLowerCase());
    const spaced = isBlank(text.charCodeAt(position + 1));
    return (
      spaced &&
      (last?.kind === 'number' ||
        last?.kind === 'duration' ||
        (last?.kind === 'symbol' && last.text === ')'))
    );
  };

  /** One token, comment, blank or diagnostic; false once nothing is left to lex. */
  function step(): boolean {
    if (position >= end || diagnostics.full) return false;
    const code = text.charCodeAt(position);
    const character = text[position] ?? '';

    if (isBlank(code)) {
      // A whole run of blanks in one step: one call per space was a large part of the
      // cost of big inputs before the code is optimised.
      while (position < end && isBlank(text.charCodeAt(position))) {
        if (isLineBreak(text.charCodeAt(position))) newlineBefore = true;
        position++;
      }
      return true;
    }

    // Comments: `#` or `//` to the end of the line (but `//` after `matches` is a regex).
    if (
      character === '#' ||
      (character === '/' && text[position + 1] === '/' && !previousIsMatches())
    ) {
      // A scan rather than `indexOf` for each terminator: searching for a `\r` that a
      // file does not have would read to its end at every comment.
      let lineEnd = position;
      while (lineEnd < end && !isLineBreak(text.charCodeAt(lineEnd))) lineEnd++;
      const skip = character === '#' ? 1 : 2;
      comments.push({
        text: text.slice(position + skip, lineEnd).trim(),
        start: position,
        end: lineEnd,
      });
      position = lineEnd;
      return true;
    }

    if (isIdentifierStart(code)) {
      let cursor = position + 1;
      while (cursor < end && isIdentifierPart(text.charCodeAt(cursor))) cursor++;
      const name = text.slice(position, cursor);
      if (name.length > limits.maxIdentifierLength) {
        diagnostics.report('literal-too-long', range(position, cursor), {
          what: 'name',
          length: name.length,
          limit: limits.maxIdentifierLength,
        });
      }
      push({ kind: 'identifier', text: name, start: position, end: cursor });
      position = cursor;
      return true;
    }

    if (isDigit(code) || (character === '-' && isDigit(text.charCodeAt(position + 1)))) {
      position = lexNumeric(position);
      return true;
    }

    const quoteClose = quotePairs[character];
    if (quoteClose !== undefined) {
      position = lexString(position, quoteClose);
      return true;
    }

    if (character === '/' && previousIsMatches()) {
      position = lexRegex(position);
      return true;
    }

    if (character === '@') {
      let cursor = position + 1;
      while (cursor < end && isIdentifierPart(text.charCodeAt(cursor))) cursor++;
      if (cursor === position + 1) {
        diagnostics.report('unexpected-character', range(position, position + 1), {
          character: '@',
        });
        position++;
        return true;
      }
      push({
        kind: 'annotation',
        text: text.slice(position + 1, cursor),
        start: position,
        end: cursor,
      });
      position = cursor;
      return true;
    }

    // Only these characters start a two-character symbol; slicing at every position
    // just to look the pair up was a measurable cost on large inputs.
    const double =
      doubleStarts.has(code) && position + 2 <= end
        ? doubleSymbols.get(text.slice(position, position + 2))
        : undefined;
    if (double !== undefined) {
      push({ kind: 'symbol', text: double, start: position, end: position + 2 });
      position += 2;
      return true;
    }
    const single = singleSymbols.get(character);
    // `$` starts a binding `$x` only: `$500` is a currency sign, an unexpected character.
    const readable =
      single === '$'
        ? /[A-Za-z_]/.test(text[position + 1] ?? '')
        : single === '*' && text[position - 1] === '.'
          ? true // `m.*` (v3, LANGUAGE.md §9): the values of a map
          : single === '+' || single === '-' || single === '*' || single === '/'
            ? previousIsBinding() || previousStartsArithmetic()
            : single !== undefined;
    if (single !== undefined && readable) {
      push({ kind: 'symbol', text: single, start: position, end: position + 1 });
      position++;
      return true;
    }

    // Report a whole run of unknown characters once (random bytes would otherwise flood).
    const width = character.length === 0 ? 1 : (text.codePointAt(position) ?? 0) > 0xffff ? 2 : 1;
    const hint = character === '-' ? hyphenatedNameHint(text, position) : undefined;
    diagnostics.report('unexpected-character', range(position, position + width), {
      character: printableCharacter(text.slice(position, position + width)),
      ...(hint === undefined ? {} : { hint }),
    });
    position += width;
    while (position < end) {
      const next = text.charCodeAt(position);
      const nextCharacter = text[position] ?? '';
      const known =
        isLineBreak(next) ||
        next === 32 ||
        isIdentifierPart(next) ||
        singleSymbols.has(nextCharacter) ||
        quotePairs[nextCharacter] !== undefined ||
        nextCharacter === '#' ||
        nextCharacter === '/' ||
        nextCharacter === '@' ||
        nextCharacter === '-' ||
        nextCharacter === '!';
      if (known) break;
      position++;
    }
    return true;
  }

  return {
    comments,
    at(index: number) {
      while (index - base >= tokens.length && step()) {}
      return index < base ? undefined : tokens[index - base];
    },
    release(index: number) {
      // In chunks, so that dropping the prefix costs O(1) per token.
      if (index - base < 4096) return;
      tokens = tokens.slice(index - base);
      base = index;
    },
  };

  function lexNumeric(from: number): number {
    const negative = text[from] === '-';
    const digitsStart = negative ? from + 1 : from;
    if (!negative) {
      datePattern.lastIndex = digitsStart;
      const date = datePattern.exec(text);
      if (
        date &&
        date.index + date[0].length <= end &&
        !isIdentifierPart(text.charCodeAt(digitsStart + date[0].length))
      ) {
        const literal = date[0];
        const to = from + literal.length;
        const [day = '', clock] = literal.split('T');
        const time = clock === undefined ? '' : normaliseTime(clock);
        if (!validDate(day) || time === undefined) {
          diagnostics.report('invalid-date', range(from, to), {
            text: literal,
            what: clock === undefined ? 'date' : 'date-time',
          });
        }
        push({
          kind: clock === undefined ? 'date' : 'datetime',
          text: clock === undefined ? day : `${day}T${time ?? clock}`,
          start: from,
          end: to,
        });
        return to;
      }
      timePattern.lastIndex = digitsStart;
      const time = timePattern.exec(text);
      if (
        time &&
        time.index + time[0].length <= end &&
        !isIdentifierPart(text.charCodeAt(digitsStart + time[0].length))
      ) {
        const to = from + time[0].length;
        const normalised = normaliseTime(time[0]);
        if (normalised === undefined) {
          diagnostics.report('invalid-date', range(from, to), { text: time[0], what: 'time' });
        }
        push({ kind: 'time', text: normalised ?? time[0], start: from, end: to });
        return to;
      }
    }
    numberPattern.lastIndex = digitsStart;
    const match = numberPattern.exec(text);
    const matched = match?.[0] ?? '';
    let to = digitsStart + matched.length;
    // Letters glued to a number (`12px`, `3rd`) make the whole word invalid.
    let glued = to;
    while (glued < end && isIdentifierPart(text.charCodeAt(glued))) glued++;
    const source = text.slice(from, glued);
    // A duration (LANGUAGE.md §7): whole digits and one unit, `90s`, `30m`, `3h`, `2d`.
    if (glued === to + 1 && !negative && /^\d+$/.test(matched) && /[smhd]/.test(text[to] ?? '')) {
      push({ kind: 'duration', text: source, start: from, end: glued });
      return glued;
    }
    const cleaned = matched.replace(/_/g, '');
    const underscoresValid = !/(^|[^\d])_|_($|[^\d])|__/.test(matched);
    // Read exactly (LANGUAGE.md §5.1): a literal is never rounded to another value, to
    // Infinity or to 0; `-0` reads as 0, so the tree is canonical.
    const reading = readNumber((negative ? '-' : '') + cleaned);
    if (glued > to || !underscoresValid || !reading.ok) {
      const hint =
        glued > to
          ? `Quote text values, e.g. "${abbreviateLiteral(source)}".`
          : !underscoresValid
            ? 'Underscores may only separate digits, as in 1_000.'
            : numberHints[reading.ok ? 'shape' : reading.problem];
      diagnostics.report('invalid-number', range(from, glued), {
        text: abbreviateLiteral(source),
        hint,
      });
      to = glued;
    }
    const value = reading.ok ? reading.value : 0;
    push({
      kind: 'number',
      text: source,
      number: approximateNumber(value),
      decimal: isDecimal(value) ? value : undefined,
      start: from,
      end: to,
    });
    return to;
  }

  function lexString(from: number, close: string): number {
    let cursor = from + 1;
    let value = '';
    while (cursor < end) {
      const character = text[cursor] ?? '';
      if (character === close) {
        if (value.length > limits.maxStringLength) {
          diagnostics.report('literal-too-long', range(from, cursor + 1), {
            what: 'string',
            length: value.length,
            limit: limits.maxStringLength,
          });
        }
        push({ kind: 'string', text: value, start: from, end: cursor + 1 });
        return cursor + 1;
      }
      if (character === '\n' || character === '\r') break;
      if (character === '\\') {
        const next = cursor + 1 < end ? text.codePointAt(cursor + 1) : undefined;
        const escaped = next === undefined ? '' : String.fromCodePoint(next);
        const replacement = simpleEscapes[escaped];
        if (replacement !== undefined) {
          value += replacement;
          cursor += 2;
          continue;
        }
        if (escaped === 'u' && text[cursor + 2] === '{') {
          // At most six hex digits: an unbounded search for '}' made a string full of
          // `\u{` quadratic.
          const closing = text.slice(cursor + 3, Math.min(cursor + 10, end)).indexOf('}');
          const hex = closing === -1 ? '' : text.slice(cursor + 3, cursor + 3 + closing);
          const codePoint = /^[0-9a-fA-F]{1,6}$/.test(hex) ? Number.parseInt(hex, 16) : Number.NaN;
          if (codePoint <= 0x10ffff) {
            value += String.fromCodePoint(codePoint);
            cursor += 4 + hex.length;
            continue;
          }
        }
        // The line break after a lone backslash is not part of the escape: it ends the string.
        const width =
          escaped === '' || escaped === '\n' || escaped === '\r' ? 1 : 1 + escaped.length;
        diagnostics.report('invalid-escape', range(cursor, cursor + width), {
          escape: printableCharacter(escaped),
        });
        cursor += width;
        continue;
      }
      value += character;
      cursor++;
    }
    diagnostics.report('unterminated-string', range(from, cursor), {
      quote: close === '"' || close === "'" ? close : `${close}`,
    });
    push({ kind: 'string', text: value, start: from, end: cursor });
    return cursor;
  }

  function lexRegex(from: number): number {
    let cursor = from + 1;
    let inClass = false;
    while (cursor < end) {
      const character = text[cursor];
      if (character === '\n' || character === '\r') break;
      if (character === '\\') {
        // A backslash at the end of the line escapes nothing; the regex is unterminated.
        if (text[cursor + 1] === '\n' || text[cursor + 1] === '\r') {
          cursor++;
          break;
        }
        cursor += 2;
        continue;
      }
      if (character === '[') inClass = true;
      else if (character === ']') inClass = false;
      else if (character === '/' && !inClass) break;
      cursor++;
    }
    if (cursor >= end || text[cursor] !== '/') {
      diagnostics.report('unterminated-regex', range(from, Math.min(cursor, end)));
      push({
        kind: 'regex',
        text: text.slice(from + 1, Math.min(cursor, end)),
        flags: '',
        start: from,
        end: Math.min(cursor, end),
      });
      return Math.min(cursor, end);
    }
    const pattern = text.slice(from + 1, cursor);
    let flagsEnd = cursor + 1;
    while (flagsEnd < end && isIdentifierPart(text.charCodeAt(flagsEnd))) flagsEnd++;
    const flags = text.slice(cursor + 1, flagsEnd);
    if (pattern.length > limits.maxStringLength) {
      diagnostics.report('literal-too-long', range(from, flagsEnd), {
        what: 'regular expression',
        length: pattern.length,
        limit: limits.maxStringLength,
      });
    } else {
      const compiled = compileRegex(pattern, flags);
      if (!compiled.ok) {
        diagnostics.report('invalid-regex', range(from, flagsEnd), {
          pattern: printableText(pattern),
          flags: printableText(flags),
          reason: printableText(compiled.reason),
          hint: compiled.hint,
        });
      }
    }
    push({ kind: 'regex', text: pattern, flags, start: from, end: flagsEnd });
    return flagsEnd;
  }
}

/**
 * Why a regex cannot be used, or undefined: a flag other than `i m s u`, or a pattern
 * the linear-time engine cannot run (see regex.ts).
 */
export function regexProblem(pattern: string, flags: string): string | undefined {
  const compiled = compileRegex(pattern, flags);
  return compiled.ok ? undefined : compiled.reason;
}
