import { escapeRegExp } from '../support/escape-regexp.js';
import { arrowSpellings } from './lexer.js';

/**
 * LLMs wrap specs in Markdown fences, `<CHC>…</CHC>` tags and a sentence of prose.
 * This finds the part of the text that is the spec, as a region of the original
 * text, so that every source range still points into what the caller gave us.
 */
export interface SpecRegion {
  readonly start: number;
  readonly end: number;
  /** What was stripped, for the `extracted-spec` warning; absent when nothing was. */
  readonly source?: string;
}

/** The tags LLMs put around a spec, as a regular-expression alternation. */
export const specTagNames = 'chc|spec|intent|rules';
const openingTagPattern = new RegExp(`<(${specTagNames})>`, 'gi');
// The closing fence may end the text without a newline. With the `m` flag a line also
// starts after '\r' and U+2028, so matches not after '\n' are dropped (see `fencesOf`).
const fencePattern = /^[ \t]*(`{3,}|~{3,})[^\n]*(?:\n|$)/gm;
const arrowPattern = new RegExp(arrowSpellings.map(escapeRegExp).join('|'));

/** Whether `text` holds a rule arrow, in any spelling the lexer reads as one. */
export function hasRuleArrow(text: string): boolean {
  return arrowPattern.test(text);
}

/** Characters that occur in spec lines (operators, calls) but hardly ever in prose. */
const codePattern = /[A-Za-z0-9_)]\(|[=&∧≠≤≥∈∉⊆⊄⊈<>[\]]/;
const proseWordPattern = /^[A-Za-z'’]{2,}[,;.!?]?$/;

/**
 * Whether a line is prose rather than spec, judged only for lines at the edges. When
 * in doubt the line is kept: a kept prose line is a syntax error the user sees, while
 * a dropped spec line (say the first line of a rule that spans lines) would silently
 * change what the spec means.
 */
function isProse(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === '') return false;
  if (arrowPattern.test(trimmed)) return false;
  if (/^(#|\/\/|@)/.test(trimmed)) return false;
  if (/^(reject|confirm)\s+[A-Za-z_]\w*\s*\(/i.test(trimmed)) return false;
  if (trimmed.endsWith(':')) return true;
  // A line that ends the way a rule continues (`A &`, `x = 1,`, `A and`) is spec.
  if (codePattern.test(trimmed) || /(?:[,&∧(]|\band)$/i.test(trimmed)) return false;
  // A sentence ends like one; a spec line without an arrow (the first line of a rule
  // that spans lines, `Found and Deleted`) does not.
  if (!/[.!?]$/.test(trimmed)) return false;
  // Three words in a row read as a sentence, not as atoms. Checked word by word: a
  // regular expression over the line was quadratic on a long run of letters.
  let run = 0;
  for (const word of trimmed.split(/\s+/)) {
    run = proseWordPattern.test(word) ? run + 1 : 0;
    if (run >= 3) return true;
  }
  return false;
}

/** Characters before a tag on its line that show the tag is inside spec text. */
const codeCharacters = new Set([...'"“‘#=~<>!&∧≠≈≃≤≥∈∉⊆⊄⊈[/']);

/**
 * The first `<CHC>`-style tag that is not inside a string, regex or comment of the spec
 * (`A(x = "<spec>")` and `# <spec>` are spec text, not wrappers). When anything before
 * the tag on its line looks like spec text, the tag is not taken: a tag wrongly taken
 * would silently drop the spec around it. One forward scan keeps this linear.
 */
function findTag(text: string): SpecRegion | undefined {
  let scanned = 0;
  let codeOnLine = false;
  for (const match of text.matchAll(openingTagPattern)) {
    for (; scanned < match.index; scanned++) {
      const character = text[scanned] ?? '';
      const previous = text[scanned - 1] ?? ' ';
      if (character === '\n') codeOnLine = false;
      else if (
        codeCharacters.has(character) ||
        // An opening quote, not an apostrophe (`Here's`), and a call, not prose `(see below)`.
        (character === "'" && !/\w/.test(previous)) ||
        (character === '(' && /\w/.test(previous))
      ) {
        codeOnLine = true;
      }
    }
    if (codeOnLine) continue;
    const name = match[1] ?? '';
    // `**<CHC>**` and `__<CHC>__`: Markdown emphasis around both tags belongs to them.
    const emphasis = /^(\*\*|__)$/.exec(text.slice(Math.max(0, match.index - 2), match.index))?.[1];
    let start = match.index + match[0].length;
    if (emphasis && text.startsWith(emphasis, start)) start += emphasis.length;
    const closing = new RegExp(`</${name}>`, 'gi');
    closing.lastIndex = start;
    const close = closing.exec(text);
    let end = close ? close.index : text.length;
    if (close && emphasis && text.slice(end - emphasis.length, end) === emphasis) {
      end = Math.max(start, end - emphasis.length);
    }
    return { start, end, source: `<${name}> tags` };
  }
  return undefined;
}

/** Fence lines: starting the text or after '\n' (not after '\r' or U+2028 in a comment). */
function fencesOf(text: string): RegExpExecArray[] {
  if (!text.includes('```') && !text.includes('~~~')) return [];
  return [...text.matchAll(fencePattern)].filter(
    (match) => match.index === 0 || text[match.index - 1] === '\n',
  );
}

function innerRegion(text: string): SpecRegion {
  const tag = findTag(text);
  if (tag) return tag;
  const fences = fencesOf(text);
  if (fences.length > 0) {
    // Prefer the first fenced block that holds a rule; fall back to the first block.
    const blocks: SpecRegion[] = [];
    for (let index = 0; index < fences.length; index += 2) {
      const open = fences[index];
      if (!open) break;
      const start = Math.min(open.index + open[0].length, text.length);
      const close = fences[index + 1];
      blocks.push({
        start,
        end: close ? close.index : text.length,
        source: 'a Markdown code fence',
      });
    }
    const withRule = blocks.find((block) => arrowPattern.test(text.slice(block.start, block.end)));
    const chosen = withRule ?? blocks[0];
    if (chosen) return chosen;
  }
  return { start: 0, end: text.length };
}

/** Finds the spec inside `text`; see the module comment. */
export function extractSpecRegion(text: string): SpecRegion {
  const inner = innerRegion(text);
  let { start, end } = inner;
  let strippedProse = false;
  // Drop prose lines at the start of the region.
  while (start < end) {
    const newline = text.indexOf('\n', start);
    const lineEnd = newline === -1 || newline >= end ? end : newline;
    if (!isProse(text.slice(start, lineEnd))) break;
    strippedProse = true;
    start = lineEnd === end ? end : lineEnd + 1;
  }
  // And at its end. Blank lines are only dropped together with prose after them, so
  // that a clean spec keeps its whole range.
  let cursor = end;
  while (cursor > start) {
    const newline = text.lastIndexOf('\n', cursor - 1);
    const lineStart = newline < start ? start : newline + 1;
    const line = text.slice(lineStart, cursor);
    if (line.trim() === '') {
      if (lineStart === start) break;
      cursor = lineStart - 1;
      continue;
    }
    if (!isProse(line)) break;
    strippedProse = true;
    end = lineStart;
    cursor = lineStart;
  }
  const sources = [inner.source, strippedProse ? 'surrounding prose' : undefined].filter(
    (source): source is string => source !== undefined,
  );
  return sources.length > 0 ? { start, end, source: sources.join(' and ') } : { start, end };
}
