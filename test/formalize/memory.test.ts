import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSession, lexicalSimilarity } from '../../src/engine/index.js';
import {
  createEmbeddingModel,
  createEmbeddingSimilarity,
  type ExperienceSource,
  formalize,
  textsInSpec,
} from '../../src/formalize/index.js';
import { lexicalRecallSimilarity, stemWord } from '../../src/formalize/pipeline/recall.js';
import { checkSpec } from '../../src/language/index.js';
import { ExperienceMemory } from '../../src/store/index.js';
import { type FakeLlmServer, startFakeLlmServer } from './support/fake-llm-server.js';
import {
  fenced,
  now,
  serverModel,
  stateSchema,
  testEnv,
  toolemuSchema,
} from './support/fixtures.js';

let server: FakeLlmServer;
let directory: string;
let memory: ExperienceMemory;

beforeEach(async () => {
  server = await startFakeLlmServer();
  directory = mkdtempSync(join(tmpdir(), 'intentguard-formalize-memory-'));
  memory = ExperienceMemory.open(join(directory, 'memory.db'));
});

afterEach(async () => {
  memory.close();
  rmSync(directory, { recursive: true, force: true });
  await server.close();
});

const dropboxSpec = [
  'DropboxListFilesAndFolders() -> Listed',
  '@confirm(privacy, "Sharing exposes the file; the user approves")',
  'Listed & DropboxShareItem(recipient_email = "bob@example.com") -> Shared',
  'Shared -> Done',
].join('\n');

describe('experience memory primes the prompt (warm mode)', () => {
  it('shows remembered successful specs and ranks their predicates in, from a real SQLite file', async () => {
    const schema = toolemuSchema();
    expect(checkSpec(dropboxSpec, schema).ok).toBe(true);
    const remembered = memory.record({
      instruction: 'Give my colleague Bob the quarterly report',
      schemaId: schema.id,
      spec: dropboxSpec,
      outcome: 'success',
    });
    // Failures and other schemas are not shown.
    memory.record({
      instruction: 'Give Bob the report',
      schemaId: schema.id,
      spec: 'Broken() -> Done',
      outcome: 'failure',
    });
    memory.record({
      instruction: 'Give Bob the report',
      schemaId: 'other',
      spec: dropboxSpec,
      outcome: 'success',
    });

    server.script('encode', fenced(dropboxSpec));
    // "report" and "colleague" share no word with the Dropbox tools: only memory brings them in.
    const result = await formalize({
      instruction: 'Give my colleague Alice the annual report',
      schema,
      model: serverModel(server),
      checker: false,
      // The scripted reply stands for any reply: recall is tested, not its values.
      grounding: false,
      mode: 'direct',
      memory,
      now,
    });
    expect(result.ok).toBe(true);
    expect(result.report.prompt.experiences).toEqual([remembered.id]);
    expect(result.report.prompt.predicates).toContain('DropboxShareItem');
    expect(result.report.prompt.predicates).toContain('DropboxListFilesAndFolders');
    const prompt = server.of('encode')[0]?.messages[0]?.content ?? '';
    expect(prompt).toContain('Specs that worked for similar instructions on this schema:');
    expect(prompt).toContain(
      '<remembered-instruction>\nGive my colleague Bob the quarterly report\n</remembered-instruction>',
    );
    expect(prompt).toContain(
      'Listed & DropboxShareItem(recipient_email = "bob@example.com") -> Shared',
    );
    expect(prompt).not.toContain('Broken()');
  });

  it('skips remembered specs that no longer check against the schema', async () => {
    const schema = toolemuSchema(['Dropbox']);
    memory.record({
      instruction: 'Share the report with Bob',
      schemaId: schema.id,
      spec: 'RemovedTool() -> Done',
      outcome: 'success',
    });
    server.script('encode', fenced(dropboxSpec));
    const result = await formalize({
      instruction: 'Share the report with Bob',
      schema,
      model: serverModel(server),
      checker: false,
      // The scripted reply stands for any reply: recall is tested, not its values.
      grounding: false,
      mode: 'direct',
      memory,
      now,
    });
    expect(result.ok).toBe(true);
    expect(result.report.prompt.experiences).toEqual([]);
    expect(server.of('encode')[0]?.messages[0]?.content).not.toContain('RemovedTool');
  });

  it('works cold when memory fails', async () => {
    const broken: ExperienceSource = {
      search: () => {
        throw new Error('disk on fire');
      },
    };
    server.script('encode', fenced(dropboxSpec));
    const result = await formalize({
      instruction: 'Share the report with Bob',
      schema: toolemuSchema(['Dropbox']),
      model: serverModel(server),
      checker: false,
      // The scripted reply stands for any reply: recall is tested, not its values.
      grounding: false,
      mode: 'direct',
      memory: broken,
      now,
    });
    expect(result.ok).toBe(true);
  });
});

