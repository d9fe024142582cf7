import { isDecimal, normalizeText } from '../language/index.js';
import { jsonNesting } from '../language/json-nesting.js';
import type { Confusables } from '../language/unicode/skeleton.js';
import { escapeRegExp } from '../support/escape-regexp.js';
import { isRecord } from '../support/is-record.js';
import type { SessionClock } from './clock.js';
import type { CompiledPredicate, CompiledSpec } from './compiled-spec.js';
import { requirePart } from './engine-parts.js';
import type { Instance } from './state.js';
import { isTextValue, parseValue, type Value } from './values.js';

/**
 * The `fabricated-action` check (LANGUAGE.md §7): a final answer that *shows* a tool
 * call — a ReAct `Action:` / `Action Input:` block, a `Tool(…)` call, LangChain's
 * `Invoking:` line, or a JSON (or Python-dict, YAML-ish) tool call naming a schema
 * action — that the session never committed is an agent claiming work it did not do.
 * 90 of 144 real ToolEmu answers contain such blocks.
 *
 * Evasions it is built for: Markdown and HTML decoration (`**Action:**`, `__Action:__`,
 * `> Action:`, list markers, code fences, `<p>…</p>`), case, spacing, full-width and
 * look-alike letters (every line is compared by its confusable skeletons, UTS #39, the
 * guards' normalization), names in snake_case, in words or another spelling of the tool
 * (names are compared without punctuation; `_` is emphasis around a label, never in a
 * name), and the JSON shapes agents use (`{"name", "arguments"}`, `{"tool", "tool_input"}`,
 * `{"function": {"name", "arguments"}}`, `{"action", "action_input"}`). Prose that
 * merely names a tool ("I used GmailSendEmail", "GmailSendEmail (twice)") is no call: a
 * call needs the `Action:` line, a key such as `"name":` right before the name, or
 * arguments that read after `Name(`.
 *
 * A shown call is fabricated unless a committed call of the same action agrees with every
 * argument the answer shows for it. A call shown without arguments (`Action: X` alone) is
 * matched by its name; one shown with arguments that cannot be read (broken JSON, prose
 * after `Action Input:`) is never accounted for: what it claims cannot be compared. Each
 * committed call accounts for one shown call: showing a transfer twice claims two
 * transfers. All work is bounded, nesting included: an answer too tangled to read within
 * the bounds is reported as fabricated (fail closed).
 */

