import type { Discrepancy } from '../prompts/feedback.js';
import { bound, jsonCandidates, maxReplyLength } from './json-in-reply.js';

export interface CheckerVerdict {
  readonly agree: boolean;
  readonly discrepancies: readonly Discrepancy[];
}

/**
 * The JSON schema the checker is asked to fill where the provider supports structured
 * output; `reasoning` comes first so that the model thinks before it judges.
 */
export const checkerReplyJsonSchema: Readonly<Record<string, unknown>> = {
  type: 'object',
  properties: {
    reasoning: { type: 'string' },
    verdict: { type: 'string', enum: ['agree', 'disagree'] },
    discrepancies: {
      type: 'array',
      items: {
        type: 'object',
        properties: { issue: { type: 'string' }, fix: { type: 'string' } },
        required: ['issue', 'fix'],
        additionalProperties: false,
      },
    },
  },
  required: ['reasoning', 'verdict', 'discrepancies'],
  additionalProperties: false,
};

const agreeWords = new Set([
  'agree',
  'agrees',
  'agreed',
  'agreement',
  'yes',
  'true',
  'match',
  'matches',
  'matching',
  'matched',
  'consistent',
  'correct',
  'faithful',
  'pass',
  'passed',
  'valid',
  'equivalent',
  'ok',
  'approve',
  'approved',
  'accept',
  'accepted',
]);
const disagreeWords = new Set([
  'disagree',
  'disagrees',
  'disagreed',
  'disagreement',
  'no',
  'false',
  'mismatch',
  'mismatched',
  'inconsistent',
  'incorrect',
  'unfaithful',
  'fail',
  'failed',
  'invalid',
  'different',
  'reject',
  'rejected',
  'partial',
  'partially agree',
  'partly agree',
  'partially',
  'does not match',
  'do not match',
  'not match',
  'not consistent',
  'not equivalent',
]);

