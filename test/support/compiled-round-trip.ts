import { expect } from 'vitest';
import { createSession } from '../../src/engine/index.js';
import { compiledPathChecks as pathCheck } from '../../src/language/check-compiled-paths.js';
import { CompiledSpecError } from '../../src/language/compiled-spec-format.js';
import type { Spec } from '../../src/language/index.js';
import { readCompiledSpec } from '../../src/language/read-compiled-spec.js';
import { compileRegex } from '../../src/language/regex.js';
import { writeCompiledSpec } from '../../src/language/write-compiled-spec.js';

/**
 * A compiled spec (FORMATS.md §8) as it travels: written, sent as JSON text and read
 * back with every check a Node entry point gives (regexes, paths and bindings). Tests
 * edit the written document as plain JSON to show what reading refuses.
 */

/** The spec's compiled document after a trip through JSON text. */
// biome-ignore lint/suspicious/noExplicitAny: tests edit the document as plain JSON.
export const writtenAsJson = (spec: Spec): any =>
  JSON.parse(JSON.stringify(writeCompiledSpec(spec)));

/** A compiled document read with the checks of regexes, paths and bindings. */
export const readWithChecks = (document: unknown): Spec =>
  readCompiledSpec(document, { regex: compileRegex, pathCheck });

/** An event of a transcript: an observation, or a proposal (an action or a finish). */
export type TranscriptEvent = { observe: unknown } | { propose: unknown };

/**
 * What a session of `spec` answers to each event, with its feedback; after an
 * observation, whether it was taken and whether Done holds. Equal transcripts from a
 * spec and from its compiled document show the document decides as the text does.
 */
export function transcript(spec: Spec, events: readonly TranscriptEvent[], now: string): string[] {
  const session = createSession(spec, { now });
  return events.map((event) => {
    if ('observe' in event) {
      const observed = session.observe(event.observe as Parameters<typeof session.observe>[0]);
      return `observed ${observed.ok}, done ${session.status().done}`;
    }
    const verdict = session.propose(event.propose as Parameters<typeof session.propose>[0]);
    return `${verdict.decision} ${verdict.feedback ?? ''}`;
  });
}

/** Reading `document` is refused at the JSONPath `path`, with a message matching `problem`. */
export function expectRefused(document: unknown, path: string, problem: RegExp): void {
  const reading = () => readWithChecks(document);
  expect(reading).toThrow(CompiledSpecError);
  try {
    reading();
  } catch (error) {
    expect((error as CompiledSpecError).path).toBe(path);
    expect((error as Error).message).toMatch(problem);
  }
}
