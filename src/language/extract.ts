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

const tagPattern = /<(chc|spec|intent|rules)>([\s\S]*?)(?:<\/\1>|$)/i;
const fencePattern = /^[ \t]*(`{3,}|~{3,})[^\n]*\n/gm;
const arrowPattern = /->|→|=>/;

/** Whether a line is prose rather than spec, judged only for lines at the edges. */
function isProse(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === '') return false;
  if (arrowPattern.test(trimmed)) return false;
  if (/^(#|\/\/|@)/.test(trimmed)) return false;
  if (/^(reject|confirm)\s+[A-Za-z_]\w*\s*\(/i.test(trimmed)) return false;
  if (/:$/.test(trimmed)) return true;
  // Three words in a row separated by single spaces read as a sentence, not as atoms.
  return /[A-Za-z'’]{2,}[,;.!?]?\s[A-Za-z'’]{2,}[,;.!?]?\s[A-Za-z'’]{2,}/.test(trimmed);
}

function innerRegion(text: string): SpecRegion {
  const tag = tagPattern.exec(text);
  if (tag?.[2] !== undefined) {
    const start = tag.index + tag[0].indexOf('>') + 1;
    return { start, end: start + tag[2].length, source: `<${tag[1]}> tags` };
  }
  const fences = [...text.matchAll(fencePattern)];
  if (fences.length > 0) {
    // Prefer the first fenced block that holds a rule; fall back to the first block.
    const blocks: SpecRegion[] = [];
    for (let index = 0; index < fences.length; index += 2) {
      const open = fences[index];
      if (!open) break;
      const start = open.index + open[0].length;
      const close = fences[index + 1];
      blocks.push({ start, end: close ? close.index : text.length, source: 'a Markdown code fence' });
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
  // And at its end.
  while (end > start) {
    const newline = text.lastIndexOf('\n', end - 1);
    const lineStart = newline < start ? start : newline + 1;
    const line = text.slice(lineStart, end);
    if (line.trim() === '') {
      if (lineStart === start) break;
      end = lineStart - 1;
      continue;
    }
    if (!isProse(line)) break;
    strippedProse = true;
    end = lineStart;
  }
  const sources = [inner.source, strippedProse ? 'surrounding prose' : undefined].filter(
    (source): source is string => source !== undefined,
  );
  return sources.length > 0 ? { start, end, source: sources.join(' and ') } : { start, end };
}
