import { isRecord } from '../../support/is-record.js';
/**
 * The JSON a model's reply holds, read as models write it (fenced, bare, inside
 * prose; with comments, trailing commas or single quotes): shared by the readers of
 * the checker's verdict and of stage 1's goal analysis.
 */

/** Characters of a model reply looked at; longer replies are cut (and then rarely valid). */
export const maxReplyLength = 100_000;

const jsonFencePattern = /```[ \t]*(?:json[a-z0-9]*|JSON)?[ \t]*\n([\s\S]*?)```/g;

/** Balanced `{…}` objects of a text, outermost, in order (strings are skipped over). */
function objectsIn(text: string, limit = 20): string[] {
  const found: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let index = 0; index < text.length && found.length < limit; index++) {
    const character = text[index];
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
      continue;
    }
    if (character === '"' && depth > 0) inString = true;
    else if (character === '{') {
      if (depth === 0) start = index;
      depth++;
    } else if (character === '}' && depth > 0) {
      depth--;
      if (depth === 0) found.push(text.slice(start, index + 1));
    }
  }
  return found;
}

/**
 * JSON as models write it: strict first; then without `//` comments and trailing
 * commas, and with single quotes as double (Python's `{'verdict': 'agree'}`).
 */
function parseLenient(candidate: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(candidate) };
  } catch (error) {
    const relaxed = candidate
      .replace(/^\s*\/\/.*$/gm, '')
      .replace(/,(\s*[}\]])/g, '$1')
      .replace(/'([^'"\\\n]*)'(\s*[:,}\]])/g, '"$1"$2')
      .replace(/\bTrue\b/g, 'true')
      .replace(/\bFalse\b/g, 'false')
      .replace(/\bNone\b/g, 'null');
    try {
      return { value: JSON.parse(relaxed) };
    } catch {
      return { error: (error as Error).message };
    }
  }
}

/** The JSON values a reply may hold, in the order a reader would look for them. */
export function jsonCandidates(reply: string): { values: unknown[]; problem: string } {
  const text = reply.slice(0, maxReplyLength);
  const candidates: string[] = [];
  for (const match of text.matchAll(jsonFencePattern)) candidates.push(match[1] ?? '');
  candidates.push(text.trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first !== -1 && last > first) candidates.push(text.slice(first, last + 1));
  candidates.push(...objectsIn(text));
  const values: unknown[] = [];
  let problem = 'it contains no JSON object';
  const seen = new Set<string>();
  for (const candidate of candidates) {
    const trimmed = candidate.trim();
    if ((!trimmed.startsWith('{') && !trimmed.startsWith('[')) || seen.has(trimmed)) continue;
    seen.add(trimmed);
    const parsed = parseLenient(trimmed);
    if ('value' in parsed) values.push(parsed.value);
    else problem = `its JSON does not parse (${parsed.error})`;
  }
  return { values, problem };
}

/**
 * The JSON object in a model's reply: in a fence, bare, or between the first `{` and
 * the last `}` of prose. Returns why not when there is none.
 */
export function extractJson(
  reply: string,
): { readonly value: unknown } | { readonly problem: string } {
  const { values, problem } = jsonCandidates(reply);
  const object = values.find(isRecord);
  return object !== undefined ? { value: object } : { problem };
}

/** A text cut to `limit` characters, an ellipsis marking the cut. */
export const bound = (text: string, limit: number) =>
  text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
