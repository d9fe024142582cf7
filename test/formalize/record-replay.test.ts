import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  formalize,
  ModelError,
  Recording,
  recordingChatModel,
  recordingEmbeddingModel,
  replayChatModel,
  replayEmbeddingModel,
} from '../../src/formalize/index.js';
import { type FakeLlmServer, startFakeLlmServer } from './support/fake-llm-server.js';
import {
  agree,
  disagree,
  fenced,
  now,
  restaurantInstruction,
  restaurantSchema,
  restaurantSpec,
  serverModel,
} from './support/fixtures.js';

let server: FakeLlmServer;

beforeEach(async () => {
  server = await startFakeLlmServer();
});

afterEach(async () => {
  await server.close();
});

const misspelled = restaurantSpec.replace('ReserveResult', 'ReserveResults');

async function recordedRun(): Promise<{ recording: Recording; text: string }> {
  server.script(
    'encode',
    fenced(misspelled),
    fenced(restaurantSpec.replace('time < 19:00', 'time <= 19:00')),
    fenced(restaurantSpec),
  );
  server.script('check', disagree('before 7 PM, not at 7 PM'), agree);
  const recording = new Recording();
  const result = await formalize({
    instruction: restaurantInstruction,
    schema: restaurantSchema(),
    model: recordingChatModel(serverModel(server), recording),
    now,
    samples: 1,
  });
  expect(result.ok).toBe(true);
  return { recording, text: result.ok ? result.value.text : '' };
}

describe('record and replay', () => {
  it('records every exchange as JSON lines and replays the run without the network', async () => {
    const { recording, text } = await recordedRun();
    const jsonl = recording.toJsonl();
    const lines = jsonl
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; request: { purpose: string } });
    expect(lines.map((line) => line.request.purpose)).toEqual([
      'encode',
      'encode',
      'check',
      'encode',
      'check',
    ]);
    expect(lines[0]).toMatchObject({
      type: 'chat',
      model: 'openai:gpt-4o',
      response: { usage: { inputTokens: 1000, outputTokens: 100 } },
    });
    const requestsBefore = server.requests.length;

    const replayed = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: replayChatModel(Recording.parse(jsonl)),
      now,
    });
    expect(server.requests.length).toBe(requestsBefore);
    expect(replayed.ok).toBe(true);
    if (!replayed.ok) return;
    expect(replayed.value.text).toBe(text);
    expect(
      replayed.report.attempts.map((attempt) => `${attempt.stage}:${attempt.outcome}`),
    ).toEqual(['encode:invalid', 'encode:valid', 'check:disagree', 'encode:valid', 'check:agree']);
    // The recorded model answered: costs are those of the recorded run.
    expect(replayed.report.attempts[0]?.model).toBe('openai:gpt-4o');
  });

  it('misses (fails closed) when the prompt differs from the recorded one', async () => {
    const { recording } = await recordedRun();
    const replayed = await formalize({
      instruction: restaurantInstruction,
      schema: restaurantSchema(),
      model: replayChatModel(recording),
      now: '2025-03-15T12:00',
    });
    expect(replayed.ok).toBe(false);
    if (replayed.ok) return;
    expect(replayed.failure.code).toBe('model-error');
    expect(replayed.failure.message).toContain(
      'the recording holds no encode exchange for sample 1',
    );
  });

  it('records failed calls and replays them as the same failure', async () => {
    server.script('encode', { status: 401, body: { error: { message: 'bad key' } } });
    const recording = new Recording();
    const model = recordingChatModel(serverModel(server), recording);
    await expect(
      model.generate({
        system: 'You are the intent encoder',
        messages: [{ role: 'user', content: 'x' }],
        purpose: 'encode',
        sample: 0,
      }),
    ).rejects.toThrow(/401/);
    const replay = replayChatModel(Recording.parse(recording.toJsonl()));
    const error = await replay
      .generate({
        system: 'You are the intent encoder',
        messages: [{ role: 'user', content: 'x' }],
        purpose: 'encode',
        sample: 0,
      })
      .catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && error.status).toBe(401);
    expect((error as Error).message).toContain('(replayed)');
  });

  it('replays embeddings', async () => {
    const recording = new Recording();
    const model = recordingEmbeddingModel(
      {
        id: 'fake:embed',
        embed: async (texts) => ({ embeddings: texts.map((text) => [text.length, 1]), tokens: 7 }),
      },
      recording,
    );
    await model.embed(['ab', 'abc']);
    const replay = replayEmbeddingModel(Recording.parse(recording.toJsonl()));
    expect(await replay.embed(['ab', 'abc'])).toEqual({
      embeddings: [
        [2, 1],
        [3, 1],
      ],
      tokens: 7,
    });
    await expect(replay.embed(['ab', 'abc'])).rejects.toThrow(/no embedding request/);
  });

  it('names the line of a malformed recording', () => {
    expect(() =>
      Recording.parse(
        '{"type":"chat","request":{"system":"s","messages":[]},"response":{"text":"x"}}\nnot json\n',
      ),
    ).toThrow(/line 2 is not JSON/);
    expect(() => Recording.parse('{"type":"mystery"}')).toThrow(
      /line 1: unknown entry type "mystery"/,
    );
    expect(() => Recording.parse('{"type":"chat","request":{"system":"s","messages":[]}}')).toThrow(
      /a response or an error/,
    );
  });
});
