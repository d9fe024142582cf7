import { hasRuleArrow, specTagNames } from '../../language/index.js';

/**
 * Reading the spec out of an encoder reply before the language's own extractor sees
 * it. Models answer with Markdown around the spec (`**<CHC>**`, bullets, `1)`,
 * inline backticks), VeriSafe's `x=(5)`, and sometimes with several code blocks — a
 * fixed line quoted before the whole spec, say. This module
 *
 * - picks the block the prompt asked for (the ```` ```intent ```` fence) when there are
 *   several, and refuses to pick when the reply holds more than one different
 *   candidate spec: the model is asked again, the formalizer never guesses;
 * - rewrites Markdown decoration and `=(v)` to plain syntax.
 *
 * Every rewrite keeps the text's length and line breaks (characters become spaces,
 * `1)` becomes `1.`), so diagnostics of the rewritten text point at the same lines
 * and columns of the model's reply, and the repair prompt quotes the model's own
 * words. Rewrites never touch quoted text, regexes or comments, so no value changes.
 */

/** Where one candidate spec sits in a reply. */
export interface SpecCandidate {
  /** 1-based line of the fence or tag that opens it. */
  readonly line: number;
  /** `intent`, another fence language, `code block` or `<CHC> tags`. */
  readonly label: string;
  readonly start: number;
  readonly end: number;
}

export type SpecReply =
  | {
      readonly kind: 'spec';
      /** The reply rewritten, as long as the reply and with the same line breaks. */
      readonly text: string;
    }
  | {
      readonly kind: 'ambiguous';
      /** The different candidate specs, in reply order. */
      readonly candidates: readonly SpecCandidate[];
    };

const fenceLinePattern = /^[ \t]*(`{3,}|~{3,})[ \t]*([^\n`]*?)[ \t]*$/;
const tagLinePattern = new RegExp(
  `^[ \\t]*(?:\\*\\*|__)?<(\\/?)(${specTagNames})>(?:\\*\\*|__)?[ \\t]*$`,
  'i',
);
const inlineTagPattern = new RegExp(`^[ \\t]*(?:\\*\\*|__)?<(${specTagNames})>(.*?)<\\/\\1>`, 'i');
/** `__` next to a tag: emphasis, not part of a name. */
const tagEmphasisPattern = new RegExp(
  `__(?=<\\/?(?:${specTagNames})>)|(?<=<\\/?(?:${specTagNames})>)__`,
  'gi',
);
/** Fence languages that never hold a spec. */
const dataLanguages = new Set(['json', 'jsonc', 'json5', 'yaml', 'yml', 'javascript', 'js']);

interface Line {
  readonly start: number;
  readonly end: number;
  readonly text: string;
  readonly number: number;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  let number = 1;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    lines.push({ start, end, text: text.slice(start, end), number });
    if (newline === -1) break;
    start = newline + 1;
    number++;
  }
  return lines;
}

interface Block extends SpecCandidate {
  /** The fence or tag lines themselves, and the content between them. */
  readonly outerStart: number;
  readonly outerEnd: number;
  readonly fence: boolean;
}

function fencedBlocks(lines: readonly Line[], textLength: number): Block[] {
  const blocks: Block[] = [];
  let open: { line: Line; language: string } | undefined;
  for (const line of lines) {
    const match = fenceLinePattern.exec(line.text);
    if (!match) continue;
    if (!open) {
      open = { line, language: (match[2] ?? '').trim().toLowerCase() };
      continue;
    }
    blocks.push({
      line: open.line.number,
      label: open.language === '' ? 'code block' : open.language,
      start: Math.min(open.line.end + 1, textLength),
      end: line.start,
      outerStart: open.line.start,
      outerEnd: line.end,
      fence: true,
    });
    open = undefined;
  }
  if (open) {
    // An unclosed fence runs to the end of the reply (a reply cut off at the token limit).
    blocks.push({
      line: open.line.number,
      label: open.language === '' ? 'code block' : open.language,
      start: Math.min(open.line.end + 1, textLength),
      end: textLength,
      outerStart: open.line.start,
      outerEnd: textLength,
      fence: true,
    });
  }
  return blocks;
}

/**
 * `<CHC>1. A -> B</CHC>` with both tags on one line, the tag opening the line (so
 * that a tag inside a quoted value is not taken for one).
 */
