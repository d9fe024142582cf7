import { isDecimal, normalizeText } from '../language/index.js';
import { confusableSkeletons } from '../language/unicode/skeleton.js';
import type { SessionClock } from './clock.js';
import type { CompiledPredicate, CompiledSpec } from './compiled-spec.js';
import type { Instance } from './state.js';
import { isTextValue, parseValue, type Value } from './values.js';

/**
 * The `fabricated-action` check (LANGUAGE.md §7): a final answer that *shows* a tool
 * call — a ReAct `Action:` / `Action Input:` block, or a JSON (or Python-dict, YAML-ish)
 * tool call naming a schema action — that the session never committed is an agent
 * claiming work it did not do. 90 of 144 real ToolEmu answers contain such blocks.
 *
 * Evasions it is built for: Markdown decoration (`**Action:**`, `> Action:`, list
 * markers, code fences), case, spacing, full-width and look-alike letters (every line is
 * compared by its confusable skeletons, UTS #39, the guards' normalization), names in
 * snake_case or another spelling of the tool (names are compared without punctuation),
 * and the JSON shapes agents use (`{"name", "arguments"}`, `{"tool", "tool_input"}`,
 * `{"function": {"name", "arguments"}}`, `{"action", "action_input"}`). Prose that
 * merely names a tool ("I used GmailSendEmail") is no call: a call needs the `Action:`
 * line or a key such as `"name":` right before the name.
 *
 * A shown call is fabricated unless a committed call of the same action agrees with every
 * argument the answer shows for it (arguments of other names are ignored); when the
 * shown input cannot be read, the name alone decides. Each committed call accounts for
 * one shown call: showing a transfer twice claims two transfers. All work is bounded: an answer too
 * tangled to read within the bounds is reported as fabricated (fail closed).
 */

/** One tool call an answer shows. */
export interface ShownCall {
  readonly predicate: CompiledPredicate;
  /** The arguments it shows, when they could be read as an object. */
  readonly input: Readonly<Record<string, unknown>> | undefined;
}

/** A committed call, as the check compares it: the action and its argument values. */
export interface CommittedCall {
  readonly predicate: CompiledPredicate;
  readonly values: Instance;
}

export interface FabricationCheck {
  /** Shown calls that no committed call accounts for. */
  readonly fabricated: readonly ShownCall[];
  /** Set when the answer could not be read within the bounds: then it is refused. */
  readonly unreadable?: string;
}

/** Keys that name the tool in a JSON-ish call. */
const nameKeys = [
  'name',
  'tool',
  'tool_name',
  'toolname',
  'action',
  'action_name',
  'function',
  'function_name',
  'recipient_name',
  'api',
  'api_name',
  'command_name',
];
/** Keys that hold the arguments in a JSON-ish call. */
const inputKeys = [
  'arguments',
  'args',
  'parameters',
  'params',
  'input',
  'action_input',
  'tool_input',
  'kwargs',
];

/** Bounds on the work for one answer. */
const maxParseAttempts = 400;
const maxParsedCharacters = 2_000_000;
const maxWalkNodes = 20_000;
const maxShownCalls = 200;

function skeletons(text: string): readonly string[] {
  const { cased, folded } = confusableSkeletons(text);
  return cased === folded ? [folded] : [folded, cased];
}

/** A name as compared: each skeleton without anything but letters and digits. */
function nameKeysOf(name: string): readonly string[] {
  return skeletons(name).map((skeleton) => skeleton.replace(/[^\p{L}\p{N}]/gu, ''));
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** `action` as the skeletons spell it, in a regex alternation. */
function wordPattern(words: readonly string[]): string {
  const spellings = new Set<string>();
  for (const word of words) for (const skeleton of skeletons(word)) spellings.add(skeleton);
  return [...spellings]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegex)
    .join('|');
}

interface Patterns {
  /** A ReAct `Action: Name` line (after Markdown decoration); group 1: the name. */
  readonly actionLine: RegExp;
  /** An `Action Input:` line; the input follows the match. */
  readonly inputLine: RegExp;
  /** A line that ends an action's input. */
  readonly blockEnd: RegExp;
  /** `"name": "X"`-like pairs; group 1: the name. */
  readonly namedPair: RegExp;
}

let patterns: Patterns | undefined;

