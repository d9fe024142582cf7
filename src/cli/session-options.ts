import { createClock, type SessionOptions } from '../engine/index.js';
import { errorMessage } from '../support/error-message.js';
import { wholeNumber } from './flags.js';
import { CliError } from './io.js';

/** More identical refusals than this before asking a person is as good as never. */
const maxEscalateAfter = 1_000_000;

export interface SessionFlags {
  readonly now?: string;
  readonly timeZone?: string;
  readonly escalateAfter?: string;
  readonly unplanned?: string;
}

/** Validates the session flags shared by `replay` and `demo`; bad values are usage errors. */
export function sessionOptionsFromFlags(flags: SessionFlags): SessionOptions {
  const timeZone = flags.timeZone ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    throw new CliError(
      `--time-zone: '${timeZone}' is not an IANA time zone (e.g. Europe/Berlin)`,
      2,
    );
  }
  if (flags.now !== undefined) {
    try {
      createClock(flags.now, timeZone);
    } catch (error) {
      throw new CliError(`--now: ${errorMessage(error)}`, 2);
    }
  }
  const escalateAfter = wholeNumber('--escalate-after', flags.escalateAfter, 0, maxEscalateAfter);
  if (
    flags.unplanned !== undefined &&
    flags.unplanned !== 'revise' &&
    flags.unplanned !== 'confirm'
  ) {
    throw new CliError(`--unplanned: '${flags.unplanned}' must be revise or confirm`, 2);
  }
  return {
    ...(flags.now !== undefined ? { now: flags.now } : {}),
    timeZone,
    ...(escalateAfter !== undefined ? { escalateAfter } : {}),
    ...(flags.unplanned !== undefined
      ? { unplannedCritical: flags.unplanned as 'revise' | 'confirm' }
      : {}),
  };
}