function inlineTaggedBlocks(lines: readonly Line[]): Block[] {
  const blocks: Block[] = [];
  for (const line of lines) {
    const match = inlineTagPattern.exec(line.text);
    if (!match) continue;
    const start = line.start + match[0].indexOf('>') + 1;
    blocks.push({
      line: line.number,
      label: `<${match[1] ?? ''}> tags`,
      start,
      end: start + (match[2] ?? '').length,
      outerStart: line.start,
      outerEnd: line.end,
      fence: false,
    });
  }
  return blocks;
}

function taggedBlocks(lines: readonly Line[], textLength: number): Block[] {
  const blocks: Block[] = [...inlineTaggedBlocks(lines)];
  let open: { line: Line; name: string } | undefined;
  for (const line of lines) {
    const match = tagLinePattern.exec(line.text);
    if (!match) continue;
    const closing = match[1] === '/';
    const name = (match[2] ?? '').toLowerCase();
    if (!open && !closing) open = { line, name };
    else if (open && closing && name === open.name) {
      blocks.push({
        line: open.line.number,
        label: `<${match[2] ?? name}> tags`,
        start: Math.min(open.line.end + 1, textLength),
        end: line.start,
        outerStart: open.line.start,
        outerEnd: line.end,
        fence: false,
      });
      open = undefined;
    }
  }
  return blocks;
}

/** Whitespace-insensitive content, so that the same spec twice is one candidate. */
function contentKey(text: string, block: Block): string {
  return text
    .slice(block.start, block.end)
    .replace(/^[ \t]*(?:[-*+•][ \t]+|\d+[.)][ \t]+)/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Blocks that could be the spec: fences and tag pairs whose content has a rule arrow.
 * A fence inside tags (or tags inside a fence) is one candidate, the inner one.
 */
function candidatesOf(text: string, lines: readonly Line[]): Block[] {
  const withRule = (block: Block) => hasRuleArrow(text.slice(block.start, block.end));
  const fences = fencedBlocks(lines, text.length).filter(
    (block) => !dataLanguages.has(block.label) && withRule(block),
  );
  const tags = taggedBlocks(lines, text.length).filter(withRule);
  const inside = (inner: Block, outer: Block) =>
    inner.outerStart >= outer.start && inner.outerEnd <= outer.end;
  const kept = [
    ...fences.filter((fence) => !tags.some((tag) => inside(tag, fence))),
    ...tags.filter((tag) => !fences.some((fence) => inside(fence, tag))),
  ];
  return kept.sort((left, right) => left.start - right.start);
}

/** Replaces `[start, end)` of `characters` with spaces, keeping line breaks. */
function blank(characters: string[], start: number, end: number): void {
  for (let index = start; index < end; index++) {
    if (characters[index] !== '\n' && characters[index] !== '\r') characters[index] = ' ';
  }
}

const closingQuotes: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '“': '”',
  '‘': '’',
};

/**
 * Marks the characters of a line that belong to quoted text, regexes or comments:
 * rewrites leave them alone. When in doubt (an apostrophe, an unclosed quote) the
 * rest of the line counts as protected: a rewrite not made costs a repair round at
 * worst, a rewrite inside a value would change what the spec says.
 */
