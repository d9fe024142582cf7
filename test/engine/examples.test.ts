import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createSession, type Verdict } from '../../src/engine/index.js';
import { type Schema, unwrap } from '../../src/language/index.js';
import { loadStateSchema, loadToolSchema } from '../../src/schema/index.js';
import { readData } from '../support/project-data.js';
import { fixedNow, readShared, sharedRoot, specOf } from './fixtures.js';

/**
 * Replays every worked example at the clock the examples are written for and checks
 * each `expect` (FORMATS.md §3): a decision, or an object whose given fields must
 * match — `code` against the first, deciding reason. Two sets: the public test vectors
 * (shared/examples/*, whose schemas mark nothing observed) and the project's own
 * `examples/`, whose schemas mark the facts the app reports as observed, so that their
 * traces observe what the agent cannot claim.
 */

interface ExampleSet {
  readonly name: string;
  readonly root: URL;
  readonly schemas: Readonly<Record<string, () => Schema>>;
}

const projectRoot = new URL('../../', import.meta.url);
const readProject = (path: string) => readFileSync(new URL(path, projectRoot), 'utf8');

const sets: readonly ExampleSet[] = [
  {
    name: 'worked examples (shared test vectors)',
    root: sharedRoot,
    schemas: {
      restaurant: () => unwrap(loadStateSchema(readShared('examples/restaurant/states.json'))),
      clock: () =>
        unwrap(
          loadStateSchema(readShared('data/verisafe/predicates/com.google.android.deskclock.json')),
        ),
      'bank-transfer': () =>
        unwrap(loadToolSchema(readShared('examples/bank-transfer/tools.json'))),
      todoist: () => unwrap(loadToolSchema(readData('toolemu/toolkits.json'))),
    },
  },
  {
    name: "the project's examples/",
    root: projectRoot,
    schemas: {
      restaurant: () => unwrap(loadStateSchema(readProject('examples/restaurant/states.json'))),
      clock: () => unwrap(loadStateSchema(readProject('examples/clock/states.json'))),
      'bank-transfer': () =>
        unwrap(loadToolSchema(readProject('examples/bank-transfer/tools.json'))),
      todoist: () => unwrap(loadToolSchema(readProject('examples/todoist/toolkits.json'))),
      web: () => unwrap(loadStateSchema(readProject('examples/web/states.json'))),
    },
  },
];

type Expectation =
  | string
  | { readonly decision?: string; readonly severity?: string; readonly code?: string };

interface TraceEvent {
  readonly propose?: unknown;
  readonly observe?: unknown;
  readonly resolve?: { readonly approved: boolean };
  readonly expect?: Expectation;
}

function readTrace(root: URL, path: string): TraceEvent[] {
  return readFileSync(new URL(path, root), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TraceEvent);
}

/** The fields of a verdict an expectation compares. */
function observed(verdict: Verdict): { decision: string; severity?: string; code?: string } {
  return {
    decision: verdict.decision,
    ...(verdict.severity ? { severity: verdict.severity } : {}),
    ...(verdict.reasons[0] ? { code: verdict.reasons[0].code } : {}),
  };
}

function expected(expectation: Expectation): Record<string, string> {
  return typeof expectation === 'string' ? { decision: expectation } : { ...expectation };
}

describe.each(sets)('$name', ({ root, schemas }) => {
  // Spec examples hold a spec.intent; the adapters' runnable examples hold code only.
  const folders = readdirSync(new URL('examples/', root), { withFileTypes: true })
    .filter(
      (entry) =>
        entry.isDirectory() && existsSync(new URL(`examples/${entry.name}/spec.intent`, root)),
    )
    .map((entry) => entry.name)
    .sort();

  it('has a schema for every example folder', () => {
    expect(folders).toEqual(Object.keys(schemas).sort());
  });

  for (const folder of folders) {
    const traces = readdirSync(new URL(`examples/${folder}/`, root))
      .filter((name) => name.endsWith('.jsonl'))
      .sort();

    describe(folder, () => {
      const load = schemas[folder];
      if (!load) throw new Error(`no schema for example ${folder}`);
      const schema = load();
      const spec = specOf(
        readFileSync(new URL(`examples/${folder}/spec.intent`, root), 'utf8'),
        schema,
      );

      it('has traces', () => {
        expect(traces.length).toBeGreaterThan(0);
      });

      if (root === projectRoot) {
        it('checks without warnings: its schema marks what the app reports as observed', () => {
          expect(spec.warnings).toEqual([]);
        });
      }

      for (const trace of traces) {
        it(`replays ${trace}`, () => {
          const session = createSession(spec, { now: fixedNow });
          const events = readTrace(root, `examples/${folder}/${trace}`);
          let checked = 0;
          events.forEach((event, index) => {
            const where = `${folder}/${trace}:${index + 1}`;
            if (event.propose !== undefined) {
              const verdict = session.propose(event.propose);
              if (event.expect !== undefined) {
                const wanted = expected(event.expect);
                const actual = observed(verdict);
                const compared = Object.fromEntries(
                  Object.keys(wanted).map((key) => [key, actual[key as keyof typeof actual]]),
                );
                expect(compared, `${where}: ${verdict.feedback}`).toEqual(wanted);
                checked++;
              }
            } else if (event.observe !== undefined) {
              const result = session.observe(event.observe);
              expect(result.ok, `${where}: ${JSON.stringify(result.problems)}`).toBe(true);
            } else if (event.resolve !== undefined) {
              const result = session.resolve(event.resolve.approved);
              expect(result.ok, `${where}: ${result.message}`).toBe(true);
            } else {
              throw new Error(`${where}: unknown event ${JSON.stringify(event)}`);
            }
          });
          expect(checked).toBeGreaterThan(0);
        });
      }

      it('gives the same verdicts when replayed twice (determinism)', () => {
        const replay = () =>
          traces.map((trace) => {
            const session = createSession(spec, { now: fixedNow });
            return readTrace(root, `examples/${folder}/${trace}`).map((event) => {
              if (event.propose !== undefined) return session.propose(event.propose);
              if (event.observe !== undefined) return session.observe(event.observe);
              return session.resolve(event.resolve?.approved === true);
            });
          });
        expect(JSON.stringify(replay())).toBe(JSON.stringify(replay()));
      });
    });
  }
});