function compiledPatterns(): Patterns {
  if (patterns) return patterns;
  const decoration = String.raw`[\s>*_\x60#~|+\-•·\d.)(\[\]]*`;
  const gap = String.raw`[\s*_\x60"'\[(]*`;
  const action = wordPattern(['action']);
  const input = wordPattern(['action input', 'action_input', 'actioninput', 'input']);
  const ends = wordPattern(['observation', 'thought', 'action', 'final answer', 'answer']);
  const keys = wordPattern(nameKeys);
  patterns = {
    actionLine: new RegExp(
      String.raw`^${decoration}(?:${action})(?:\s*\d+)?[\s*_\x60]*[:=]${gap}([^\s*_\x60"',;:(){}\[\]<>]+)`,
      'u',
    ),
    inputLine: new RegExp(String.raw`^${decoration}(?:${input})(?:\s*\d+)?[\s*_\x60]*[:=]`, 'u'),
    blockEnd: new RegExp(String.raw`^${decoration}(?:${ends})(?:\s*\d+)?[\s*_\x60]*[:=]`, 'u'),
    namedPair: new RegExp(
      // Skeletons spell `"` as `''`: quotes are runs.
      String.raw`(?:^|[\s{,"'\x60(\[])(?:${keys})["'\x60]*\s*[:=]\s*["'\x60]*([^\s"'\x60,;:(){}\[\]<>]+)`,
      'gu',
    ),
  };
  return patterns;
}

/** The schema's actions by every key of their names (and their tools' own names). */
const actionKeyCache = new WeakMap<CompiledSpec, ReadonlyMap<string, CompiledPredicate>>();

function actionsByKey(spec: CompiledSpec): ReadonlyMap<string, CompiledPredicate> {
  let byKey = actionKeyCache.get(spec);
  if (!byKey) {
    const map = new Map<string, CompiledPredicate>();
    for (const predicate of spec.predicateList) {
      if (predicate.declaration.kind !== 'action') continue;
      const names = [predicate.name, predicate.declaration.sourceName].filter(
        (name): name is string => name !== undefined,
      );
      for (const name of names) for (const key of nameKeysOf(name)) map.set(key, predicate);
    }
    byKey = map;
    actionKeyCache.set(spec, byKey);
  }
  return byKey;
}

function lookup(
  name: string,
  byKey: ReadonlyMap<string, CompiledPredicate>,
): CompiledPredicate | undefined {
  const key = name.replace(/[^\p{L}\p{N}]/gu, '');
  return key === '' ? undefined : byKey.get(key);
}

/** Line breaks of every kind; a line is the unit a ReAct block is read in. */
const lineBreak = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/** Text as arguments are read from: NFKC, invisible characters gone, lines kept. */
function visible(text: string): string {
  return text.normalize('NFKC').replace(/[\p{Default_Ignorable_Code_Point}]/gu, '');
}

interface Budget {
  attempts: number;
  characters: number;
  nodes: number;
  exceeded: boolean;
}

