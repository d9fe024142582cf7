import type { Decision, Severity, Verdict } from '../engine/index.js';
import { reasonCodes } from '../engine/index.js';
import { CliError } from './io.js';

/** One event of a trace file (FORMATS.md §3). */
export type TraceEvent =
  | {
      readonly kind: 'propose';
      readonly line: number;
      readonly proposal: unknown;
      readonly expect?: Expectation;
    }
  | { readonly kind: 'observe'; readonly line: number; readonly observation: unknown }
  | { readonly kind: 'resolve'; readonly line: number; readonly approved: boolean };

export interface Expectation {
  readonly decision?: Decision;
  readonly severity?: Severity;
  readonly code?: string;
}

const decisions = new Set(['allow', 'confirm', 'revise', 'reject']);

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
    if (!isRecord(value)) throw new CliError(`${where}: each line must be a JSON object`, 2);
    if ('propose' in value) {
      events.push({
        kind: 'propose',
        line,
        proposal: value.propose,
        ...(value.expect !== undefined ? { expect: readExpectation(value.expect, where) } : {}),
      });
    } else if ('observe' in value) {
      events.push({ kind: 'observe', line, observation: value.observe });
    } else if ('resolve' in value) {
      const resolve = value.resolve;
      if (!isRecord(resolve) || typeof resolve.approved !== 'boolean') {
        throw new CliError(`${where}: "resolve" must be {"approved": true|false}`, 2);
      }
      events.push({ kind: 'resolve', line, approved: resolve.approved });
    } else {
      throw new CliError(`${where}: expected one of "propose", "observe" or "resolve"`, 2);
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
