import { type NumberValue, numberText, readNumber } from '../decimal.js';
import { daysFromCivil } from '../temporal.js';
import { normalizeText } from '../text.js';

/**
 * The values a trusted text gives (the user's instruction; later a policy): the words
 * as the spec's text operators see them, the numbers it states, the dates and times
 * it names. The grounding check (grounding.ts) asks whether each literal of a spec is
 * one of them. Reading is deliberately literal: "$500" gives 500, never 5000; "7 PM"
 * gives 19:00; "tomorrow" gives a date only with the session's date to count from.
 */
export interface GivenValues {
  /** Normalized words (letters and digits), in order. */
  readonly words: readonly string[];
  /** Exact decimal texts of the numbers stated, with their readings (percent, thousands). */
  readonly numbers: ReadonlySet<string>;
  /** The numbers as written in digits, for the check that each is used. */
  readonly stated: readonly { readonly text: string; readonly values: readonly string[] }[];
  /** Days since 1970-01-01. */
  readonly dates: ReadonlySet<number>;
  /** Month and day of dates written without a year (`March 1`), as `month*100+day`. */
  readonly monthDays: ReadonlySet<number>;
  /** Seconds since midnight. */
  readonly times: ReadonlySet<number>;
  /** Relative words: `today`, `tomorrow`, `yesterday`. */
  readonly relative: ReadonlySet<string>;
  /** Phrases that ask for the user's approval (`ask me first`), not negated. */
  readonly approvals: readonly string[];
}