function protectedMask(line: string): boolean[] {
  const mask = new Array<boolean>(line.length).fill(false);
  let index = 0;
  while (index < line.length) {
    const character = line[index] ?? '';
    const previous = line[index - 1] ?? ' ';
    const close = closingQuotes[character];
    if (close !== undefined && !(character === "'" && /\w/.test(previous))) {
      let end = index + 1;
      while (end < line.length && line[end] !== close) end += line[end] === '\\' ? 2 : 1;
      mask.fill(true, index, Math.min(end + 1, line.length));
      index = end + 1;
      continue;
    }
    if (character === '#' || (character === '/' && line[index + 1] === '/')) {
      mask.fill(true, index);
      break;
    }
    // Only the few characters before a slash decide whether it opens a regex: a window,
    // so that a line of slashes stays linear.
    if (
      character === '/' &&
      /\bmatches\s*(?:\[\s*)?$|[[,]\s*$/i.test(line.slice(Math.max(0, index - 24), index))
    ) {
      let end = index + 1;
      let inClass = false;
      while (end < line.length) {
        const inner = line[end];
        if (inner === '\\') end++;
        else if (inner === '[') inClass = true;
        else if (inner === ']') inClass = false;
        else if (inner === '/' && !inClass) break;
        end++;
      }
      // The flags after the closing slash belong to the regex too.
      end++;
      while (end < line.length && /[a-z]/i.test(line[end] ?? '')) end++;
      mask.fill(true, index, Math.min(end, line.length));
      index = end;
      continue;
    }
    index++;
  }
  return mask;
}

/** `x=(5)` and `x = ("Alarm")`: parentheses around one value after an operator ending in `=`. */
const singleValueTuple = /(?:[=<>!]=?|==)[ \t]*(\()[ \t]*([^(),\n]*?)[ \t]*(\))/g;

/** Rewrites Markdown decoration and `=(v)` in one line, in place and length-preserving. */
function rewriteLine(characters: string[], line: Line): void {
  const text = line.text;
  if (fenceLinePattern.test(text)) return;
  const mask = protectedMask(text);
  const free = (from: number, to: number) => {
    for (let index = from; index < to; index++) if (mask[index]) return false;
    return true;
  };
  const set = (offset: number, value: string) => {
    if (!mask[offset]) characters[line.start + offset] = value;
  };
  // A Markdown bullet or `1)` numbering at the start of the line.
  const bullet = /^([ \t]*)(?:([-*+•])[ \t]+(?!>)|(\d+)\)[ \t]+)/.exec(text);
  if (bullet) {
    const at = (bullet[1] ?? '').length;
    if (bullet[2] !== undefined) set(at, ' ');
    else set(at + (bullet[3] ?? '').length, '.');
  }
  // Emphasis markers and inline-code backticks: never part of the language.
  for (const match of text.matchAll(/\*\*|`/g)) {
    if (free(match.index, match.index + match[0].length)) {
      for (let offset = 0; offset < match[0].length; offset++) set(match.index + offset, ' ');
    }
  }
  // `__` only next to a tag: elsewhere it may be part of a name.
  for (const match of text.matchAll(tagEmphasisPattern)) {
    set(match.index, ' ');
    set(match.index + 1, ' ');
  }
  for (const match of text.matchAll(singleValueTuple)) {
    const whole = match[0];
    const open = match.index + whole.indexOf('(');
    const close = match.index + whole.length - 1;
    // The operator itself must be free text, and the value not a quoted string left open.
    if (!free(match.index, open + 1) || mask[close]) continue;
    set(open, ' ');
    set(close, ' ');
  }
}

/**
 * Reads an encoder reply: the text to check (the reply, rewritten, possibly with all
 * but the chosen block blanked) or the candidate specs it could not choose between.
 */
export function readSpecReply(reply: string): SpecReply {
  const lines = linesOf(reply);
  const candidates = candidatesOf(reply, lines);
  const labelled = candidates.filter(
    (block) => block.fence && /^intent(guard)?$/.test(block.label),
  );
  const pool = labelled.length > 0 ? labelled : candidates;
  const distinct = new Map<string, Block>();
  for (const block of pool)
    if (!distinct.has(contentKey(reply, block))) distinct.set(contentKey(reply, block), block);
  if (distinct.size > 1) {
    return {
      kind: 'ambiguous',
      candidates: [...distinct.values()].map(({ line, label, start, end }) => ({
        line,
        label,
        start,
        end,
      })),
    };
  }
  // UTF-16 units, so that offsets match the string's.
  const units = reply.split('');
  const chosen = pool[pool.length - 1];
  if (chosen && candidates.length > 1) {
    // Several blocks, one spec: blank everything else so the extractor cannot pick another.
    blank(units, 0, chosen.start);
    blank(units, chosen.end, units.length);
  }
  for (const line of lines) {
    if (chosen && candidates.length > 1 && (line.end <= chosen.start || line.start >= chosen.end))
      continue;
    rewriteLine(units, line);
  }
  return { kind: 'spec', text: units.join('') };
}

/** The message after a reply that held several different candidate specs. */
export function ambiguityPrompt(candidates: readonly SpecCandidate[]): string {
  const where = candidates.map((candidate) => `${candidate.label} at line ${candidate.line}`);
  return [
    `Your reply holds ${candidates.length} different blocks that each could be the spec (${where.join(', ')}), so it is not clear which one you mean.`,
    'Reply with the whole spec in exactly one ```intent code block, and put no other rules in code blocks.',
  ].join(' ');
}
