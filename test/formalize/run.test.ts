import { describe, expect, it } from 'vitest';
import {
  type ChatModel,
  formalizeRunJson,
  Recording,
  runFormalize,
} from '../../src/formalize/index.js';
import {
  agree,
  fenced,
  now,
  restaurantInstruction,
  restaurantSchema,
  restaurantSpec,
} from './support/fixtures.js';

/** A model answering from a list, one reply per call. */
function scripted(id: string, replies: string[]): ChatModel {
  return {
    id,
    async generate() {
      return {
        text: replies.shift() ?? '',
        usage: { inputTokens: 10, outputTokens: 5 },
        model: id,
        retries: 0,
      };
    },
  };
}

describe('runFormalize', () => {
  it('records the run header and every exchange, and gives the spec file, its experience and the --json object', async () => {
    const schema = restaurantSchema();
    const recording = new Recording();
    const run = await runFormalize({
      instruction: `  ${restaurantInstruction}\n`,
      schema,
      model: scripted('test:encoder', [fenced(restaurantSpec)]),
      checker: scripted('test:checker', [agree]),
      now,
      timeZone: 'UTC',
      recording,
    });
    expect(run.result.ok).toBe(true);
    if (!run.result.ok) return;
    const [header, ...exchanges] = recording.entries;
    expect(header).toEqual({
      type: 'run',
      version: 1,
      instruction: restaurantInstruction,
      schema: schema.id,
      now,
      timeZone: 'UTC',
      model: 'test:encoder',
      options: { samples: 1, semanticCheck: true },
    });
    expect(exchanges.map((entry) => entry.type === 'chat' && entry.model)).toEqual([
      'test:encoder',
      'test:checker',
    ]);
    expect(run.specFile).toBe(`# ${restaurantInstruction}\n${run.result.value.text}`);
    // The spec file's own warnings (not the reply's `extracted-spec`), on the spec's lines.
    expect(run.warnings.map((warning) => warning.code)).toEqual(['no-observed-state']);
    expect(run.warnings[0]?.range?.start.line).toBeGreaterThan(1);
    expect(run.experience).toEqual({
      instruction: restaurantInstruction,
      schemaId: schema.id,
      spec: run.result.value.text,
      outcome: 'pending',
      model: 'test:encoder',
    });
    const json = formalizeRunJson(run, { schema: 'restaurant.json' });
    expect(json).toMatchObject({
      ok: true,
      spec: run.specFile,
      schema: 'restaurant.json',
      memory: null,
      specs: [{ votes: 1, samples: [1] }],
      samples: [{ sample: 1, ok: true, rounds: 0 }],
    });
    expect((json['attempts'] as { stage: string; round: number }[]).map((a) => a.stage)).toEqual([
      'encode',
      'check',
    ]);
  });

  it('writes the vote into the spec file, and keeps no experience of a failed run', async () => {
    const voted = await runFormalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: scripted('test:encoder', [fenced(restaurantSpec), fenced(restaurantSpec), 'no spec']),
      checker: false,
      samples: 3,
      quorum: 2,
      rounds: 0,
      concurrency: 1,
      now,
      timeZone: 'UTC',
    });
    expect(voted.specFile?.split('\n')[1]).toBe('# 2 of 3 samples gave this spec (1 failed)');

    const failed = await runFormalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: scripted('test:encoder', ['no spec']),
      checker: false,
      rounds: 0,
      now,
      timeZone: 'UTC',
    });
    expect(failed.result.ok).toBe(false);
    expect(failed.specFile).toBeUndefined();
    expect(failed.experience).toBeUndefined();
    expect(formalizeRunJson(failed, { schema: 's.json' })).toMatchObject({
      ok: false,
      failure: { code: 'invalid-spec' },
    });
  });
});
