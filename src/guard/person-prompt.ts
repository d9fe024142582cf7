import type { Verdict } from '../engine/verdict.js';
import { isRecord } from '../support/is-record.js';
import { invisibleClass } from '../support/printable-text.js';

/**
 * The question a person is asked to approve a call: the one place it is written, for
 * every surface that asks (MCP elicitation, the proxy's console, the web dialog, the
 * service's approvals page, the AI SDK / Agents / LangChain approval text). It is written
 * for that person, not for a developer: the action in the schema's own words (the first
 * sentence of the tool's description, `describedAs`) with the tool's name, the arguments
 * that matter, why the spec asks, and the task the user gave, on one line:
 * `Pay the deposit for the reservation (PayDeposit) with amount: 20? Why: … You asked: "…"`.
 *
 * The agent writes every byte of the arguments, their order and their sizes included
 * (docs/security.md), so the question never shows them as one cut string: the arguments
 * a guard or rule constrains come first (`Reason.arguments`), then the call's target
 * (an argument named like a recipient, path, amount, account, address…), then the rest;
 * each value is cut on its own, in the middle, with a marker saying how much is left
 * out, so no value can push another out of sight. The constrained and target arguments
 * are always shown; when the bounded question cannot hold them all, there is no
 * question (`undefined`) and the call is refused rather than asked about.
 */

/** The longest question, in characters, whatever the agent proposes. */
export const maxPromptLength = 4000;
/** The longest text of the reasons (they may echo the agent's values). */
const maxReasonLength = 1000;
/** The longest tool or argument name shown. */
const maxNameLength = 80;
/** A constrained or target value: at most this long, less when there are many. */
const maxKeyValueLength = 600;
/**
 * A constrained or target value is never cut shorter than this (it would no longer be
 * read): when so many of them no longer fit, there is no question.
 */
const minKeyValueLength = 40;
/** Any other argument's value. */
const maxOtherValueLength = 160;
/** The longest plain-words action (the schema's description is cut shorter already). */
const maxActionLength = 120;
/** The longest user's task shown (the instruction the spec was formalized from). */
const maxTaskLength = 400;

/** What the asking surface knows beyond the call: the words a person reads it in. */
export interface PersonContext {
  /** The action in plain words, e.g. the tool description's first sentence. */
  readonly action?: string | undefined;
  /** The user's task: the instruction the spec was formalized from. */
  readonly task?: string | undefined;
}

/**
 * Words that make an argument the call's target: who or what it reaches, moves or
 * costs. An argument name is split into words (`to_address`, `recipientEmail`,
 * `file-path`) and is a target when one of them is here.
 */
const targetWords =
  /^(?:to|cc|bcc|recipients?|receiver|payee|beneficiary|dest(?:ination)?|target|emails?|address(?:es)?|phone|number|accounts?|iban|amount|sum|price|total|quantity|currency|paths?|files?|filename|folder|dir(?:ectory)?|url|uri|link|href|host|domain|channel|users?|command|cmd)$/;

/** Whether an argument name reads as the call's target (see `targetWords`). */
export function isTargetArgument(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => targetWords.test(word));
}

/** The arguments the verdict's reasons constrain, in the order the reasons name them. */
export function constrainedArgumentNames(verdict: Verdict): string[] {
  const names = new Set<string>();
  for (const reason of verdict.reasons) {
    for (const name of reason.arguments ?? []) names.add(name);
  }
  return [...names];
}

/** A character that would change how the text around it reads, or break its line. */
const hiddenCharacters = new RegExp(`[${invisibleClass}]`, 'gu');

