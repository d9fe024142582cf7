import type { Decision, Severity, Verdict } from '../engine/index.js';
import { reasonCodes } from '../engine/index.js';
import { closestNames } from '../language/index.js';
import { CliError } from './io.js';
import { findJsonAmbiguity } from './json-strict.js';

/** One event of a trace file (FORMATS.md §3). */
export type TraceEvent =
  | {
      readonly kind: 'propose';
      readonly line: number;
      readonly proposal: unknown;
      readonly expect?: Expectation;
    }
  | {
      readonly kind: 'observe';
      readonly line: number;
      readonly observation: unknown;
      /** Whether the observation is expected to apply; absent means it must. */
      readonly expectOk?: boolean;
    }
  | { readonly kind: 'resolve'; readonly line: number; readonly approved: boolean };

export interface Expectation {
  readonly decision?: Decision;
  readonly severity?: Severity;
  readonly code?: string;
}

const decisions = new Set(['allow', 'confirm', 'revise', 'reject']);

/** The events a line can hold; each line holds exactly one. */
const eventKeys = ['propose', 'observe', 'resolve'] as const;
/** The keys each kind of line may have: a misspelt key must not be skipped silently. */
const lineKeys: Readonly<Record<(typeof eventKeys)[number], readonly string[]>> = {
  propose: ['propose', 'expect'],
  observe: ['observe', 'expect'],
  resolve: ['resolve'],
};

function suggestKey(key: string, known: readonly string[]): string {
  const [closest] = closestNames(key, known);
  return closest === undefined ? '' : ` (did you mean "${closest}"?)`;
}

/**
 * Refuses keys outside `known`: a typo such as `"expected"` would otherwise turn an
 * expectation into nothing, and `--check` would pass without checking.
 */
function rejectUnknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  where: string,
  what: string,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    throw new CliError(
      `${where}: unknown key "${key}" in ${what}${suggestKey(key, known)}; known keys: ${known.join(', ')}`,
      2,
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readExpectation(value: unknown, where: string): Expectation {
  if (typeof value === 'string') {
    if (!decisions.has(value))
      throw new CliError(`${where}: "expect" must be allow, confirm, revise or reject`, 2);
    return { decision: value as Decision };
  }
  if (!isRecord(value)) throw new CliError(`${where}: "expect" must be a decision or an object`, 2);
  rejectUnknownKeys(value, ['decision', 'severity', 'code'], where, '"expect"');
  const { decision, severity, code } = value;
  if (decision !== undefined && (typeof decision !== 'string' || !decisions.has(decision))) {
    throw new CliError(`${where}: expect.decision must be allow, confirm, revise or reject`, 2);
  }
  if (severity !== undefined && severity !== 'soft' && severity !== 'hard') {
    throw new CliError(`${where}: expect.severity must be soft or hard`, 2);
  }
  if (
    code !== undefined &&
    (typeof code !== 'string' || !(reasonCodes as readonly string[]).includes(code))
  ) {
    throw new CliError(
      `${where}: expect.code '${String(code)}' is not a reason code (${reasonCodes.join(', ')})`,
      2,
    );
  }
  return {
    ...(decision !== undefined ? { decision: decision as Decision } : {}),
    ...(severity !== undefined ? { severity: severity as Severity } : {}),
    ...(code !== undefined ? { code: code as string } : {}),
  };
}

/** `{"ok": false}` (the observation must be refused) or `{"ok": true}` on an observe line. */
function readObservationExpectation(value: unknown, where: string): boolean {
  if (!isRecord(value)) {
    throw new CliError(`${where}: "expect" of an observation must be {"ok": true|false}`, 2);
  }
  rejectUnknownKeys(value, ['ok'], where, '"expect" of an observation');
  if (typeof value.ok !== 'boolean') {
    throw new CliError(`${where}: "expect" of an observation must be {"ok": true|false}`, 2);
  }
  return value.ok;
}

/** Parses a `.jsonl` trace; any malformed line is an input error naming the line. */
export function parseTrace(text: string, fileName: string): TraceEvent[] {
  const events: TraceEvent[] = [];
  // A byte-order mark (editors on Windows add one) is not part of the first event.
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  body.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const where = `${fileName}:${line}`;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new CliError(
        `${where}: invalid JSON: ${error instanceof Error ? error.message : String(error)}`,
        2,
      );
    }
    // JSON.parse keeps the last of two equal keys and rounds long numbers: a tool's parser
    // may do otherwise, so such a line is refused rather than checked as something else.
    const ambiguity = findJsonAmbiguity(raw);
    if (ambiguity) throw new CliError(`${where}:${ambiguity.column}: ${ambiguity.message}`, 2);
    if (!isRecord(value)) throw new CliError(`${where}: each line must be a JSON object`, 2);
    const kinds = eventKeys.filter((key) => Object.hasOwn(value, key));
    const [kind] = kinds;
    if (kinds.length > 1) {
      // Replaying one of them would silently drop the other.
      throw new CliError(
        `${where}: a line holds one event, but this one has ${kinds.map((key) => `"${key}"`).join(' and ')}`,
        2,
      );
    }
    if (kind === undefined) {
      const suggestion = Object.keys(value)
        .map((key) => ({ key, hint: suggestKey(key, eventKeys) }))
        .find((candidate) => candidate.hint !== '');
      throw new CliError(
        `${where}: expected one of "propose", "observe" or "resolve"${suggestion ? `; found "${suggestion.key}"${suggestion.hint}` : ''}`,
        2,
      );
    }
    rejectUnknownKeys(value, lineKeys[kind], where, `a "${kind}" line`);
    if (kind === 'propose') {
      events.push({
        kind: 'propose',
        line,
        proposal: value.propose,
        ...(value.expect !== undefined ? { expect: readExpectation(value.expect, where) } : {}),
      });
    } else if (kind === 'observe') {
      events.push({
        kind: 'observe',
        line,
        observation: value.observe,
        ...(value.expect !== undefined
          ? { expectOk: readObservationExpectation(value.expect, where) }
          : {}),
      });
    } else {
      const resolve = value.resolve;
      if (!isRecord(resolve) || typeof resolve.approved !== 'boolean') {
        throw new CliError(`${where}: "resolve" must be {"approved": true|false}`, 2);
      }
      rejectUnknownKeys(resolve, ['approved'], where, '"resolve"');
      events.push({ kind: 'resolve', line, approved: resolve.approved });
    }
  });
  return events;
}

/** What differs between a verdict and an expectation; empty when it matches. */
export function expectationMismatch(verdict: Verdict, expectation: Expectation): string[] {
  const problems: string[] = [];
  if (expectation.decision !== undefined && verdict.decision !== expectation.decision) {
    problems.push(`decision ${verdict.decision}, expected ${expectation.decision}`);
  }
  if (expectation.severity !== undefined && verdict.severity !== expectation.severity) {
    problems.push(`severity ${verdict.severity ?? 'none'}, expected ${expectation.severity}`);
  }
  // The first reason is the one that decided the verdict.
  const code = verdict.reasons[0]?.code;
  if (expectation.code !== undefined && code !== expectation.code) {
    problems.push(`code ${code ?? 'none'}, expected ${expectation.code}`);
  }
  return problems;
}

export function describeExpectation(expectation: Expectation): string {
  return [expectation.decision, expectation.severity, expectation.code]
    .filter((part) => part !== undefined)
    .join('/');
}
