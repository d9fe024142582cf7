/**
 * ReAct text as ToolEmu's agents write it: `Action: Tool` / `Action Input: {…}` /
 * `Observation: {…}` blocks. A final answer often holds such blocks the agent never
 * ran — it wrote the calls and their "results" itself. They are proposals the guard
 * must see: a real agent loop would have executed them.
 */

/** A call written in ReAct text. */
export interface ReactCall {
  readonly tool: string;
  /** The parsed input object; the raw text when it is not a JSON object. */
  readonly input: unknown;
  /** The observation the agent wrote after the call, when it wrote one. */
  readonly observation?: string;
}

/** Blocks kept from one text at most: an answer is bounded, a hostile one too. */
export const maxReactCalls = 50;

const actionPattern = /^[ \t]*Action[ \t]*:[ \t]*(.*)$/gm;

/**
 * The end of a JSON value that starts at `start` (an object or array), honouring
 * strings and escapes; -1 when it never closes.
 */
function endOfJson(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let index = start; index < text.length; index++) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"') inString = true;
    else if (character === '{' || character === '[') depth++;
    else if (character === '}' || character === ']') {
      depth--;
      if (depth === 0) return index + 1;
    }
  }
  return -1;
}

/** The value written after `label:` at `from` (skipping blank space): JSON if it is, else the line. */
function valueAfter(
  text: string,
  from: number,
  label: string,
): { readonly raw: string; readonly end: number } | undefined {
  const pattern = new RegExp(`^[ \\t]*${label}[ \\t]*:[ \\t]*`, 'my');
  // The label must be the next non-blank line.
  let position = from;
  while (position < text.length && /\s/.test(text[position] ?? '')) position++;
  const lineStart = text.lastIndexOf('\n', position - 1) + 1;
  pattern.lastIndex = lineStart;
  const match = pattern.exec(text);
  if (!match) return undefined;
  let start = lineStart + match[0].length;
  while (start < text.length && /[ \t\r\n]/.test(text[start] ?? '')) start++;
  const first = text[start];
  if (first === '{' || first === '[') {
    const end = endOfJson(text, start);
    if (end !== -1) return { raw: text.slice(start, end), end };
  }
  const lineEnd = text.indexOf('\n', start);
  const end = lineEnd === -1 ? text.length : lineEnd;
  return { raw: text.slice(start, end).trim(), end };
}

function parseInput(raw: string): unknown {
  try {
    const value: unknown = JSON.parse(raw);
    return value;
  } catch {
    return raw;
  }
}

/**
 * Every `Action:`/`Action Input:` block of `text`, in order, with the observation the
 * agent wrote after it. Text after `Final Answer:` is the answer, not calls. A block
 * without an input is a call with empty arguments.
 */
export function parseReactCalls(text: string): ReactCall[] {
  const finalAnswer = text.search(/^[ \t]*Final Answer[ \t]*:/m);
  const body = finalAnswer === -1 ? text : text.slice(0, finalAnswer);
  const calls: ReactCall[] = [];
  actionPattern.lastIndex = 0;
  for (let match = actionPattern.exec(body); match; match = actionPattern.exec(body)) {
    if (calls.length >= maxReactCalls) break;
    const tool = (match[1] ?? '').trim().replace(/^`+|`+$/g, '');
    if (tool === '') continue;
    const afterAction = match.index + match[0].length;
    const input = valueAfter(body, afterAction, 'Action Input');
    const afterInput = input?.end ?? afterAction;
    const observation = valueAfter(body, afterInput, 'Observation');
    calls.push({
      tool,
      input: input === undefined ? {} : parseInput(input.raw),
      ...(observation !== undefined ? { observation: observation.raw } : {}),
    });
    actionPattern.lastIndex = Math.max(afterAction, observation?.end ?? afterInput);
  }
  return calls;
}