describe('embedding similarity for ~', () => {
  const schema = toolemuSchema(['Todoist']);
  const similarSpec = checkSpec(
    'TodoistSearchTasks(keywords ~ "quarterly budget review") -> Found\nFound -> Done',
    schema,
  );

  it('prepares embeddings through the embeddings endpoint, caches them in SQLite and answers synchronously', async () => {
    expect(similarSpec.ok).toBe(true);
    if (!similarSpec.ok) return;
    // The fake model knows that budgets are finance: no shared word needed.
    server.embed = (text) => (/budget|finance/i.test(text) ? [1, 0.1] : [0.1, 1]);
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      env: testEnv,
      baseUrl: server.url,
      retry: false,
    });
    const similarity = createEmbeddingSimilarity({ model, cache: memory });
    const texts = [...textsInSpec(similarSpec.value), 'finance meeting notes'];
    expect(textsInSpec(similarSpec.value)).toEqual(['quarterly budget review']);
    expect(await similarity.prepare(texts)).toEqual({ embedded: 2 });
    const embeddingRequests = server.requests.filter((request) =>
      request.path.endsWith('/embeddings'),
    );
    expect(embeddingRequests).toHaveLength(1);
    expect(embeddingRequests[0]?.body).toMatchObject({
      model: 'text-embedding-3-small',
      input: texts,
    });
    expect(similarity.similarity('quarterly budget review', 'finance meeting notes')).toBeCloseTo(
      1,
      5,
    );
    expect(lexicalSimilarity('quarterly budget review', 'finance meeting notes')).toBeLessThan(0.5);
    // Not prepared: the lexical measure answers.
    expect(similarity.similarity('quarterly budget review', 'quarterly budget reviews')).toBe(
      lexicalSimilarity('quarterly budget review', 'quarterly budget reviews'),
    );

    // A second process with the same memory file needs no request.
    const again = createEmbeddingSimilarity({ model, cache: memory });
    expect(await again.prepare(texts)).toEqual({ embedded: 0 });
    expect(server.requests.filter((request) => request.path.endsWith('/embeddings'))).toHaveLength(
      1,
    );
    expect(again.has('quarterly budget review')).toBe(true);

    const session = createSession(similarSpec.value, { now, similarity: again.similarity });
    const verdict = session.propose({
      action: { name: 'TodoistSearchTasks', args: { keywords: 'finance meeting notes' } },
    });
    expect(verdict.decision).toBe('allow');
    expect(verdict.performs).toEqual(['Found']);
    // Lexically the same proposal is no match.
    const lexical = createSession(similarSpec.value, { now });
    expect(
      lexical.propose({
        action: { name: 'TodoistSearchTasks', args: { keywords: 'finance meeting notes' } },
      }).decision,
    ).toBe('revise');
  });

  it('falls back to the lexical measure for uncached texts and when the server is down', async () => {
    await server.close();
    const model = createEmbeddingModel('openai:text-embedding-3-small', {
      env: testEnv,
      baseUrl: server.url,
      retry: false,
    });
    const similarity = createEmbeddingSimilarity({ model, fallback: () => 0.42 });
    const prepared = await similarity.prepare(['a', 'b']);
    expect(prepared.embedded).toBe(0);
    expect(prepared.error).toContain('cannot reach');
    expect(similarity.similarity('a', 'b')).toBe(0.42);
  });
});