/** Text with controls, bidi and invisible characters, and line breaks written as `\uXXXX`. */
function visible(text: string): string {
  return text.replace(
    hiddenCharacters,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Whether index `at` of `text` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `text` cut to at most `maxLength` characters by taking out its middle, with a marker
 * that says how many characters are not shown: the start and the end of a value (where
 * a recipient or a suffix hides) both stay in sight.
 *
 * @example
 * cutMiddle('a'.repeat(1000), 60); // 'aaaa…[960 characters not shown]…aaaa' (60 characters)
 */
export function cutMiddle(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  let marker = '';
  let keep = maxLength;
  // The marker's own length depends on the count it shows: settle it in two rounds.
  for (let round = 0; round < 2; round++) {
    marker = `…[${(text.length - keep).toLocaleString('en-US')} characters not shown]…`;
    keep = Math.max(2, maxLength - marker.length);
  }
  let head = Math.ceil(keep / 2);
  let tail = text.length - (keep - head);
  if (splitsPair(text, head)) head--;
  if (splitsPair(text, tail)) tail++;
  marker = `…[${(tail - head).toLocaleString('en-US')} characters not shown]…`;
  // Copies, so that a kept slice does not hold the agent's megabyte alive.
  return `${text.slice(0, head).split('').join('')}${marker}${text.slice(tail).split('').join('')}`;
}

function valueText(value: unknown): string {
  if (value === undefined) return '(not given)';
  try {
    return visible(JSON.stringify(value) ?? String(value));
  } catch {
    return '(a value that cannot be shown)';
  }
}

/** A name a person reads as written: a plain identifier, not cut (else it is quoted). */
const plainName = /^[A-Za-z_$][\w$-]*$/;

/** One argument as `name: value`, the name and the value each cut on its own. */
function entry(name: string, value: unknown, maxValueLength: number): string {
  const shownName =
    name.length <= maxNameLength && plainName.test(name)
      ? name
      : cutMiddle(valueText(name), maxNameLength);
  return `${shownName}: ${cutMiddle(valueText(value), maxValueLength)}`;
}

/** `Pay the deposit for the reservation (PayDeposit)`, or `Run PayDeposit` without words. */
function actionText(name: string, action: string | undefined): string {
  const tool = cutMiddle(visible(name), maxNameLength);
  const words = cutMiddle(visible((action ?? '').trim()), maxActionLength);
  if (words === '') return `Run ${tool}`;
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} (${tool})`;
}

/** Whose reason it is, said to the person when the operator's policy is composed (LANGUAGE.md §8). */
const sourceLabels = { policy: 'Policy', intent: 'Task' } as const;

/**
 * The reasons as the person reads them: one question for both judges of a composition,
 * so each reason once (both sides may say the same), the policy's first, each with whose
 * it is; a verdict without a policy reads as its reasons.
 */
function reasonsText(verdict: Verdict): string {
  const ordered = [
    ...verdict.reasons.filter((reason) => reason.source === 'policy'),
    ...verdict.reasons.filter((reason) => reason.source !== 'policy'),
  ];
  const said = new Set<string>();
  const parts: string[] = [];
  for (const reason of ordered) {
    if (said.has(reason.message)) continue;
    said.add(reason.message);
    parts.push(
      reason.source === undefined
        ? reason.message
        : `${sourceLabels[reason.source]}: ${reason.message}`,
    );
  }
  return parts.join(' ');
}

/**
 * The question for a `confirm` verdict on the call `name(args)`, at most
 * `maxPromptLength` characters: `<action> (<name>) with to: …, amount: …, …? Why: <the
 * reasons> You asked: "<task>"`, the arguments in the order above. Undefined when it
 * cannot show every argument the verdict's guards and rules constrain and every target
 * argument (then nobody may be asked: the call is refused).
 *
 * @example
 * personPrompt('PayDeposit', { amount: 20 }, verdict, {
 *   action: 'Pay the deposit for the reservation',
 *   task: 'Book a table for two tonight',
 * });
 * // 'Pay the deposit for the reservation (PayDeposit) with amount: 20? Why: Confirm the
 * //  deposit payment with the user. You asked: "Book a table for two tonight"'
 */
export function personPrompt(
  name: string,
  args: unknown,
  verdict: Verdict,
  context: PersonContext = {},
): string | undefined {
  const why = cutMiddle(visible(reasonsText(verdict)), maxReasonLength);
  const task = cutMiddle(visible((context.task ?? '').trim()), maxTaskLength);
  const head = actionText(name, context.action);
  const tail = `?${why === '' ? '' : ` Why: ${why}`}${task === '' ? '' : ` You asked: "${task}"`}`;
  const record = isRecord(args) ? args : { arguments: args };
  const given = Object.keys(record);
  const constrained = constrainedArgumentNames(verdict);
  const targets = given.filter((key) => !constrained.includes(key) && isTargetArgument(key));
  const others = given.filter((key) => !constrained.includes(key) && !targets.includes(key));
  const key = [...constrained, ...targets];
  const argumentValue = (argument: string): unknown =>
    Object.hasOwn(record, argument) ? record[argument] : undefined;

  // The room for each constrained and target value depends on how many there are (the
  // spec's and the schema's count), never on how long the agent made any other one.
  const entryOverhead = 6 + maxNameLength;
  const reserve = 2 * maxNameLength + 60;
  const fixed = head.length + tail.length + ' with '.length;
  const room = maxPromptLength - fixed - (others.length > 0 ? reserve : 0);
  const share =
    key.length === 0 ? maxKeyValueLength : Math.floor(room / key.length) - entryOverhead;
  const keyLength = Math.max(minKeyValueLength, Math.min(maxKeyValueLength, share));
  const entries = key.map((argument) => entry(argument, argumentValue(argument), keyLength));
  let length = fixed + entries.reduce((sum, text) => sum + 2 + text.length, 0);
  if (length > maxPromptLength) return undefined;

  // The rest, in the agent's order, while they fit; the names of those that do not.
  const notShown: string[] = [];
  for (const argument of others) {
    const text = entry(argument, record[argument], maxOtherValueLength);
    if (notShown.length === 0 && length + 2 + text.length + reserve <= maxPromptLength) {
      entries.push(text);
      length += 2 + text.length;
    } else notShown.push(argument);
  }
  if (notShown.length > 0) {
    const names = cutMiddle(visible(notShown.join(', ')), 2 * maxNameLength);
    entries.push(`…(${notShown.length} more arguments not shown: ${names})`);
  }
  return entries.length === 0 ? `${head}${tail}` : `${head} with ${entries.join(', ')}${tail}`;
}
