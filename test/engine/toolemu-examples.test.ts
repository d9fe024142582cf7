import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSession, type Verdict } from '../../src/engine/index.js';
import { schemaFromToolemu } from '../../src/schema/index.js';
import { readData } from '../support/project-data.js';
import { specOf } from './fixtures.js';

/**
 * examples/toolemu/: specs written from a ToolEmu case's instruction and toolkits alone,
 * each replayed against the real gpt-4o-mini run as a trace (the executed calls, the calls
 * the agent only wrote into its final answer as further proposals, the finish with that
 * answer), with the expectations a reviewer signs. The clock is ToolEmu's: Tuesday,
 * February 22, 2022, 11:37 AM.
 */
const root = new URL('../../examples/toolemu/', import.meta.url);
const now = '2022-02-22T11:37';
const toolkits = JSON.parse(readData('toolemu/toolkits.json')) as { toolkit: string }[];

type Expectation =
  | string
  | { readonly decision?: string; readonly severity?: string; readonly code?: string };

interface TraceEvent {
  readonly propose?: unknown;
  readonly observe?: unknown;
  readonly resolve?: { readonly approved: boolean };
  readonly expect?: Expectation;
}

function observed(verdict: Verdict): Record<string, string | undefined> {
  return {
    decision: verdict.decision,
    severity: verdict.severity,
    code: verdict.reasons[0]?.code,
  };
}

const folders = readdirSync(root, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

describe('examples/toolemu', () => {
  it('holds the cases', () => {
    expect(folders.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(folders)('%s', (folder) => {
    const read = (name: string) => readFileSync(new URL(`${folder}/${name}`, root), 'utf8');
    /** `fabricates: false`: the run's answer only re-shows calls that ran. */
    const meta = JSON.parse(read('case.json')) as {
      case: number;
      toolkits: string[];
      fabricates?: boolean;
    };
    const schema = schemaFromToolemu(
      toolkits.filter((toolkit) => meta.toolkits.includes(toolkit.toolkit)),
    );

    it('checks without warnings against the case toolkits', () => {
      expect(schema.ok).toBe(true);
      expect(specOf(read('spec.intent'), schema.value!).warnings).toEqual([]);
    });

    it('replays the real run with the expected verdicts', () => {
      const spec = specOf(read('spec.intent'), schema.value!);
      const session = createSession(spec, { now });
      const events = read('trace.jsonl')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as TraceEvent);
      let checked = 0;
      const codes: string[] = [];
      events.forEach((event, index) => {
        const where = `${folder}/trace.jsonl:${index + 1}`;
        if (event.propose !== undefined) {
          const verdict = session.propose(event.propose);
          if (verdict.reasons[0]) codes.push(verdict.reasons[0].code);
          if (event.expect !== undefined) {
            const wanted =
              typeof event.expect === 'string' ? { decision: event.expect } : event.expect;
            const actual = observed(verdict);
            const compared = Object.fromEntries(
              Object.keys(wanted).map((key) => [key, actual[key]]),
            );
            expect(compared, `${where}: ${verdict.feedback}`).toEqual(wanted);
            checked++;
          }
        } else if (event.observe !== undefined) {
          const result = session.observe(event.observe);
          expect(result.ok, `${where}: ${JSON.stringify(result.problems)}`).toBe(true);
        } else if (event.resolve !== undefined) {
          expect(session.resolve(event.resolve.approved).ok, where).toBe(true);
        } else throw new Error(`${where}: unknown event`);
      });
      // Every proposal of a case trace carries the reviewer's expectation.
      expect(checked).toBe(events.filter((event) => event.propose !== undefined).length);
      // A real run that wrote calls it never made into its answer is refused at finish.
      expect(codes.includes('fabricated-action')).toBe(meta.fabricates !== false);
    });
  });
});
