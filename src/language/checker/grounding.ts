import {
  type ArgumentProblem,
  argumentDiagnostic,
  describeArgument,
  firstProblem,
  specProblem,
} from '../arguments.js';
import { createDiagnostic, type Diagnostic, sortDiagnostics } from '../diagnostics/diagnostic.js';
import { operatorPolarity } from '../operators.js';
import type { SourceRange } from '../source-range.js';
import { formatDate, formatTime, parseDate, parseTime } from '../temporal.js';
import { canonicalNumber, type GivenValues, readGivenValues, wordsOf } from './grounding-values.js';
import type { Literal } from './literal.js';
import {
  answerPredicate,
  type CheckedArithmetic,
  type CheckedConstraint,
  type CheckedPattern,
  type Spec,
} from './spec.js';

/**
 * Where the values of a formalized spec may come from (the grounding check). Only
 * trusted texts count: tool names, enum members and descriptions are not sources,
 * since whoever serves the tools writes them.
 */
export interface GroundingSources {
  /** The user's instruction the spec was formalized from. */
  readonly instruction: string;
  /**
   * Further trusted texts whose values count as given, such as the source of the
   * operator's policy (LANGUAGE.md §8) once policies exist. Their numbers ground
   * literals but are not required to be used.
   */
  readonly texts?: readonly string[];
  /**
   * The session's date (days since 1970-01-01) that "today", "tomorrow" and weekday
   * names in the instruction count from. Without it only dates written out ground
   * date literals (and the words ground `today`, `tomorrow`, `yesterday`).
   */
  readonly today?: number | undefined;
}

/** Characters of one grounding text: an instruction, or a policy's source. */
export const maxGroundingTextLength = 100_000;

const textExpected = `a string of at most ${maxGroundingTextLength} characters`;

function textProblem(value: unknown, parameter: string): ArgumentProblem | undefined {
  return typeof value === 'string' && value.length <= maxGroundingTextLength
    ? undefined
    : {
        parameter,
        expected: textExpected,
        actual: typeof value === 'string' ? `${value.length} characters` : describeArgument(value),
      };
}

/** What is wrong with grounding sources passed to an entry point, if anything. */
export function groundingSourcesProblem(
  value: unknown,
  parameter = 'sources',
): ArgumentProblem | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return {
      parameter,
      expected: 'grounding sources ({ instruction, texts?, today? })',
      actual: describeArgument(value),
    };
  const sources = value as Record<string, unknown>;
  const texts = sources['texts'];
  const today = sources['today'];
  return firstProblem(
    textProblem(sources['instruction'], `${parameter}.instruction`),
    texts === undefined || (Array.isArray(texts) && texts.length <= 100)
      ? undefined
      : {
          parameter: `${parameter}.texts`,
          expected: 'an array of at most 100 texts',
          actual: describeArgument(texts),
        },
    ...(Array.isArray(texts)
      ? texts.map((text, index) => textProblem(text, `${parameter}.texts[${index}]`))
      : []),
    today === undefined || (Number.isSafeInteger(today) && Math.abs(today as number) < 3_000_000)
      ? undefined
      : {
          parameter: `${parameter}.today`,
          expected: 'a whole number of days since 1970-01-01',
          actual: describeArgument(today),
        },
  );
}

/** The diagnostic codes of the grounding check. */
export const groundingCodes: ReadonlySet<string> = new Set([
  'ungrounded-literal',
  'unused-instruction-number',
  'unpinned-critical-action',
  'confirmation-not-required',
]);

/** Numbers a spec may use without the instruction stating them: "none", "at least one". */
const structuralNumbers: ReadonlySet<string> = new Set(['0', '1']);

interface Vocabulary {
  readonly given: readonly GivenValues[];
  /**
   * The words of the given texts. Not the schema's names and enum members: whoever serves
   * the tools writes them (a tool named `PayMallory` must not ground `to = "Mallory"`);
   * an enum literal is a member of its own variable's enum by the type check already.
   */
  readonly words: WordIndex;
}