/** The words of a text as the spec's text operators compare it: NFKC_Casefold, letters and digits. */
export function wordsOf(text: string): string[] {
  return normalizeText(text).match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** A number's canonical decimal text (`500`, `0.2`), or undefined past the exact range. */
export function canonicalNumber(value: NumberValue | string): string | undefined {
  if (typeof value !== 'string') return numberText(value);
  const read = readNumber(value);
  return read.ok ? numberText(read.value) : undefined;
}

/** `text` times 10^exponent, exactly (decimal shifting on the text, no floating point). */
function scaled(text: string, exponent: number): string | undefined {
  const negative = text.startsWith('-');
  const unsigned = negative ? text.slice(1) : text;
  const [whole = '', fraction = ''] = unsigned.split('.');
  let digits = whole + fraction;
  let point = whole.length + exponent;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const shifted = `${digits.slice(0, point) || '0'}${point < digits.length ? `.${digits.slice(point)}` : ''}`;
  return canonicalNumber(`${negative ? '-' : ''}${shifted}`);
}

/** 1 - text/100 for a percentage ("20% off" is a factor 0.8), exactly for up to 2 decimals. */
function complement(percent: string): string | undefined {
  const fraction = scaled(percent, -2);
  if (fraction === undefined) return undefined;
  const [whole = '0', decimals = ''] = fraction.split('.');
  if (whole !== '0' || decimals.length > 6) return undefined;
  const scale = 10 ** decimals.length;
  const rest = scale - Number(decimals.padEnd(decimals.length, '0'));
  return canonicalNumber(String(rest / scale));
}

const multipliers: Readonly<Record<string, number>> = {
  k: 3,
  thousand: 3,
  m: 6,
  million: 6,
  mn: 6,
  bn: 9,
  billion: 9,
};

/**
 * Numbers written in digits, standing alone: not part of a word (`save20`, `bc1q`,
 * `1st`), an identifier (`99-1234`, `192.168.0.1`), a date or a time. Thousands
 * separators are read (`1,000`), and a suffix or percent sign adds a reading.
 */
const digitNumber =
  /(?<![\p{L}\p{N}_.\-/:@#])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?(k|thousand|m|mn|million|bn|billion)\b)?(\s?%|\s?percent\b)?(?![\p{L}\p{N}_@/]|[.,:\-/]\d)/gu;

const numberWords: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  once: 1,
  single: 1,
  two: 2,
  twice: 2,
  double: 2,
  pair: 2,
  couple: 2,
  three: 3,
  thrice: 3,
  triple: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  dozen: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
  thousand: 1000,
  million: 1_000_000,
  half: 0.5,
  halve: 0.5,
  halves: 0.5,
  halved: 0.5,
  quarter: 0.25,
};

const months: Readonly<Record<string, number>> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};
const monthName = Object.keys(months).join('|');

/** 1970-01-01 was a Thursday: weekday names by `days % 7`. */
const weekdays = ['thursday', 'friday', 'saturday', 'sunday', 'monday', 'tuesday', 'wednesday'];

const todayWords =
  /\b(?:today|tonight|this (?:morning|afternoon|evening)|right now|now|immediately|asap)\b/;

/**
 * Phrases that ask for the user's approval before acting. A phrase after "without",
 * "don't", "do not", "never" or "no need to" (within a few words) does not count:
 * "without asking me" is the opposite.
 */
const approvalPhrase = new RegExp(
  `\\b(?:${[
    // "ask me first", "ask me before sending", "ask me." — not "if they ask me about it".
    String.raw`ask(?:ing)? me (?:first|before|if|whether|for|to)\b`,
    String.raw`ask(?:ing)? me(?=\s*(?:[.!;,)]|$))`,
    String.raw`asks? (?:first|for (?:my )?(?:approval|permission|confirmation|ok|okay|consent))\b`,
    String.raw`(?:check|confirm(?: it| this| that)?) with me\b`,
    String.raw`(?:let me|i want to|i['’]d like to|i will|i['’]ll) (?:confirm|approve|decide|review)\b`,
    String.raw`(?:after|once|until|unless|before) i (?:approve|confirm|say so|ok it|okay it)\b`,
    String.raw`(?:with|get|need|wait for|after|require|requires|have) my (?:approval|permission|confirmation|ok|okay|go-ahead|consent|sign-off)\b`,
    String.raw`(?:get|need|require|requires|wait for) (?:approval|confirmation|permission)\b`,
  ].join('|')})`,
  'g',
);
const negation = /\b(?:without|don['’]?t|do not|never|no need to)\b(?:\s+\S+){0,2}\s*$/;

/**
 * Adds a time, and its hour (12- and 24-hour) and minute to the numbers: an app's time
 * picker takes `selected_hour = 3, selected_minute = 0` for "3:00 AM".
 */
function addTime(
  times: Set<number>,
  numbers: Set<string>,
  hours: number,
  minutes: number,
  seconds = 0,
): void {
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59) return;
  times.add(hours * 3600 + minutes * 60 + seconds);
  for (const part of [hours, hours % 12 === 0 ? 12 : hours % 12, minutes])
    numbers.add(String(part));
}

function twelveHour(hour: number, meridiem: string): number | undefined {
  if (hour < 1 || hour > 12) return undefined;
  return (hour % 12) + (meridiem.startsWith('p') ? 12 : 0);
}

/** Marks a matched span as read, so that its digits are not read again as numbers. */
function blank(text: string, start: number, length: number): string {
  return text.slice(0, start) + ' '.repeat(length) + text.slice(start + length);
}

/** What a trusted text gives; `today` (days since 1970-01-01) resolves relative words. */
export function readGivenValues(source: string, today?: number): GivenValues {
  // Case-folded and compatibility-mapped (full-width digits are digits); spacing kept
  // as one space so that the patterns below read it.
  let text = normalizeText(source);
  const numbers = new Set<string>();
  const stated: { text: string; values: string[] }[] = [];
  const dates = new Set<number>();
  const monthDays = new Set<number>();
  const times = new Set<number>();
  const relative = new Set<string>();

  const addDate = (year: number | undefined, month: number, day: number) => {
    // A date picker takes the parts: `day = 22, month = 2`.
    for (const part of [year, month, day]) if (part !== undefined) numbers.add(String(part));
    if (year === undefined) {
      if (month >= 1 && month <= 12 && day >= 1 && day <= 31) monthDays.add(month * 100 + day);
      return;
    }
    const days = daysFromCivil(year < 100 ? 2000 + year : year, month, day);
    if (days !== undefined) dates.add(days);
  };
  const consume = (pattern: RegExp, read: (match: RegExpExecArray) => void) => {
    for (const match of [...text.matchAll(pattern)]) {
      read(match);
      text = blank(text, match.index, match[0].length);
    }
  };

  // Dates first: their digits are not amounts.
  consume(/\b(\d{4})-(\d{2})-(\d{2})(?:t(\d{2}):(\d{2})(?::(\d{2}))?)?/g, (match) => {
    addDate(Number(match[1]), Number(match[2]), Number(match[3]));
    if (match[4] !== undefined)
      addTime(times, numbers, Number(match[4]), Number(match[5]), Number(match[6] ?? 0));
  });
  consume(
    new RegExp(`\\b(${monthName})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?\\b(?:,?\\s+(\\d{4})\\b)?`, 'g'),
    (match) =>
      addDate(
        match[3] === undefined ? undefined : Number(match[3]),
        months[match[1] ?? ''] ?? 0,
        Number(match[2]),
      ),
  );
  consume(
    new RegExp(
      `\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${monthName})\\b\\.?(?:,?\\s+(\\d{4})\\b)?`,
      'g',
    ),
    (match) =>
      addDate(
        match[3] === undefined ? undefined : Number(match[3]),
        months[match[2] ?? ''] ?? 0,
        Number(match[1]),
      ),
  );
  consume(/\b(\d{1,2})\/(\d{1,2})(?:\/(\d{2}|\d{4}))?\b/g, (match) => {
    const year = match[3] === undefined ? undefined : Number(match[3]);
    // Month first (US) or day first: either reading grounds.
    addDate(year, Number(match[1]), Number(match[2]));
    addDate(year, Number(match[2]), Number(match[1]));
  });

  // Times: ranges share their meridiem ("2 to 3 pm"), then 12-hour, then 24-hour.
  consume(
    /\b(\d{1,2})(?::(\d{2}))?\s*(?:-|–|to|until|till)\s*(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?/g,
    (match) => {
      const meridiem = match[5] ?? 'a';
      // "11 to 1 pm" starts in the morning: the start may have either meridiem.
      for (const side of ['a', 'p']) {
        const start = twelveHour(Number(match[1]), side);
        if (start !== undefined) addTime(times, numbers, start, Number(match[2] ?? 0));
      }
      const end = twelveHour(Number(match[3]), meridiem);
      if (end !== undefined) addTime(times, numbers, end, Number(match[4] ?? 0));
    },
  );
  consume(/\b(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?/g, (match) => {
    const hours = twelveHour(Number(match[1]), match[4] ?? 'a');
    if (hours !== undefined)
      addTime(times, numbers, hours, Number(match[2] ?? 0), Number(match[3] ?? 0));
  });
  consume(/\b(\d{1,2}):(\d{2})(?::(\d{2}))?\b/g, (match) =>
    addTime(times, numbers, Number(match[1]), Number(match[2]), Number(match[3] ?? 0)),
  );
  consume(/\b(\d{1,2}) o'?clock\b/g, (match) => {
    const hour = Number(match[1]);
    addTime(times, numbers, hour % 12, 0);
    addTime(times, numbers, (hour % 12) + 12, 0);
  });
  if (/\bnoon\b|\bmidday\b/.test(text)) addTime(times, numbers, 12, 0);
  if (/\bmidnight\b|\bend of (?:the )?day\b|\bby tonight\b/.test(text)) {
    addTime(times, numbers, 0, 0);
    addTime(times, numbers, 23, 59);
    addTime(times, numbers, 23, 59, 59);
  }

  // Relative dates: words the spec may keep (`today`), and with the session's date, days.
  const dayOffsets: number[] = [];
  if (todayWords.test(text)) {
    relative.add('today');
    dayOffsets.push(0);
  }
  if (/\bday after tomorrow\b/.test(text)) dayOffsets.push(2);
  else if (/\btomorrow\b/.test(text)) {
    relative.add('tomorrow');
    dayOffsets.push(1);
  }
  if (/\byesterday\b/.test(text)) {
    relative.add('yesterday');
    dayOffsets.push(-1);
  }
  if (today !== undefined) {
    for (const offset of dayOffsets) dates.add(today + offset);
    weekdays.forEach((name, index) => {
      if (!new RegExp(`\\b${name}s?\\b`).test(text)) return;
      // The next such weekday: today itself, or a week on ("Friday" said on a Friday).
      const ahead = (((index - today) % 7) + 7) % 7;
      dates.add(today + ahead);
      if (ahead === 0) dates.add(today + 7);
    });
    for (const date of dates) {
      if (date === today) relative.add('today');
      if (date === today + 1) relative.add('tomorrow');
      if (date === today - 1) relative.add('yesterday');
    }
  }

  for (const match of text.matchAll(digitNumber)) {
    const digits = (match[1] ?? '').replaceAll(',', '') + (match[2] ?? '');
    const base = canonicalNumber(digits);
    if (base === undefined) continue;
    const values = [base];
    const multiplier = match[3] === undefined ? undefined : multipliers[match[3]];
    if (multiplier !== undefined) {
      const value = scaled(base, multiplier);
      if (value !== undefined) values.push(value);
    }
    if (match[4] !== undefined) {
      const fraction = scaled(base, -2);
      const rest = complement(base);
      if (fraction !== undefined) values.push(fraction);
      if (rest !== undefined) values.push(rest);
    }
    for (const value of values) numbers.add(value);
    stated.push({ text: match[0].trim(), values });
  }
  for (const word of text.match(/\p{L}+/gu) ?? []) {
    const value = numberWords[word];
    if (value !== undefined) numbers.add(String(value));
  }

  const approvals: string[] = [];
  for (const match of text.matchAll(approvalPhrase)) {
    if (negation.test(text.slice(Math.max(0, match.index - 40), match.index))) continue;
    approvals.push(match[0]);
  }

  return {
    words: wordsOf(source),
    numbers,
    stated,
    dates,
    monthDays,
    times,
    relative,
    approvals,
  };
}
