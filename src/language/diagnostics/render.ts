import { invisibleOrSurrogateClass } from '../../support/printable-text.js';
import { LineIndex } from '../source-range.js';
import type { Diagnostic } from './diagnostic.js';

const invisibleCharacter = new RegExp(`[${invisibleOrSurrogateClass}]`, 'gu');

export interface RenderOptions {
  /** Shown before line numbers, e.g. the file name. */
  readonly fileName?: string;
  /** ANSI colours for a terminal. */
  readonly color?: boolean;
}

const ansi = {
  red: (text: string) => `\u001b[31m${text}\u001b[39m`,
  yellow: (text: string) => `\u001b[33m${text}\u001b[39m`,
  blue: (text: string) => `\u001b[34m${text}\u001b[39m`,
  bold: (text: string) => `\u001b[1m${text}\u001b[22m`,
};
const plain = { red: String, yellow: String, blue: String, bold: String } satisfies typeof ansi;

/**
 * Tabs and other control characters would shift the caret, and bidirectional or line
 * separator characters would let hostile input make the excerpt read differently from
 * what was parsed ("Trojan Source"); show each code unit of them as a space.
 */
function visible(text: string): string {
  return text.replace(invisibleCharacter, (character) => ' '.repeat(character.length));
}

const maxExcerptWidth = 160;

/**
 * Renders one diagnostic for a terminal: the message, the location, the source line
 * with a caret under the range, and the hint.
 *
 * @example
 * error[unknown-predicate]: Unknown predicate 'ReservInfo'.
 *   --> spec.intent:2:5
 *   |
 * 2 | R1: ReservInfo(date = today) -> Reserve
 *   |     ^^^^^^^^^^
 *   = hint: Did you mean 'ReserveInfo'?
 */
export function renderDiagnostic(
  diagnostic: Diagnostic,
  source: string | LineIndex | undefined,
  options: RenderOptions = {},
): string {
  const style = options.color ? ansi : plain;
  const label =
    diagnostic.severity === 'error'
      ? style.red(`error[${diagnostic.code}]`)
      : style.yellow(`warning[${diagnostic.code}]`);
  const lines = [`${style.bold(label)}${style.bold(`: ${diagnostic.message}`)}`];
  const file = options.fileName ?? '<input>';
  const range = diagnostic.range;
  if (range) {
    lines.push(`  ${style.blue('-->')} ${file}:${range.start.line}:${range.start.column}`);
    const index =
      source === undefined
        ? undefined
        : source instanceof LineIndex
          ? source
          : new LineIndex(source);
    if (index) {
      const lineText = index.lineText(range.start.line);
      // Long lines (minified or hostile input) are cut to a window around the caret.
      const windowStart = Math.max(0, range.start.column - 1 - maxExcerptWidth / 2);
      const excerpt = visible(lineText.slice(windowStart, windowStart + maxExcerptWidth));
      const caretStart = range.start.column - 1 - windowStart;
      const caretEnd =
        range.end.line === range.start.line ? range.end.column - 1 - windowStart : excerpt.length;
      const width = Math.max(1, Math.min(caretEnd, excerpt.length) - caretStart);
      const gutter = String(range.start.line);
      const pad = ' '.repeat(gutter.length);
      lines.push(`${pad} ${style.blue('|')}`);
      lines.push(`${style.blue(`${gutter} |`)} ${excerpt}`);
      lines.push(
        `${pad} ${style.blue('|')} ${' '.repeat(Math.max(0, caretStart))}${style.red('^'.repeat(width))}`,
      );
      if (diagnostic.hint) lines.push(`${pad} ${style.blue('=')} hint: ${diagnostic.hint}`);
      return lines.join('\n');
    }
  } else if (diagnostic.path) {
    lines.push(`  ${style.blue('-->')} ${file} at ${diagnostic.path}`);
  } else if (options.fileName) {
    lines.push(`  ${style.blue('-->')} ${file}`);
  }
  if (diagnostic.hint) lines.push(`  ${style.blue('=')} hint: ${diagnostic.hint}`);
  return lines.join('\n');
}

export function renderDiagnostics(
  diagnostics: readonly Diagnostic[],
  source: string | undefined,
  options: RenderOptions = {},
): string {
  const index = source === undefined ? undefined : new LineIndex(source);
  return diagnostics.map((diagnostic) => renderDiagnostic(diagnostic, index, options)).join('\n\n');
}

/** The JSON form used by `--json`: stable field names, ranges with line, column and offset. */
export function diagnosticToJson(
  diagnostic: Diagnostic,
  fileName?: string,
): Record<string, unknown> {
  return {
    code: diagnostic.code,
    severity: diagnostic.severity,
    message: diagnostic.message,
    ...(diagnostic.hint ? { hint: diagnostic.hint } : {}),
    ...(fileName ? { file: fileName } : {}),
    ...(diagnostic.range ? { range: diagnostic.range } : {}),
    ...(diagnostic.path ? { path: diagnostic.path } : {}),
  };
}
