import { createClock, type SessionOptions } from '../engine/index.js';
import { CliError } from './io.js';

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
      throw new CliError(`--now: ${error instanceof Error ? error.message : String(error)}`, 2);
    }
  }
  let escalateAfter: number | undefined;
  if (flags.escalateAfter !== undefined) {
    escalateAfter = Number(flags.escalateAfter);
    if (!Number.isInteger(escalateAfter) || escalateAfter < 0) {
      throw new CliError(
        `--escalate-after: '${flags.escalateAfter}' is not a whole number of zero or more`,
        2,
      );
    }
  }
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