/**
 * Word sequences run together (`BTC/USD` → `btcusd`) with where each word starts and
 * ends, so that a literal's words are found with `indexOf` in time linear in the texts.
 * Sequences are kept apart by a character no word holds: no match spans two of them.
 */
interface WordIndex {
  readonly compact: string;
  readonly starts: ReadonlySet<number>;
  readonly ends: ReadonlySet<number>;
}

function indexWords(sequences: readonly (readonly string[])[]): WordIndex {
  let compact = '';
  const starts = new Set<number>();
  const ends = new Set<number>();
  for (const sequence of sequences) {
    for (const word of sequence) {
      starts.add(compact.length);
      compact += word;
      ends.add(compact.length);
    }
    compact += '\u0000';
  }
  return { compact, starts, ends };
}

/** A word run together and its plural or singular spellings ("test", "tests"). */
function spellings(compact: string): string[] {
  const forms = [compact, `${compact}s`, `${compact}es`];
  if (compact.endsWith('es') && compact.length > 3) forms.push(compact.slice(0, -2));
  if (compact.endsWith('s') && compact.length > 2) forms.push(compact.slice(0, -1));
  return forms;
}

/**
 * Whether the words of `value` occur as a run of consecutive words of a source,
 * compared with the spacing and punctuation between them removed: "BTCUSD" is in
 * "BTC/USD", "jsmith@gmail.com" in "jsmith@gmail.com", "456 oak" in "456 Oak Street",
 * "tests" in "test"; "Al" is not in "Alice", nor "5000" in "500".
 */
function occursIn(value: readonly string[], index: WordIndex): boolean {
  for (const form of spellings(value.join(''))) {
    for (
      let found = index.compact.indexOf(form);
      found !== -1;
      found = index.compact.indexOf(form, found + 1)
    ) {
      if (index.starts.has(found) && index.ends.has(found + form.length)) return true;
    }
  }
  return false;
}

function textGrounded(text: string, vocabulary: Vocabulary): boolean {
  // A date or time written as text (`start_time matches /2022-02-22/`) is judged as one.
  const date = parseDate(text.trim());
  if (date !== undefined) return judge({ kind: 'date', value: date }, vocabulary) === undefined;
  const time = parseTime(text.trim());
  if (time !== undefined) return judge({ kind: 'time', value: time }, vocabulary) === undefined;
  const words = wordsOf(text);
  // Punctuation alone ("...", "") names nothing.
  if (words.length === 0) return true;
  return occursIn(words, vocabulary.words);
}

function numberGrounded(text: string | undefined, vocabulary: Vocabulary): boolean {
  if (text === undefined) return false;
  return structuralNumbers.has(text) || vocabulary.given.some((given) => given.numbers.has(text));
}

/**
 * A regex that is a plain text between optional anchors (`/^Mallory$/`, `/green bottle/`),
 * as that text; undefined for a pattern with classes, alternatives or repetition.
 */
function plainRegexText(pattern: string): string | undefined {
  const body = pattern.replace(/^\^/, '').replace(/\$$/, '').replace(/\\b/g, ' ');
  if (/(?<!\\)[.*+?()[\]{}|^$]/.test(body) || /\\[a-zA-Z0-9]/.test(body)) return undefined;
  return body.replace(/\\(.)/g, '$1');
}

