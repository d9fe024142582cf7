import { argumentError, describeArgument, limitsProblem } from '../language/arguments.js';
import { type Limits, resolveLimits } from '../language/index.js';
import type { EngineParts } from './engine-parts.js';
import type { SessionOptions } from './session-types.js';
import {
  defaultSimilarityThreshold,
  missingSimilarity,
  type SimilarityFunction,
} from './similarity.js';

/**
 * Session options, checked once when a session starts. A misconfigured guard must
 * not quietly run in a weaker mode (a negative similarity threshold makes `~` accept
 * anything, a NaN history limit keeps everything), so every option is validated and
 * a bad one is a `TypeError` that names it — before any proposal is seen.
 */
export interface SessionSettings {
  /** The engine's parts the session was given (engine-parts.ts); none by default. */
  readonly parts: EngineParts;
  /** The measure of `~`: the one given, else the lexical one of `parts`, else none (`missingSimilarity`). */
  readonly similarity: SimilarityFunction;
  readonly threshold: number;
  readonly escalateAfter: number;
  readonly unplannedCritical: 'revise' | 'confirm';
  readonly historyLimit: number;
  readonly timeZone: string;
  readonly limits: Limits;
  readonly rollback: boolean;
}

const knownOptions = new Set([
  'now',
  'timeZone',
  'similarity',
  'similarityThreshold',
  'escalateAfter',
  'unplannedCritical',
  'historyLimit',
  'limits',
  'rollback',
  'parts',
  'policy',
]);

function isWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function fail(parameter: string, expected: string, value: unknown): never {
  throw argumentError('createSession', { parameter, expected, actual: describeArgument(value) });
}

/** Zones already found valid: building an Intl formatter costs tens of microseconds. */
const knownZones = new Set<string>(['UTC']);

/** Whether `timeZone` is an IANA zone this runtime knows. */
function isTimeZone(timeZone: string): boolean {
  if (knownZones.has(timeZone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
  } catch {
    return false;
  }
  // Bounded: a host cycling through arbitrary strings cannot grow it past the zones that exist.
  if (knownZones.size < 1_024) knownZones.add(timeZone);
  return true;
}

/** Checks and completes session options; throws a `TypeError` naming the first bad one. */
export function sessionSettings(options: unknown): SessionSettings {
  if (options === undefined || options === null) return sessionSettings({});
  if (typeof options !== 'object' || Array.isArray(options))
    fail('options', 'an options object or undefined', options);
  const given = options as SessionOptions;
  for (const name of Object.keys(given)) {
    if (!knownOptions.has(name)) {
      throw argumentError('createSession', {
        parameter: 'options',
        expected: `an object of known options (${[...knownOptions].join(', ')})`,
        actual: `one with the unknown option '${name}'`,
      });
    }
  }
  const parts = given.parts ?? {};
  if (typeof parts !== 'object' || parts === null || Array.isArray(parts))
    fail('options.parts', "an object of the engine's parts or undefined", parts);
  const similarity = given.similarity ?? parts.lexicalSimilarity ?? missingSimilarity;
  if (typeof similarity !== 'function')
    fail('options.similarity', 'a function (left, right) => number in [0, 1]', similarity);
  const threshold = given.similarityThreshold ?? defaultSimilarityThreshold;
  if (typeof threshold !== 'number' || !(threshold >= 0 && threshold <= 1))
    fail('options.similarityThreshold', 'a number in [0, 1]', threshold);
  const escalateAfter = given.escalateAfter ?? 3;
  if (!isWholeNumber(escalateAfter))
    fail('options.escalateAfter', 'a whole number of zero or more', escalateAfter);
  const unplannedCritical = given.unplannedCritical ?? 'revise';
  if (unplannedCritical !== 'revise' && unplannedCritical !== 'confirm')
    fail('options.unplannedCritical', "'revise' or 'confirm'", unplannedCritical);
  const limitIssue = limitsProblem(given.limits, 'options.limits');
  if (limitIssue) throw argumentError('createSession', limitIssue);
  const limits = resolveLimits(given.limits);
  const historyLimit = given.historyLimit ?? limits.maxHistory;
  if (!isWholeNumber(historyLimit))
    fail('options.historyLimit', 'a whole number of zero or more', historyLimit);
  const timeZone = given.timeZone ?? 'UTC';
  if (typeof timeZone !== 'string' || !isTimeZone(timeZone))
    fail('options.timeZone', "an IANA time zone such as 'Europe/Paris'", timeZone);
  const rollback = given.rollback ?? false;
  if (typeof rollback !== 'boolean') fail('options.rollback', 'true, false or undefined', rollback);
  return {
    rollback,
    parts,
    similarity,
    threshold,
    escalateAfter,
    unplannedCritical,
    historyLimit,
    timeZone,
    limits,
  };
}