/** `true`, `"Agrees"`, `"MATCH."` → agree; `"partially agree"`, `false` → disagree; else undefined. */
function verdictWord(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return undefined;
  const word = value
    .toLowerCase()
    .replace(/[*_`"'.!:]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (disagreeWords.has(word)) return false;
  if (agreeWords.has(word)) return true;
  return undefined;
}

const verdictKeys = [
  'verdict',
  'result',
  'agree',
  'agreement',
  'match',
  'matches',
  'decision',
  'judgement',
  'judgment',
  'consistent',
  'correct',
  'faithful',
  'answer',
];
const issueKeys = ['issue', 'description', 'problem', 'discrepancy', 'message', 'detail', 'reason'];
const fixKeys = ['fix', 'suggestion', 'suggested_fix', 'correction', 'recommendation'];

function discrepancyOf(item: unknown): Discrepancy | undefined {
  if (typeof item === 'string')
    return item.trim() === '' ? undefined : { issue: bound(item.trim(), 1000) };
  if (typeof item !== 'object' || item === null) return undefined;
  const record = item as Record<string, unknown>;
  const issue = issueKeys.map((key) => record[key]).find((value) => typeof value === 'string');
  if (typeof issue !== 'string' || issue.trim() === '') return undefined;
  const fix = fixKeys.map((key) => record[key]).find((value) => typeof value === 'string');
  return typeof fix === 'string' && fix.trim() !== ''
    ? { issue: bound(issue.trim(), 1000), fix: bound(fix.trim(), 1000) }
    : { issue: bound(issue.trim(), 1000) };
}

/** Keys under which a model may wrap its whole answer (`{"result": {"verdict": …}}`). */
const wrapperKeys = ['result', 'review', 'response', 'output', 'evaluation', 'data', 'answer'];

/**
 * A verdict from one parsed JSON value — an object, one wrapped under `result` and the
 * like, or the first of an array — read from the first of `keys` it has.
 */
function verdictFromJson(
  value: unknown,
  keys: readonly string[],
  depth = 0,
): CheckerVerdict | undefined {
  if (depth > 3) return undefined;
  if (Array.isArray(value))
    return value.length > 0 ? verdictFromJson(value[0], keys, depth + 1) : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const record = Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, entry]) => [
      key.toLowerCase(),
      entry,
    ]),
  );
  for (const key of keys) {
    if (!(key in record)) continue;
    const agree = verdictWord(record[key]);
    if (agree === undefined) continue;
    const list = record['discrepancies'] ?? record['issues'] ?? record['differences'];
    const discrepancies = (Array.isArray(list) ? list : [])
      .slice(0, 50)
      .map(discrepancyOf)
      .filter((item): item is Discrepancy => item !== undefined);
    return { agree, discrepancies };
  }
  for (const key of wrapperKeys) {
    const entry = record[key];
    if (typeof entry !== 'object' || entry === null) continue;
    const nested = verdictFromJson(entry, keys, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

/** Words after which a "yes" is no longer a plain agreement. */
const hedges =
  /\b(but|however|except|although|though|missing|differs?|not|no longer|instead|only partially)\b/i;

/** A verdict written as text: `<Result>True</Result>`, `Verdict: agree`, `MATCH`, `Yes, the spec matches …`. */
function verdictFromText(reply: string): CheckerVerdict | undefined {
  const text = reply.slice(0, maxReplyLength);
  const tagged = /<(result|verdict|answer)>\s*([^<]{1,40}?)\s*<\/\1>/gi;
  let tag: RegExpExecArray | null = null;
  for (let match = tagged.exec(text); match; match = tagged.exec(text)) tag = match;
  // Blanks within the line only: `\s` would let one match attempt run over many lines.
  const labelled =
    /^[ \t>*_#-]*verdict[ \t*_]*[:=-][ \t*_]*([A-Za-z][A-Za-z ]{0,30}?)[ \t*_.!]*$/im.exec(text);
  const whole = text.replace(/[*_`#>]/g, ' ').trim();
  const word =
    (tag ? verdictWord(tag[2]) : undefined) ??
    (labelled ? verdictWord(labelled[1]) : undefined) ??
    (whole.split(/\s+/).length <= 3 ? verdictWord(whole) : undefined);
  const rest = (tag ? text.replace(tag[0], '') : text).replace(/<\/?think>/gi, '').trim();
  if (word === true) return { agree: true, discrepancies: [] };
  if (word === false) {
    const bare = whole.split(/\s+/).length <= 3;
    return {
      agree: false,
      discrepancies: bare || rest === '' ? [] : [{ issue: bound(rest, 1000) }],
    };
  }
  const opening = /^(yes|no)\b[,.:;!\s-]*/i.exec(whole);
  if (!opening) return undefined;
  const after = whole.slice(opening[0].length).trim();
  if ((opening[1] ?? '').toLowerCase() === 'yes')
    return hedges.test(after) ? undefined : { agree: true, discrepancies: [] };
  return { agree: false, discrepancies: after === '' ? [] : [{ issue: bound(after, 1000) }] };
}

/**
 * The checker's reply: `agree` or `disagree` with discrepancies. Read leniently,
 * because a checker that cannot be read fails the whole sample: every JSON object in
 * the reply is tried (fenced, bare, in prose; trailing commas, comments and single
 * quotes forgiven; nested under `result`), synonyms count (`agrees`, `match`, `true`;
 * "partially agree" is a disagreement), and so do text verdicts (`<Result>True</Result>`,
 * `Verdict: agree`, a one-word reply, a plain "Yes, …"). A "yes" with a hedge ("but",
 * "except") is not read as agreement. Discrepancies listed with `agree` are kept as notes.
 */
export function parseCheckerReply(
  reply: string,
):
  | { readonly ok: true; readonly value: CheckerVerdict }
  | { readonly ok: false; readonly problem: string } {
  const { values, problem } = jsonCandidates(reply);
  // An explicit "verdict" first, synonyms only when there is none; and when objects
  // disagree (a per-detail `{"match": true}` beside `{"verdict": "disagree"}`), the
  // disagreement wins: a false "agree" would hand out a spec the checker rejected.
  for (const keys of [['verdict'], verdictKeys]) {
    const verdicts = values
      .map((value) => verdictFromJson(value, keys))
      .filter((verdict): verdict is CheckerVerdict => verdict !== undefined);
    if (verdicts.length === 0) continue;
    // The same discrepancy in a fenced block and in the bare object counts once.
    const byIssue = new Map<string, Discrepancy>();
    for (const item of verdicts.flatMap((verdict) => verdict.discrepancies))
      if (!byIssue.has(item.issue)) byIssue.set(item.issue, item);
    const discrepancies = [...byIssue.values()].slice(0, 50);
    return {
      ok: true,
      value: { agree: verdicts.every((verdict) => verdict.agree), discrepancies },
    };
  }
  const text = verdictFromText(reply);
  if (text) return { ok: true, value: text };
  return {
    ok: false,
    problem: values.length > 0 ? 'its JSON has no "verdict" of "agree" or "disagree"' : problem,
  };
}