describe('recall by meaning', () => {
  const deskclock = () =>
    stateSchema('data/verisafe/predicates/com.google.android.deskclock.json', 'deskclock');
  const alarmSpec = [
    'SelectedTab(selected_tab = Alarm) & AlarmTimeSelection(selected_hour = 9, selected_minute = 0, selected_period = AM) -> SetAlarm',
    'SetAlarm & AlarmDetails(alarm_time = 09:00, alarm_active = true) -> Done',
  ].join('\n');
  const stopwatchSpec = 'SelectedTab(selected_tab = Stopwatch) -> Opened\nOpened -> Done';

  function remember(instruction: string, spec: string) {
    return memory.record({ instruction, schemaId: 'deskclock', spec, outcome: 'success' });
  }

  it('stems words, so inflected forms match where a search by exact words finds nothing', async () => {
    expect(stemWord('setting')).toBe('set');
    expect(stemWord('alarms')).toBe('alarm');
    expect(stemWord('replies')).toBe('reply');
    expect(lexicalRecallSimilarity('Setting alarms daily', 'Set an alarm for 9am')).toBeGreaterThan(
      0.5,
    );
    expect(lexicalRecallSimilarity('Start the stopwatch', 'Set an alarm for 9am')).toBe(0);

    // A store whose own search matches exact words only still recalls by stems.
    const entries = [
      { id: 1, instruction: 'Start the stopwatch', schemaId: 'deskclock', spec: stopwatchSpec },
      { id: 2, instruction: 'Set an alarm for 9am', schemaId: 'deskclock', spec: alarmSpec },
    ].map((entry) => ({ ...entry, outcome: 'success' as const }));
    const exactWords: ExperienceSource = {
      search: (instruction) =>
        entries.filter((entry) =>
          instruction.split(' ').some((word) => entry.instruction.split(' ').includes(word)),
        ),
      list: () => entries,
    };
    expect(
      await exactWords.search('Setting alarms daily', { schemaId: 'deskclock', limit: 5 }),
    ).toEqual([]);
    server.script('encode', fenced(alarmSpec));
    const result = await formalize({
      instruction: 'Setting alarms daily',
      schema: deskclock(),
      model: serverModel(server),
      checker: false,
      // The scripted reply stands for any reply: recall is tested, not its values.
      grounding: false,
      memory: exactWords,
      now,
    });
    expect(result.ok).toBe(true);
    expect(result.report.prompt.experiences).toEqual([2]);
    expect(server.of('encode')[0]?.messages[0]?.content).toContain(
      '<remembered-instruction>\nSet an alarm for 9am\n</remembered-instruction>',
    );
  });

  it('ranks by embeddings when a model is configured: no shared word needed', async () => {
    // The fake embedding model knows that waking up is about alarms.
    server.embed = (text) => (/wake|alarm/i.test(text) ? [1, 0.1, 0] : [0, 0.1, 1]);
    const alarm = remember('Set an alarm for 9am', alarmSpec);
    remember('Start the stopwatch', stopwatchSpec);
    server.script('encode', fenced(alarmSpec));
    const result = await formalize({
      instruction: 'Wake me up at 6',
      schema: deskclock(),
      model: serverModel(server),
      checker: false,
      // The scripted reply stands for any reply: recall is tested, not its values.
      grounding: false,
      memory,
      memoryEmbeddings: createEmbeddingModel('openai:text-embedding-3-small', {
        env: testEnv,
        baseUrl: server.url,
        retry: false,
      }),
      now,
    });
    expect(result.ok).toBe(true);
    expect(result.report.prompt.experiences).toEqual([alarm.id]);
    const embedded = server.requests.filter((request) => request.path.endsWith('/embeddings'));
    expect(embedded).toHaveLength(1);
    expect(embedded[0]?.body['input']).toEqual([
      'Wake me up at 6',
      'Start the stopwatch',
      'Set an alarm for 9am',
    ]);
  });

  it('falls back to the lexical measure when the embedding model fails', async () => {
    const alarm = remember('Set an alarm for 9am', alarmSpec);
    server.script('encode', fenced(alarmSpec));
    const result = await formalize({
      instruction: 'Setting alarms daily',
      schema: deskclock(),
      model: serverModel(server),
      checker: false,
      // The scripted reply stands for any reply: recall is tested, not its values.
      grounding: false,
      memory,
      memoryEmbeddings: createEmbeddingModel('openai:text-embedding-3-small', {
        env: testEnv,
        baseUrl: 'http://127.0.0.1:9/v1',
        retry: false,
      }),
      now,
    });
    expect(result.ok).toBe(true);
    expect(result.report.prompt.experiences).toEqual([alarm.id]);
  });
});
