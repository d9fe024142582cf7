import { describe, expect, it } from 'vitest';
import { Recording } from '../formalize/model/recording.js';
import { loadToolSchema } from '../schema/index.js';
import {
  keepEarlierExchanges,
  readResumedResults,
  runResumableEvaluation,
} from './resumable-run.js';
import type { CaseSpec, SpecProvider } from './run.js';
import { noLlmUsage } from './score.js';
import type { EvalCase, EvalResults } from './types.js';

const schema = (() => {
  const loaded = loadToolSchema({
    tools: [{ name: 'ReadThing', inputSchema: { type: 'object', properties: {} } }],
  });
  if (!loaded.ok) throw new Error('schema');
  return loaded.value;
})();

const evalCase = (index: number): EvalCase => ({
  id: `case-${index}`,
  index,
  instruction: 'read the thing',
  schema,
  schemaName: 'things',
  risk: 'safe',
  level: 'safe',
  steps: [],
  now: '2025-01-01T12:00',
  timeZone: 'UTC',
});

const cases = [0, 1, 2, 3].map((index) => () => evalCase(index));

const header: Omit<EvalResults, 'cases' | 'summary'> = {
  version: 1,
  benchmark: 'dataset',
  source: 'things.jsonl',
  model: 'test:model',
  options: { samples: 1 },
};

/** A provider whose spec fails with `code` for the cases in `failing`, else `invalid-spec`. */
function provider(failing: ReadonlySet<number>, asked: number[]): SpecProvider {
  return async (item): Promise<CaseSpec> => {
    asked.push(item.index);
    const code = failing.has(item.index) ? 'model-error' : 'invalid-spec';
    return { source: 'formalized', failure: { code, message: `${code} here` }, llm: noLlmUsage };
  };
}

function files() {
  const written = new Map<string, string>();
  return {
    written,
    writeFile: async (path: string, text: string) => {
      written.set(path, text);
    },
    readFile: async (path: string) => {
      const text = written.get(path);
      if (text === undefined) throw new Error('ENOENT');
      return text;
    },
  };
}

describe('a resumable evaluation', () => {
  it('saves after every case, stops at the first case the model failed, and resumes from what it saved', async () => {
    const disk = files();
    const asked: number[] = [];
    const recording = new Recording();
    const stopped = await runResumableEvaluation(cases, provider(new Set([2]), asked), header, {
      resultsPath: 'out/results.json',
      recording: { value: recording, path: 'run.jsonl' },
      writeFile: disk.writeFile,
    });
    expect(stopped.ok).toBe(false);
    if (stopped.ok) return;
    expect(stopped.stoppedAt?.index).toBe(2);
    expect(stopped.kept).toBe(2);
    expect(asked).toEqual([0, 1, 2]);
    expect(disk.written.get('run.jsonl')).toBe('');
    const saved = JSON.parse(disk.written.get('out/results.json') ?? '{}') as EvalResults;
    expect(saved.cases.map((result) => result.index)).toEqual([0, 1, 2]);

    const done = await readResumedResults(disk.readFile, 'out/results.json', header);
    expect(done.map((result) => result.id)).toEqual(['case-0', 'case-1', 'case-2']);
    const resumedAsked: number[] = [];
    const resumed = await runResumableEvaluation(cases, provider(new Set(), resumedAsked), header, {
      done,
      resultsPath: 'out/results.json',
      writeFile: disk.writeFile,
    });
    // The model's failure runs again; the cases that ended are kept.
    expect(resumedAsked).toEqual([2, 3]);
    expect(resumed.ok && resumed.results.cases.map((result) => result.spec.failure?.code)).toEqual([
      'invalid-spec',
      'invalid-spec',
      'invalid-spec',
      'invalid-spec',
    ]);
  });

  it('has nothing to resume without a results file, and refuses one of another run', async () => {
    const disk = files();
    expect(await readResumedResults(disk.readFile, 'out/results.json', header)).toEqual([]);
    await disk.writeFile(
      'out/results.json',
      JSON.stringify({ ...header, model: 'other:model', cases: [] }),
    );
    await expect(readResumedResults(disk.readFile, 'out/results.json', header)).rejects.toThrow(
      /model "other:model"/,
    );
  });

  it('keeps the earlier exchanges that did not fail, without their run header', () => {
    const request = { purpose: 'encode' as const, sample: 0, system: 's', messages: [] };
    const earlier = new Recording();
    earlier.add({
      type: 'run',
      version: 1,
      instruction: 'i',
      schema: 's',
      now: '2025-01-01T12:00',
      timeZone: 'UTC',
      model: 'm',
    });
    const answered = {
      type: 'chat' as const,
      model: 'm',
      request,
      response: { text: 'ok', usage: { inputTokens: 1, outputTokens: 1 }, model: 'm', retries: 0 },
      latencyMs: 1,
    };
    earlier.add(answered);
    earlier.add({
      type: 'chat',
      model: 'm',
      request,
      error: { code: 'timeout', message: 'late' },
      latencyMs: 1,
    });
    const recording = new Recording();
    keepEarlierExchanges(recording, earlier);
    expect(recording.entries).toEqual([answered]);
  });
});
