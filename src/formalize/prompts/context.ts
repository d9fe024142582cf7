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
 * The instruction as data between markers. It is user text: a closing marker inside
 * it is defused so that it cannot end the block and pose as prompt.
 */
export function quoteInstruction(instruction: string, tag = 'instruction'): string {
  const safe = instruction.replace(/<\/?\s*(?:remembered-)?instruction\s*>/gi, (marker) =>
    marker.replace('<', '‹').replace('>', '›'),
  );
  return `<${tag}>\n${safe.trim()}\n</${tag}>`;
}