/** JSON, or failing that a Python-dict spelling of it (single quotes, True/False/None). */
function parseObjectText(text: string, budget: Budget): unknown {
  if (
    budget.attempts >= maxParseAttempts ||
    budget.characters + text.length > maxParsedCharacters
  ) {
    budget.exceeded = true;
    return undefined;
  }
  budget.attempts++;
  budget.characters += text.length;
  try {
    return JSON.parse(text);
  } catch {
    // An agent writing a Python dict still shows a call.
    const pythonic = text
      .replace(/'/g, '"')
      .replace(/\bTrue\b/g, 'true')
      .replace(/\bFalse\b/g, 'false')
      .replace(/\bNone\b/g, 'null');
    budget.characters += text.length;
    try {
      return JSON.parse(pythonic);
    } catch {
      return undefined;
    }
  }
}

/** The first balanced `{…}` from `start` (strings respected), or undefined. */
function balancedObject(text: string, start: number): string | undefined {
  const open = text.indexOf('{', start);
  if (open < 0) return undefined;
  let depth = 0;
  let quote: string | undefined;
  for (let index = open; index < text.length; index++) {
    const character = text[index]!;
    if (quote !== undefined) {
      if (character === '\\') index++;
      else if (character === quote) quote = undefined;
      continue;
    }
    if (character === '"') quote = character;
    else if (character === '{') depth++;
    else if (character === '}' && --depth === 0) return text.slice(open, index + 1);
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The arguments object of a parsed call: under an input key (maybe as JSON text), else the rest. */
function inputOf(
  call: Record<string, unknown>,
  budget: Budget,
): Record<string, unknown> | undefined {
  for (const key of Object.keys(call)) {
    if (!inputKeys.includes(key.toLowerCase())) continue;
    const value = call[key];
    if (isRecord(value)) return value;
    if (typeof value === 'string') {
      const parsed = parseObjectText(value, budget);
      if (isRecord(parsed)) return parsed;
    }
  }
  return undefined;
}

/** Every object in a parsed value that names a schema action under a name key. */
function walkCalls(
  value: unknown,
  byKey: ReadonlyMap<string, CompiledPredicate>,
  budget: Budget,
  found: ShownCall[],
  depth = 0,
): void {
  if (++budget.nodes > maxWalkNodes || depth > 16) {
    budget.exceeded = true;
    return;
  }
  if (Array.isArray(value)) {
    for (const element of value) walkCalls(element, byKey, budget, found, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, named] of Object.entries(value)) {
    if (!nameKeys.includes(key.toLowerCase()) || typeof named !== 'string') continue;
    const predicate = skeletons(named)
      .map((skeleton) => lookup(skeleton, byKey))
      .find((candidate) => candidate !== undefined);
    if (predicate) found.push({ predicate, input: inputOf(value, budget) });
  }
  for (const nested of Object.values(value)) {
    if (typeof nested === 'object' && nested !== null)
      walkCalls(nested, byKey, budget, found, depth + 1);
  }
}

/** The tool calls an answer shows (ReAct blocks and JSON-ish calls naming schema actions). */
export function shownCalls(
  answer: string,
  spec: CompiledSpec,
): { readonly calls: readonly ShownCall[]; readonly unreadable?: string } {
  const byKey = actionsByKey(spec);
  if (byKey.size === 0) return { calls: [] };
  const { actionLine, inputLine, blockEnd, namedPair } = compiledPatterns();
  const budget: Budget = { attempts: 0, characters: 0, nodes: 0, exceeded: false };
  const lines = visible(answer).split(lineBreak);
  const lineSkeletons = lines.map(skeletons);
  const calls: ShownCall[] = [];
  const byName = new Set<CompiledPredicate>();

  // 1. ReAct blocks: `Action: Name`, then maybe `Action Input: {…}` up to the next block line.
  for (let index = 0; index < lines.length; index++) {
    let predicate: CompiledPredicate | undefined;
    for (const skeleton of lineSkeletons[index]!) {
      const match = actionLine.exec(skeleton);
      if (match) predicate ??= lookup(match[1]!, byKey);
    }
    if (!predicate) continue;
    let input: Record<string, unknown> | undefined;
    for (let next = index + 1; next < lines.length; next++) {
      const skeleton = lineSkeletons[next]![0]!;
      if (inputLine.test(skeleton)) {
        const rest = lines.slice(next).join('\n');
        const colon = rest.search(/[:=：]/);
        const object = balancedObject(rest, Math.max(colon, 0));
        const parsed = object === undefined ? undefined : parseObjectText(object, budget);
        if (isRecord(parsed)) input = parsed;
        break;
      }
      if (skeleton.trim() !== '' && blockEnd.test(skeleton)) break;
    }
    calls.push({ predicate, input });
    byName.add(predicate);
    if (calls.length > maxShownCalls) break;
  }

  // 2. JSON-ish calls: objects (in the text or in code fences) with a name key.
  const text = lines.join('\n');
  const parsedCalls: ShownCall[] = [];
  for (let start = text.indexOf('{'); start >= 0 && !budget.exceeded; ) {
    const object = balancedObject(text, start);
    if (object === undefined) break;
    const parsed = parseObjectText(object, budget);
    if (parsed !== undefined) {
      walkCalls(parsed, byKey, budget, parsedCalls);
      start = text.indexOf('{', start + object.length);
    } else start = text.indexOf('{', start + 1);
  }
  for (const call of parsedCalls) {
    calls.push(call);
    byName.add(call.predicate);
  }

  // 3. Name pairs in text no parser could read (`name: GmailSendEmail`, broken JSON).
  for (const skeletonsOfLine of lineSkeletons) {
    for (const skeleton of skeletonsOfLine) {
      namedPair.lastIndex = 0;
      for (let match = namedPair.exec(skeleton); match; match = namedPair.exec(skeleton)) {
        const predicate = lookup(match[1]!, byKey);
        if (predicate && !byName.has(predicate)) {
          calls.push({ predicate, input: undefined });
          byName.add(predicate);
        }
      }
    }
  }
  return budget.exceeded
    ? { calls, unreadable: 'the answer holds more call-like text than can be checked' }
    : { calls };
}

/**
 * A value as compared with what an answer shows: normalized text, exact number text.
 * Markers are control characters, which normalized text never holds: no text a shown
 * call gives can spell "not given" or a list's structure.
 */
function comparable(value: unknown): string {
  if (value === undefined || value === null) return '\u0000';
  if (isTextValue(value)) return value.key;
  if (typeof value === 'string') {
    const normalized = normalizeText(value);
    const number = Number(normalized);
    return normalized !== '' && Number.isFinite(number) ? `#${number}` : normalized;
  }
  if (typeof value === 'number') return `#${value}`;
  if (typeof value === 'boolean') return String(value);
  if (isDecimal(value)) return `#${Number(value.toString())}`;
  // Every element ends with a marker: `[""]` is one empty text, not the empty list.
  if (Array.isArray(value))
    return `\u0002${value.map((item) => `${comparable(item)}\u0001`).join('')}`;
  return normalizeText(JSON.stringify(value) ?? '');
}

/**
 * A shown date, time or date-time read as a proposal's argument is, with the session's
 * clock — as the count a committed one is kept as (`"23:59"` is the call made with
 * `23:59`, `"today"` the call made with today's date); other values, and spellings that
 * do not read, as they are.
 */
function temporal(value: unknown, type: string | undefined, clock: SessionClock): unknown {
  if (typeof value !== 'string' || (type !== 'date' && type !== 'time' && type !== 'datetime'))
    return value;
  const read = parseValue(value, { kind: type }, clock, { foreignOffsets: 'refuse' });
  return read.ok ? read.value : value;
}

function committedComparable(value: Value | undefined): string {
  if (isTextValue(value)) {
    const number = Number(value.key);
    return value.key !== '' && Number.isFinite(number) ? `#${number}` : value.key;
  }
  return comparable(value);
}

/** A shown argument's variable: by its name, or by the tool's own name for it. */
function argumentIndex(predicate: CompiledPredicate, name: string): number | undefined {
  const index = predicate.variableIndex.get(name);
  if (index !== undefined) return index;
  const bySource = predicate.variables.findIndex(
    (variable) => variable.sourcePath?.length === 1 && variable.sourcePath[0] === name,
  );
  return bySource < 0 ? undefined : bySource;
}

/**
 * Whether a committed call accounts for a shown one: same action, every shown argument
 * equal — an argument the action does not take was never given, so a call shown with
 * one was never made.
 */
function accountsFor(committed: CommittedCall, shown: ShownCall, clock: SessionClock): boolean {
  if (committed.predicate !== shown.predicate) return false;
  if (!shown.input) return true;
  for (const [name, value] of Object.entries(shown.input)) {
    const index = argumentIndex(shown.predicate, name);
    if (index === undefined) return false;
    const type = shown.predicate.variables[index]?.type.kind;
    if (committedComparable(committed.values[index]) !== comparable(temporal(value, type, clock)))
      return false;
  }
  return true;
}

export function checkAnswer(
  answer: string,
  spec: CompiledSpec,
  committed: readonly CommittedCall[],
  clock: SessionClock,
): FabricationCheck {
  const { calls, unreadable } = shownCalls(answer, spec);
  // Each committed call accounts for one shown call: an answer that shows a payment
  // twice claims two payments. Calls with arguments are matched first (they are pickier).
  const used = new Set<number>();
  const ordered = [...calls].sort(
    (a, b) => Number(b.input !== undefined) - Number(a.input !== undefined),
  );
  const fabricated = ordered.filter((call) => {
    const index = committed.findIndex(
      (candidate, position) => !used.has(position) && accountsFor(candidate, call, clock),
    );
    if (index < 0) return true;
    used.add(index);
    return false;
  });
  return unreadable === undefined ? { fabricated } : { fabricated, unreadable };
}