function balanced(text: string): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    if (text[index] === '\\') index++;
    else if (text[index] === '(') depth++;
    else if (text[index] === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/**
 * The texts a regex chooses among when it is nothing but a choice of plain texts
 * (`/^(Alice|Mallory)$/`, `/kitchen|grandma/`, `/^Mallory$/`): each must be given, or an
 * alternation would smuggle in what `=` could not. Undefined for any other pattern
 * (classes, repetition, a choice inside a longer pattern), which grounding does not judge.
 */
function regexChoices(pattern: string): string[] | undefined {
  let body = pattern.replace(/^\^/, '').replace(/(?<!\\)\$$/, '');
  const group = /^\((?:\?:)?([\s\S]*)\)$/.exec(body);
  if (group?.[1] !== undefined && balanced(group[1])) body = group[1];
  const choices = body.split(/(?<!\\)\|/).map(plainRegexText);
  return choices.every((choice) => choice !== undefined) ? (choices as string[]) : undefined;
}

type Judgement = { readonly what: string; readonly value: string } | undefined;

/** Whether a literal is given; when not, what to call it and how to show it. */
function judge(literal: Literal, vocabulary: Vocabulary): Judgement {
  switch (literal.kind) {
    case 'text':
      return textGrounded(literal.value, vocabulary)
        ? undefined
        : { what: 'text', value: JSON.stringify(literal.value) };
    case 'number': {
      const text = canonicalNumber(literal.value);
      return numberGrounded(text, vocabulary)
        ? undefined
        : { what: 'number', value: text ?? String(literal.value) };
    }
    case 'date': {
      const date = new Date(literal.value * 86_400_000);
      const monthDay = (date.getUTCMonth() + 1) * 100 + date.getUTCDate();
      const given = vocabulary.given.some(
        (values) => values.dates.has(literal.value) || values.monthDays.has(monthDay),
      );
      return given ? undefined : { what: 'date', value: formatDate(literal.value) };
    }
    case 'time':
      return vocabulary.given.some((values) => values.times.has(literal.value))
        ? undefined
        : { what: 'time', value: formatTime(literal.value) };
    case 'datetime': {
      const days = Math.floor(literal.value / 86_400);
      const seconds = literal.value - days * 86_400;
      const date = judge({ kind: 'date', value: days }, vocabulary);
      const time = seconds === 0 ? undefined : judge({ kind: 'time', value: seconds }, vocabulary);
      return date === undefined && time === undefined
        ? undefined
        : { what: 'date-time', value: `${formatDate(days)}T${formatTime(seconds)}` };
    }
    case 'relative':
      // `now` is the moment of the action itself, never a value the user has to give.
      return literal.value === 'now' ||
        vocabulary.given.some((values) => values.relative.has(literal.value))
        ? undefined
        : { what: 'relative date', value: literal.value };
    case 'list': {
      for (const element of literal.elements) {
        const problem = judge(element, vocabulary);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'regex': {
      const ungrounded = regexChoices(literal.pattern)?.find(
        (choice) => !textGrounded(choice, vocabulary),
      );
      return ungrounded === undefined
        ? undefined
        : {
            what: 'regular expression',
            value: `/${literal.pattern}/${literal.flags} (${JSON.stringify(ungrounded)})`,
          };
    }
    // Booleans have nothing to ground; enum members are the schema's own values.
    case 'boolean':
    case 'enum':
      return undefined;
    default: {
      // A kind of value added to the language must be judged here: it does not compile
      // until it is, and if it ran, it would be reported rather than waved through.
      const unread: never = literal;
      return { what: 'value', value: JSON.stringify((unread as Literal).kind) };
    }
  }
}

/** Numbers of a computed value (`$p * 0.5`); durations are not judged. */
function arithmeticNumbers(arithmetic: CheckedArithmetic, into: string[]): void {
  if (arithmetic.kind === 'number') {
    const text = canonicalNumber(arithmetic.value);
    if (text !== undefined) into.push(text);
  } else if (arithmetic.kind === 'operation') {
    arithmeticNumbers(arithmetic.left, into);
    arithmeticNumbers(arithmetic.right, into);
  }
}

/**
 * The counts a computed value's durations may have been written with (`2h` is 7200
 * seconds, 120 minutes, 2 hours): they use the instruction's "in 2 hours".
 */
function durationCounts(arithmetic: CheckedArithmetic, into: Set<string>): void {
  if (arithmetic.kind === 'duration') {
    for (const unit of [1, 60, 3600, 86_400]) {
      const count = arithmetic.seconds / unit;
      if (Number.isInteger(count)) into.add(String(count));
    }
  } else if (arithmetic.kind === 'operation') {
    durationCounts(arithmetic.left, into);
    durationCounts(arithmetic.right, into);
  }
}

interface Walk {
  readonly vocabulary: Vocabulary;
  readonly report: (
    code: string,
    range: SourceRange | undefined,
    data: Record<string, string>,
  ) => void;
  /** Every number the spec uses (as canonical text), for the unused-number check. */
  readonly used: Set<string>;
}

/** Numbers a literal carries, also inside text and plain regexes ("123 main", `/save20/`). */
function numbersOf(literal: Literal, into: Set<string>): void {
  const fromText = (text: string) => {
    for (const word of text.match(/\d+(?:\.\d+)?/g) ?? []) {
      const value = canonicalNumber(word);
      if (value !== undefined) into.add(value);
    }
  };
  if (literal.kind === 'number') {
    const value = canonicalNumber(literal.value);
    if (value !== undefined) into.add(value);
  } else if (literal.kind === 'text') fromText(literal.value);
  else if (literal.kind === 'regex') fromText(literal.pattern);
  else if (literal.kind === 'list')
    for (const element of literal.elements) numbersOf(element, into);
}

/**
 * Judges the literals of one constraint. `allows` says on which side of a decision the
 * pattern stands: a rule's own patterns say what is allowed; a guard's, and those under
 * a rule's `not`, what is refused. A text, regex or enum literal is judged where it says
 * what is allowed — a positive constraint on the allowing side (`to = "Alice"`), a
 * negated one on the refusing side (`reject Pay(to != "Alice")`). Elsewhere it only
 * refuses more (`reject Pay(to = "Eve")`, `command not matches /rm /`): a swapped one is
 * as good as none, which grounding cannot see either. Numbers, dates and times bound
 * both ways and are always judged.
 */
function walkConstraint(constraint: CheckedConstraint, allows: boolean, walk: Walk): void {
  const range = constraint.node?.value.range;
  for (const step of constraint.access?.steps ?? []) {
    if (step.kind === 'filter')
      for (const inner of step.constraints) walkConstraint(inner, allows, walk);
  }
  if (constraint.access?.matches) {
    const literal: Literal = {
      kind: 'regex',
      regex: constraint.access.matches,
      pattern: constraint.access.matches.pattern,
      flags: constraint.access.matches.flags,
    };
    numbersOf(literal, walk.used);
    if (allows)
      report(judge(literal, walk.vocabulary), constraint.node?.subject?.range ?? range, walk);
  }
  if (constraint.binding) {
    const numbers: string[] = [];
    if (constraint.binding.arithmetic) {
      arithmeticNumbers(constraint.binding.arithmetic, numbers);
      durationCounts(constraint.binding.arithmetic, walk.used);
    }
    for (const number of numbers) {
      walk.used.add(number);
      if (!numberGrounded(number, walk.vocabulary))
        walk.report('ungrounded-literal', range, {
          what: 'number',
          value: number,
          ...hint('number'),
        });
    }
    return;
  }
  numbersOf(constraint.value, walk.used);
  const kind = constraint.value.kind;
  if (
    operatorPolarity[constraint.operator].negated === allows &&
    (kind === 'text' || kind === 'regex' || kind === 'enum' || kind === 'list')
  ) {
    // A list only refuses more when it holds text; numbers and dates in it are judged.
    if (kind !== 'list' || constraint.value.elements.every((element) => element.kind === 'text'))
      return;
  }
  report(judge(constraint.value, walk.vocabulary), range, walk);
}

function hint(what: string): { hint: string } {
  return {
    hint:
      what === 'number'
        ? 'Use the amounts, counts and limits the user stated; a value read from a tool result is bound ($x), not written.'
        : 'Use the values the user gave; a value that only a tool result or a note inside the data gives is bound ($x) or confirmed, not written into the spec.',
  };
}

function report(judgement: Judgement, range: SourceRange | undefined, walk: Walk): void {
  if (judgement)
    walk.report('ungrounded-literal', range, { ...judgement, ...hint(judgement.what) });
}

function walkPattern(pattern: CheckedPattern, allows: boolean, walk: Walk): void {
  // What the agent must tell the user is worded by the spec, not given by the user.
  if (pattern.predicate === answerPredicate || pattern.predicate.name === answerPredicate.name) {
    for (const constraint of pattern.constraints) numbersOf(constraint.value, walk.used);
    return;
  }
  for (const constraint of pattern.constraints) walkConstraint(constraint, allows, walk);
}

/**
 * The grounding check: every literal of the spec must come from the instruction or the
 * further trusted texts (a policy); enum literals are the schema's own members. A
 * swapped payee (`to = "Mallory"` for "pay Alice") or a widened cap
 * (`amount <= 500000` for "$500") is an `ungrounded-literal` warning; numbers compare
 * as numbers, text as normalized words. Three cheap checks go with it: a number the
 * instruction states that the spec never uses (`unused-instruction-number`), a critical
 * action allowed with any arguments and without asking (`unpinned-critical-action`),
 * and an instruction that asks for approval where the spec asks for none
 * (`confirmation-not-required`). It cannot see a value the instruction itself carries
 * from an injected note, nor what the spec leaves out (a dropped `@confirm` on an
 * instruction that does not ask for one, a dropped guard): see docs/formalize.md.
 */
export function checkGrounding(spec: Spec, sources: GroundingSources): Diagnostic[] {
  const misuse = firstProblem(specProblem(spec), groundingSourcesProblem(sources));
  if (misuse) return [argumentDiagnostic('checkGrounding', misuse)];
  const instruction = readGivenValues(sources.instruction, sources.today);
  const given = [
    instruction,
    ...(sources.texts ?? []).map((text) => readGivenValues(text, sources.today)),
  ];
  const vocabulary: Vocabulary = {
    given,
    words: indexWords(given.map((values) => values.words)),
  };
  const diagnostics: Diagnostic[] = [];
  const seen = new Set<string>();
  const walk: Walk = {
    vocabulary,
    used: new Set(),
    report: (code, range, data) => {
      // Alternatives of a disjunctive rule share their atoms: one warning per place.
      const key = `${code}:${range?.start.offset ?? -1}:${data['value'] ?? ''}`;
      if (seen.has(key)) return;
      seen.add(key);
      diagnostics.push(
        createDiagnostic(
          code as Parameters<typeof createDiagnostic>[0],
          range ? { range } : {},
          data,
        ),
      );
    },
  };

  const guarded = new Set<string>();
  let asks = false;
  for (const guard of spec.guards) {
    if (guard.mode === 'confirm') asks = true;
    if (guard.mode === 'confirm' || guard.pattern.constraints.length > 0)
      guarded.add(guard.pattern.predicate.name);
    walkPattern(guard.pattern, false, walk);
  }
  for (const rule of spec.rules) {
    if (rule.confirm) asks = true;
    for (const pattern of rule.states) walkPattern(pattern, true, walk);
    for (const pattern of rule.negations ?? []) walkPattern(pattern, false, walk);
    if (rule.action) walkPattern(rule.action, true, walk);
    const repeat = rule.node?.annotations.find((annotation) => annotation.kind === 'repeat');
    if (rule.repeat?.limit !== undefined) {
      const text = String(rule.repeat.limit);
      walk.used.add(text);
      if (!numberGrounded(text, vocabulary))
        walk.report('ungrounded-literal', repeat?.range, {
          what: 'number',
          value: text,
          ...hint('number'),
        });
    }
    for (const condition of rule.objectives) {
      const text = String(condition.count);
      walk.used.add(text);
      if (!numberGrounded(text, vocabulary))
        walk.report('ungrounded-literal', condition.range, {
          what: 'number',
          value: text,
          ...hint('number'),
        });
    }
    const action = rule.action;
    if (
      action?.predicate.critical &&
      !rule.confirm &&
      !guarded.has(action.predicate.name) &&
      action.constraints.length === 0 &&
      (action.absent ?? []).length === 0 &&
      action.predicate.variables.some((variable) => variable.observed !== true)
    ) {
      walk.report('unpinned-critical-action', action.range, {
        rule: rule.id,
        name: action.predicate.name,
      });
    }
  }

  for (const number of instruction.stated) {
    if (number.values.some((value) => walk.used.has(value))) continue;
    walk.report('unused-instruction-number', undefined, { value: number.text });
  }
  const phrase = instruction.approvals[0];
  if (phrase !== undefined && !asks)
    walk.report('confirmation-not-required', undefined, { phrase });
  return sortDiagnostics(diagnostics);
}