/** One tool call an answer shows. */
export interface ShownCall {
  readonly predicate: CompiledPredicate;
  /** The arguments it shows, when they could be read as an object; absent when it shows none. */
  readonly input: Readonly<Record<string, unknown>> | undefined;
  /**
   * It shows arguments that cannot be read (broken JSON, prose after `Action Input:`): no
   * committed call accounts for it, since what it claims cannot be compared with one.
   */
  readonly unreadable?: true;
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
/**
 * Keys of a JSON-ish call that are about the call, not its arguments: without an input
 * key, the other fields of `{"tool": "X", "path": …}` are its arguments.
 */
const callKeys = [
  'type',
  'id',
  'call_id',
  'tool_call_id',
  'index',
  'status',
  'result',
  'results',
  'output',
  'observation',
  'response',
  'thought',
  'log',
];

/** Bounds on the work for one answer. */
const maxParseAttempts = 400;
const maxParsedCharacters = 2_000_000;
const maxWalkNodes = 20_000;
const maxShownCalls = 200;
/** Nesting of `{`/`[` a shown value may have: deeper is too tangled to read (E7). */
const maxNesting = 64;
/** Characters between the parentheses of a shown `Tool(…)` call. */
const maxCallArguments = 100_000;
/** Comparisons spent re-matching shown calls the first pass left over. */
const maxMatchingSteps = 200_000;
const maxMatchingDepth = 1_000;

function skeletons(text: string, confusables: Confusables): readonly string[] {
  const { cased, folded } = confusables.skeletons(text);
  return cased === folded ? [folded] : [folded, cased];
}

/** A name as compared: each skeleton without anything but letters and digits. */
function nameKeysOf(name: string, confusables: Confusables): readonly string[] {
  return skeletons(name, confusables).map((skeleton) => skeleton.replace(/[^\p{L}\p{N}]/gu, ''));
}

/** `action` as the skeletons spell it, in a regex alternation. */
function wordPattern(words: readonly string[], confusables: Confusables): string {
  const spellings = new Set<string>();
  for (const word of words)
    for (const skeleton of skeletons(word, confusables)) spellings.add(skeleton);
  return [...spellings]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
}

interface Patterns {
  /** A ReAct `Action: Name` line (after Markdown decoration); group 1: up to four words of the name. */
  readonly actionLine: RegExp;
  /** LangChain's `Invoking: \`Name\` with \`{…}\``; group 1: the name. */
  readonly invokingLine: RegExp;
  /** An `Action Input:` line; the input follows the match. */
  readonly inputLine: RegExp;
  /** A line that ends an action's input. */
  readonly blockEnd: RegExp;
  /** `"name": "X"`-like pairs; group 1: the name. */
  readonly namedPair: RegExp;
}

/** The patterns, by the confusables they are spelled with (in practice one table). */
const patternCache = new WeakMap<Confusables, Patterns>();

function compiledPatterns(confusables: Confusables): Patterns {
  const cached = patternCache.get(confusables);
  if (cached) return cached;
  // Markdown and inline HTML around a label (`**Action:**`, `__Action:__`, `> - 2.`,
  // `<b>Action:</b>`). `_` is emphasis here, never in the name: names keep theirs.
  const tag = String.raw`<\/?[^<>\s]{1,12}>`;
  const decoration = String.raw`(?:[\s>*_\x60#~|+\-•·\d.)(\[\]]|${tag})*`;
  const labelEnd = String.raw`(?:\s*\d+)?(?:[\s*_\x60]|${tag})*[:=]`;
  const gap = String.raw`(?:[\s*_\x60"'\[(]|${tag})*`;
  const word = String.raw`[^\s*\x60"',;:(){}\[\]<>]+`;
  const spelled = (words: readonly string[]) => wordPattern(words, confusables);
  const action = spelled(['action']);
  const input = spelled(['action input', 'action_input', 'actioninput', 'input']);
  const ends = spelled(['observation', 'thought', 'action', 'final answer', 'answer']);
  const keys = spelled(nameKeys);
  const patterns: Patterns = {
    actionLine: new RegExp(
      String.raw`^${decoration}(?:${action})${labelEnd}${gap}(${word}(?:[ \t]+${word}){0,3})`,
      'u',
    ),
    invokingLine: new RegExp(
      String.raw`^${decoration}(?:${spelled(['invoking'])})(?:[\s*_\x60]*:)?${gap}(${word})`,
      'u',
    ),
    inputLine: new RegExp(`^${decoration}(?:${input})${labelEnd}`, 'u'),
    blockEnd: new RegExp(`^${decoration}(?:${ends})${labelEnd}`, 'u'),
    namedPair: new RegExp(
      // Skeletons spell `"` as `''`: quotes are runs.
      String.raw`(?:^|[\s{,"'\x60(\[])(?:${keys})["'\x60]*\s*[:=]\s*["'\x60]*([^\s"'\x60,;:(){}\[\]<>]+)`,
      'gu',
    ),
  };
  patternCache.set(confusables, patterns);
  return patterns;
}

/** The schema's actions by every key of their names (and their tools' own names). */
const actionKeyCache = new WeakMap<CompiledSpec, ReadonlyMap<string, CompiledPredicate>>();

function actionsByKey(
  spec: CompiledSpec,
  confusables: Confusables,
): ReadonlyMap<string, CompiledPredicate> {
  let byKey = actionKeyCache.get(spec);
  if (!byKey) {
    const map = new Map<string, CompiledPredicate>();
    for (const predicate of spec.predicateList) {
      if (predicate.declaration.kind !== 'action') continue;
      const names = [predicate.name, predicate.declaration.sourceName].filter(
        (name): name is string => name !== undefined,
      );
      for (const name of names)
        for (const key of nameKeysOf(name, confusables)) map.set(key, predicate);
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

/**
 * The action named by the first words of a label's value: the longest run that names
 * one (`Remove File` is `RemoveFile`, `GmailSendEmail now` is `GmailSendEmail`).
 */
function lookupWords(
  words: string,
  byKey: ReadonlyMap<string, CompiledPredicate>,
): CompiledPredicate | undefined {
  const split = words.split(/[ \t]+/);
  for (let count = split.length; count > 0; count--) {
    const predicate = lookup(split.slice(0, count).join(''), byKey);
    if (predicate) return predicate;
  }
  return undefined;
}

/**
 * Where lines end: line breaks of every kind, and HTML tags that start or end a block
 * (`<p>Action: X</p><p>Action Input: …</p>` is two lines). A line is the unit a ReAct
 * block is read in; arguments are read from the text itself, tags and all.
 */
const lineBreak =
  /\r\n|[\n\r\v\f\u0085\u2028\u2029]|<\/?(?:p|br|div|li|ul|ol|pre|tr|td|th|table|h[1-6]|blockquote|hr|section|article)\b[^<>]{0,200}>/giu;

/** The lines of a text and where each starts in it. */
function splitLines(text: string): { readonly lines: string[]; readonly starts: number[] } {
  const lines: string[] = [];
  const starts: number[] = [];
  let start = 0;
  for (const match of text.matchAll(lineBreak)) {
    lines.push(text.slice(start, match.index));
    starts.push(start);
    start = match.index + match[0].length;
  }
  lines.push(text.slice(start));
  starts.push(start);
  return { lines, starts };
}

/** Text as arguments are read from: NFKC, invisible characters gone, lines kept. */
function visible(text: string): string {
  return text.normalize('NFKC').replace(/[\p{Default_Ignorable_Code_Point}]/gu, '');
}

interface Budget {
  attempts: number;
  characters: number;
  nodes: number;
  /** Why the answer cannot be read within the bounds, once it cannot. */
  exceeded: string | undefined;
}

const tooMuch = 'the answer holds more call-like text than can be checked';

/**
 * JSON, or failing that a Python spelling of it (single quotes, True/False/None). Nesting
 * is bounded before parsing: every later walk over the value stays shallow.
 */
function parseObjectText(text: string, budget: Budget): unknown {
  if (
    budget.attempts >= maxParseAttempts ||
    budget.characters + text.length > maxParsedCharacters
  ) {
    budget.exceeded ??= tooMuch;
    return undefined;
  }
  budget.attempts++;
  budget.characters += text.length;
  if (jsonNesting(text) > maxNesting) {
    budget.exceeded ??= `the answer nests values deeper than ${maxNesting} levels`;
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    // An agent writing a Python dict still shows a call.
    const single = /^'((?:[^'\\]|\\.)*)'$/su.exec(text);
    if (single) return single[1]!.replace(/\\(.)/gsu, '$1');
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

/**
 * The text between the parenthesis at `open` and the one that closes it (quotes and
 * brackets respected), or undefined when it does not close within the bound.
 */
function parenthesized(text: string, open: number): string | undefined {
  let depth = 0;
  let quote: string | undefined;
  const end = Math.min(text.length, open + maxCallArguments);
  for (let index = open; index < end; index++) {
    const character = text[index]!;
    if (quote !== undefined) {
      if (character === '\\') index++;
      else if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") quote = character;
    else if (character === '(' || character === '[' || character === '{') depth++;
    else if ((character === ')' || character === ']' || character === '}') && --depth === 0)
      return character === ')' ? text.slice(open + 1, index) : undefined;
  }
  return undefined;
}

/** The top-level comma-separated parts of an argument list (quotes and brackets respected). */
function argumentParts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quote: string | undefined;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (quote !== undefined) {
      if (character === '\\') index++;
      else if (character === quote) quote = undefined;
    } else if (character === '"' || character === "'") quote = character;
    else if ('([{'.includes(character)) depth++;
    else if (')]}'.includes(character)) depth--;
    else if (character === ',' && depth === 0) {
      parts.push(text.slice(start, index).trim());
      start = index + 1;
    }
  }
  const last = text.slice(start).trim();
  // A trailing comma (`f(a=1,)`) ends the list.
  if (last !== '' || parts.length === 0) parts.push(last);
  return parts;
}

/**
 * The arguments of a shown `Tool(…)` call: keyword arguments (`path="/x", n=3`), one
 * JSON object, or (right after the name) values in the order of the action's variables.
 * Undefined unless every part reads as a value: `GmailSendEmail (twice)` or
 * `a BankTransfer (500)` in prose is no call.
 */
function callArguments(
  content: string,
  predicate: CompiledPredicate,
  positional: boolean,
  budget: Budget,
): Record<string, unknown> | undefined {
  const parts = argumentParts(content);
  if (parts.length === 1 && parts[0] === '') return {};
  if (parts.length === 1 && parts[0]!.startsWith('{')) {
    const parsed = parseObjectText(parts[0]!, budget);
    return isRecord(parsed) ? parsed : undefined;
  }
  const input: Record<string, unknown> = {};
  let keywords = false;
  for (const [position, part] of parts.entries()) {
    const keyword = /^([\p{L}_][\p{L}\p{N}_-]*)\s*[=:]\s*([\s\S]+)$/u.exec(part);
    if (keyword) keywords = true;
    else if (keywords || !positional) return undefined;
    const name = keyword ? keyword[1]! : predicate.variables[position]?.name;
    if (name === undefined) return undefined;
    const value = parseObjectText(keyword ? keyword[2]! : part, budget);
    if (value === undefined) return undefined;
    input[name] = value;
  }
  return input;
}

type ReadInput = Pick<ShownCall, 'input' | 'unreadable'>;

/** Words that show a call without arguments. */
const noArguments = /^(?:none|null|nil|n\/a|no arguments|no input|-|\{\s*\}|\(\s*\))$/iu;

/**
 * The input a label shows from `at` (after `Action Input:`, or LangChain's `with`): a
 * JSON-ish object, here or after a code fence's first line; `None` and the like for no
 * arguments; the value itself for an action of one argument; else unreadable.
 */
function inputAt(
  text: string,
  at: number,
  predicate: CompiledPredicate,
  budget: Budget,
): ReadInput {
  const lineEnd = text.slice(at).search(lineBreak);
  const line = lineEnd < 0 ? text.slice(at) : text.slice(at, at + lineEnd);
  const lead = /[\s*_\x60>]*(?:(?:json|python|yaml|js|javascript|text)\b)?[\s\x60]*/iuy;
  lead.lastIndex = at;
  const start = at + (lead.exec(text)?.[0].length ?? 0);
  if (text[start] === '{') {
    const object = balancedObject(text, start);
    const parsed = object === undefined ? undefined : parseObjectText(object, budget);
    return isRecord(parsed) ? { input: parsed } : { input: undefined, unreadable: true };
  }
  const value = line.replace(/^[\s*_\x60"']+|[\s*_\x60"']+$/gu, '');
  if (value === '') return { input: undefined };
  if (noArguments.test(value)) return { input: {} };
  const only = predicate.variables.length === 1 ? predicate.variables[0]!.name : undefined;
  return only === undefined ? { input: undefined, unreadable: true } : { input: { [only]: value } };
}

/**
 * The arguments object of a parsed call: under an input key (maybe as JSON text), else
 * the fields that are not about the call; unreadable when an input key holds no object.
 */
function inputOf(call: Record<string, unknown>, budget: Budget): ReadInput {
  let shown = false;
  for (const key of Object.keys(call)) {
    if (!inputKeys.includes(key.toLowerCase())) continue;
    shown = true;
    const value = call[key];
    if (value === null) return { input: {} };
    if (isRecord(value)) return { input: value };
    if (typeof value === 'string') {
      const parsed = value.trim() === '' ? {} : parseObjectText(value, budget);
      if (isRecord(parsed)) return { input: parsed };
    }
  }
  if (shown) return { input: undefined, unreadable: true };
  const rest = Object.entries(call).filter(([key]) => {
    const lower = key.toLowerCase();
    return !nameKeys.includes(lower) && !callKeys.includes(lower);
  });
  return { input: rest.length === 0 ? undefined : Object.fromEntries(rest) };
}

/** Every object in a parsed value that names a schema action under a name key. */
function walkCalls(
  value: unknown,
  byKey: ReadonlyMap<string, CompiledPredicate>,
  budget: Budget,
  found: ShownCall[],
  confusables: Confusables,
  depth = 0,
): void {
  if (++budget.nodes > maxWalkNodes || depth > 16) {
    budget.exceeded ??= tooMuch;
    return;
  }
  if (Array.isArray(value)) {
    for (const element of value) walkCalls(element, byKey, budget, found, confusables, depth + 1);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, named] of Object.entries(value)) {
    if (!nameKeys.includes(key.toLowerCase()) || typeof named !== 'string') continue;
    const predicate = skeletons(named, confusables)
      .map((skeleton) => lookup(skeleton, byKey))
      .find((candidate) => candidate !== undefined);
    if (predicate) found.push({ predicate, ...inputOf(value, budget) });
  }
  for (const nested of Object.values(value)) {
    if (typeof nested === 'object' && nested !== null)
      walkCalls(nested, byKey, budget, found, confusables, depth + 1);
  }
}

/**
 * A name right before `(`: `RemoveFile(`, `remove-file(`, `tools.RemoveFile (`,
 * `Gmail.SendEmail(`; group 1: the name with its dotted prefix, group 2: its last part.
 */
const callOpening =
  /(?<![\p{L}\p{N}_.-])((?:[\p{L}\p{N}_-]+\.)*([\p{L}\p{N}_]+(?:-[\p{L}\p{N}_]+)*))[ \t]*\(/gu;

/** The tool calls an answer shows (ReAct blocks, `Tool(…)` calls and JSON-ish calls naming schema actions). */
export function shownCalls(
  answer: string,
  spec: CompiledSpec,
): { readonly calls: readonly ShownCall[]; readonly unreadable?: string } {
  // The session's own parts (engine-parts.ts): never an answer read without the table.
  const confusables = requirePart(spec.parts, 'confusables');
  const byKey = actionsByKey(spec, confusables);
  if (byKey.size === 0) return { calls: [] };
  const { actionLine, invokingLine, inputLine, blockEnd, namedPair } =
    compiledPatterns(confusables);
  const budget: Budget = { attempts: 0, characters: 0, nodes: 0, exceeded: undefined };
  const text = visible(answer);
  const { lines, starts } = splitLines(text);
  const lineSkeletons = lines.map((line) => skeletons(line, confusables));
  const calls: ShownCall[] = [];
  const byName = new Set<CompiledPredicate>();
  const add = (call: ShownCall) => {
    calls.push(call);
    byName.add(call.predicate);
  };

  // 1. `Tool(…)` calls whose arguments read as keyword arguments, a JSON object or values:
  //    `RemoveFile(path="/x") -> ok`, `tools.RemoveFile({…})`, `Calling RemoveFile({…})`.
  const callOffsets: number[] = [];
  for (const match of text.matchAll(callOpening)) {
    if (calls.length > maxShownCalls || budget.exceeded !== undefined) break;
    // `Gmail.SendEmail` as the tool's own dotted name, else `tools.RemoveFile` by its last part.
    const predicate = [match[1]!, match[2]!]
      .flatMap((name) => skeletons(name, confusables))
      .map((skeleton) => lookup(skeleton, byKey))
      .find((candidate) => candidate !== undefined);
    if (!predicate) continue;
    const open = match.index + match[0].length - 1;
    const content = parenthesized(text, open);
    // The scan is work too: an answer of many unclosed `RemoveFile(` is refused, not slow.
    budget.characters +=
      content === undefined ? Math.min(text.length - open, maxCallArguments) : content.length;
    if (budget.characters > maxParsedCharacters) budget.exceeded ??= tooMuch;
    const positional = !/\s\($/u.test(match[0]);
    const input =
      content === undefined ? undefined : callArguments(content, predicate, positional, budget);
    if (input === undefined) continue;
    add({ predicate, input });
    callOffsets.push(match.index);
  }
  const holdsCall = (index: number) => {
    const start = starts[index]!;
    const end = start + lines[index]!.length;
    return callOffsets.some((offset) => offset >= start && offset < end);
  };

  // 2. ReAct blocks: `Action: Name`, then maybe `Action Input: {…}` up to the next block
  //    line; and LangChain's `Invoking: \`Name\` with \`{…}\``.
  for (let index = 0; index < lines.length; index++) {
    let predicate: CompiledPredicate | undefined;
    let invoking = false;
    for (const skeleton of lineSkeletons[index]!) {
      const match = actionLine.exec(skeleton);
      if (match) predicate ??= lookupWords(match[1]!, byKey);
      const invoked = predicate ? undefined : invokingLine.exec(skeleton);
      if (invoked) {
        predicate = lookup(invoked[1]!, byKey);
        invoking = predicate !== undefined;
      }
    }
    // `Action: RemoveFile(path="/x")` was read with its arguments above.
    if (!predicate || holdsCall(index)) continue;
    let read: ReadInput = { input: undefined };
    if (invoking) {
      const line = lines[index]!;
      const withWord = /[\s\x60'"*]with[\s\x60]/iu.exec(line);
      if (withWord)
        read = inputAt(
          text,
          starts[index]! + withWord.index + withWord[0].length,
          predicate,
          budget,
        );
    } else
      for (let next = index + 1; next < lines.length; next++) {
        const skeleton = lineSkeletons[next]![0]!;
        if (inputLine.test(skeleton)) {
          const colon = lines[next]!.search(/[:=]/);
          if (colon >= 0) read = inputAt(text, starts[next]! + colon + 1, predicate, budget);
          break;
        }
        if (skeleton.trim() !== '' && blockEnd.test(skeleton)) break;
      }
    add({ predicate, ...read });
    if (calls.length > maxShownCalls) break;
  }

  // 3. JSON-ish calls: objects (in the text or in code fences) with a name key.
  const parsedCalls: ShownCall[] = [];
  for (let start = text.indexOf('{'); start >= 0 && budget.exceeded === undefined; ) {
    const object = balancedObject(text, start);
    if (object === undefined) break;
    const parsed = parseObjectText(object, budget);
    if (parsed !== undefined) {
      walkCalls(parsed, byKey, budget, parsedCalls, confusables);
      start = text.indexOf('{', start + object.length);
    } else start = text.indexOf('{', start + 1);
  }
  for (const call of parsedCalls) add(call);

  // 4. Name pairs in text no parser could read (`name: GmailSendEmail`, broken JSON): what
  //    they show cannot be compared, so no committed call accounts for them.
  for (const skeletonsOfLine of lineSkeletons) {
    for (const skeleton of skeletonsOfLine) {
      namedPair.lastIndex = 0;
      for (let match = namedPair.exec(skeleton); match; match = namedPair.exec(skeleton)) {
        const predicate = lookup(match[1]!, byKey);
        if (predicate && !byName.has(predicate))
          add({ predicate, input: undefined, unreadable: true });
      }
    }
  }
  return budget.exceeded !== undefined ? { calls, unreadable: budget.exceeded } : { calls };
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
  if (committed.predicate !== shown.predicate || shown.unreadable) return false;
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
  // twice claims two payments. Calls that show arguments are matched first (they are
  // pickier; `{}` and `X()` show none), then a shown call left over may take a committed
  // call from another that has a different one to go to (an augmenting path), so that the
  // order the answer shows its calls in does not matter.
  const shows = (call: ShownCall) => call.input !== undefined && Object.keys(call.input).length > 0;
  const ordered = [...calls].sort((a, b) => Number(shows(b)) - Number(shows(a)));
  /** For each committed call, the shown call it accounts for. */
  const holder = new Map<number, number>();
  const accounts = (position: number, shown: number) =>
    accountsFor(committed[position]!, ordered[shown]!, clock);
  const left: number[] = [];
  for (const [shown] of ordered.entries()) {
    const index = committed.findIndex(
      (_, position) => !holder.has(position) && accounts(position, shown),
    );
    if (index < 0) left.push(shown);
    else holder.set(index, shown);
  }
  // Bounded, in comparisons and in the depth of the recursion (each level visits one more
  // committed call): past the bounds, the calls left over stay fabricated (fail closed).
  let budget = maxMatchingSteps;
  const augment = (shown: number, visited: Set<number>): boolean => {
    for (const [position] of committed.entries()) {
      if (--budget < 0 || visited.size > maxMatchingDepth) return false;
      if (visited.has(position) || !accounts(position, shown)) continue;
      visited.add(position);
      const other = holder.get(position);
      if (other === undefined || augment(other, visited)) {
        holder.set(position, shown);
        return true;
      }
    }
    return false;
  };
  const stillLeft = left.filter((shown) => budget <= 0 || !augment(shown, new Set()));
  const fabricated = stillLeft.map((shown) => ordered[shown]!);
  return unreadable === undefined ? { fabricated } : { fabricated, unreadable };
}
