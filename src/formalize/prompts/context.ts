import { createClock } from '../../engine/index.js';
import { formatDate, formatTime } from '../../language/index.js';

const weekdays = ['Thursday', 'Friday', 'Saturday', 'Sunday', 'Monday', 'Tuesday', 'Wednesday'];

/**
 * Today's date, weekday, time and time zone as one sentence, so that the model can
 * resolve "tomorrow", "before 7 PM" and "next Monday". `now` is wall-clock time in
 * `timeZone` (`2025-03-14T12:00`) or an instant.
 */
export function describeNow(now: string | Date, timeZone: string): string {
  const clock = createClock(now, timeZone);
  const weekday = weekdays[((clock.today % 7) + 7) % 7] ?? '';
  return `Today is ${weekday}, ${formatDate(clock.today)}; the time is ${formatTime(clock.time)} (time zone ${timeZone}).`;
}

/**
 * The markers the prompts put around data (`<instruction>`, `<remembered-instruction>`,
 * `<reading>`), opening or closing, with attributes, spacing or full-width brackets.
 */
const promptMarker =
  /[<\uFF1C\uFE64]\s*\/?\s*(?:remembered[-_\s]?)?(?:instruction|reading)\b[^<>\uFF1C\uFE64\uFF1E\uFE65]*[>\uFF1E\uFE65]/giu;

/**
 * Untrusted text with the prompts' markers defused (`<` `>` shown as `‹` `›`), so that
 * it cannot end a block and pose as prompt, nor forge an `<instruction>` block of its
 * own. Every text rendered into a prompt that the user did not write in that block
 * goes through it: the instruction itself, remembered instructions and specs, tool,
 * field and enum texts of the schema (F1), model replies quoted back.
 */
export function defuseMarkers(text: string): string {
  return text.replace(promptMarker, (marker) =>
    marker.replace(/^[<\uFF1C\uFE64]/u, '‹').replace(/[>\uFF1E\uFE65]$/u, '›'),
  );
}

/** The instruction as data between markers; markers inside it are defused. */
export function quoteInstruction(instruction: string, tag = 'instruction'): string {
  return `<${tag}>\n${defuseMarkers(instruction).trim()}\n</${tag}>`;
}
