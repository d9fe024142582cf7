import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ExperienceMemory, MemoryError } from './experience-memory.js';
import { ftsQuery } from './fts-query.js';

let directory: string;
let path: string;
const opened: ExperienceMemory[] = [];

function open(options: Parameters<typeof ExperienceMemory.open>[1] = {}): ExperienceMemory {
  const memory = ExperienceMemory.open(path, options);
  opened.push(memory);
  return memory;
}

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'intentguard-memory-'));
  path = join(directory, 'memory.db');
});

afterEach(() => {
  for (const memory of opened.splice(0)) memory.close();
  rmSync(directory, { recursive: true, force: true });
});

const spec =
  'TodoistSearchTasks(keywords contains "Test") -> Found\nFound & TodoistDeleteTask() -> Deleted\nDeleted -> Done\n';

describe('ExperienceMemory', () => {
  it('records entries in a file that outlives the connection, and records outcomes', () => {
    const memory = open({ now: () => new Date('2025-03-14T12:00:00Z') });
    const entry = memory.record({
      instruction: 'Delete my test tasks',
      schemaId: 'todoist',
      spec,
      model: 'openai:gpt-4o',
    });
    expect(entry).toMatchObject({
      id: 1,
      outcome: 'pending',
      schemaId: 'todoist',
      model: 'openai:gpt-4o',
      createdAt: '2025-03-14T12:00:00.000Z',
    });
    memory.close();

    const again = open();
    expect(again.get(entry.id)?.spec).toBe(spec);
    expect(again.setOutcome(entry.id, 'success', 'all test tasks gone')).toMatchObject({
      outcome: 'success',
      note: 'all test tasks gone',
    });
    expect(again.setOutcome(999, 'failure')).toBeUndefined();
    expect(again.count()).toBe(1);
  });

  it('finds similar instructions by full-text search, filtered by schema and outcome, best match first', () => {
    const memory = open();
    const a = memory.record({
      instruction: 'Delete all tasks with the keyword Test',
      schemaId: 'todoist',
      spec,
      outcome: 'success',
    });
    const b = memory.record({
      instruction: 'Create a task to buy milk',
      schemaId: 'todoist',
      spec,
      outcome: 'success',
    });
    memory.record({
      instruction: 'Delete all tasks named Test',
      schemaId: 'todoist',
      spec,
      outcome: 'failure',
    });
    memory.record({
      instruction: 'Delete the test emails',
      schemaId: 'gmail',
      spec,
      outcome: 'success',
    });

    const found = memory.search('Please delete every Test task in Todoist', {
      schemaId: 'todoist',
      outcome: 'success',
    });
    expect(found.map((entry) => entry.id)).toEqual([a.id, b.id]);
    expect(
      memory
        .search('Please delete every Test task', { schemaId: 'gmail' })
        .map((entry) => entry.schemaId),
    ).toEqual(['gmail']);
    expect(memory.search('café crème', {})).toEqual([]);
    expect(memory.search('!!! ??? ...', {})).toEqual([]);
    expect(memory.search('delete', { limit: 1 })).toHaveLength(1);
  });

  it('matches accented and unaccented words alike', () => {
    const memory = open();
    memory.record({
      instruction: 'Réserve le café Crème',
      schemaId: 'maps',
      spec,
      outcome: 'success',
    });
    expect(memory.search('reserve cafe', { schemaId: 'maps' })).toHaveLength(1);
  });

  it('treats hostile instructions as words, never as FTS5 or SQL syntax', () => {
    const memory = open();
    memory.record({
      instruction: 'Delete the Test tasks',
      schemaId: 'todoist',
      spec,
      outcome: 'success',
    });
    const hostile = [
      'delete" OR instruction:* OR "',
      "'; DROP TABLE experiences; --",
      'NEAR(delete test, 0)',
      'instruction:delete AND NOT test*',
      '^delete ( ) { } [ ] " * : + -',
      'a'.repeat(100_000),
      '\u0000delete\u202e',
    ];
    for (const text of hostile) {
      expect(() => memory.search(text, { schemaId: 'todoist' }), text.slice(0, 40)).not.toThrow();
    }
    expect(memory.search("'; DROP TABLE experiences; --", {})).toEqual([]);
    expect(memory.search('NEAR(delete test, 0)', {})).toHaveLength(1);
    expect(memory.count()).toBe(1);
    // A stored hostile instruction is data too.
    const stored = memory.record({
      instruction: "x' OR 1=1; DROP TABLE meta; --",
      schemaId: 'todoist',
      spec,
    });
    expect(memory.get(stored.id)?.instruction).toBe("x' OR 1=1; DROP TABLE meta; --");
  });

  it('builds FTS5 queries of quoted words only, bounded in number', () => {
    expect(ftsQuery('Delete "Test" NEAR(x) col:*')).toBe(
      '"delete" OR "test" OR "near" OR "x" OR "col"',
    );
    expect(ftsQuery('... ***')).toBeUndefined();
    expect(
      ftsQuery(Array.from({ length: 100 }, (_, index) => `w${index}`).join(' '), 32)?.split(' OR '),
    ).toHaveLength(32);
  });

  it('refuses oversized and invalid input with a MemoryError', () => {
    const memory = open({ limits: { maxInstructionLength: 20, maxSpecLength: 200 } });
    expect(() => memory.record({ instruction: 'x'.repeat(21), schemaId: 's', spec })).toThrow(
      MemoryError,
    );
    expect(() =>
      memory.record({ instruction: 'ok', schemaId: 's', spec: 'x'.repeat(201) }),
    ).toThrow(/longer than 200/);
    expect(() => memory.record({ instruction: ' ', schemaId: 's', spec })).toThrow(/empty/);
    expect(() =>
      memory.record({ instruction: 'ok', schemaId: 's', spec, outcome: 'great' as 'success' }),
    ).toThrow(/not an outcome/);
    expect(memory.count()).toBe(0);
  });

  it('drops the oldest pending entries first when full', () => {
    const memory = open({ limits: { maxEntries: 3 } });
    const first = memory.record({ instruction: 'one', schemaId: 's', spec, outcome: 'success' });
    const pending = memory.record({ instruction: 'two', schemaId: 's', spec });
    const third = memory.record({ instruction: 'three', schemaId: 's', spec, outcome: 'failure' });
    const fourth = memory.record({ instruction: 'four', schemaId: 's', spec, outcome: 'success' });
    expect(memory.count()).toBe(3);
    expect(memory.get(pending.id)).toBeUndefined();
    expect(memory.list().map((entry) => entry.id)).toEqual([fourth.id, third.id, first.id]);
    const fifth = memory.record({ instruction: 'five', schemaId: 's', spec });
    expect(memory.list().map((entry) => entry.id)).toEqual([fifth.id, fourth.id, third.id]);
    // The deleted rows are gone from the full-text index too.
    expect(memory.search('one two', {})).toEqual([]);
  });

  it('lists newest first with filters and a bounded limit', () => {
    const memory = open({ limits: { maxResults: 2 } });
    memory.record({ instruction: 'a', schemaId: 's1', spec, outcome: 'success' });
    memory.record({ instruction: 'b', schemaId: 's2', spec, outcome: 'success' });
    memory.record({ instruction: 'c', schemaId: 's1', spec, outcome: 'failure' });
    expect(memory.list({ schemaId: 's1' }).map((entry) => entry.instruction)).toEqual(['c', 'a']);
    expect(memory.list({ outcome: 'success' }).map((entry) => entry.instruction)).toEqual([
      'b',
      'a',
    ]);
    expect(memory.list({ limit: 50 })).toHaveLength(2);
    expect(memory.delete(1)).toBe(true);
    expect(memory.delete(1)).toBe(false);
  });

  it('caches embeddings as float32 per model, bounded, skipping what does not fit', () => {
    let clock = 0;
    const memory = open({
      limits: { maxEmbeddings: 2, maxEmbeddingDimensions: 4 },
      now: () => new Date(++clock),
    });
    memory.putEmbeddings('m1', new Map([['hello', [0.5, -0.25, 1, 0]]]));
    memory.putEmbeddings('m2', new Map([['hello', [1, 1, 1, 1]]]));
    expect(memory.getEmbeddings('m1', ['hello', 'absent'])).toEqual(
      new Map([['hello', [0.5, -0.25, 1, 0]]]),
    );
    expect(memory.getEmbeddings('m2', ['hello']).get('hello')).toEqual([1, 1, 1, 1]);
    memory.putEmbeddings(
      'm1',
      new Map([
        ['too long', [1, 2, 3, 4, 5]],
        ['not finite', [Number.NaN, 0, 0, 0]],
      ]),
    );
    expect(memory.getEmbeddings('m1', ['too long', 'not finite']).size).toBe(0);
    memory.putEmbeddings('m1', new Map([['newest', [0, 0, 0, 1]]]));
    // The oldest row (m1/hello) went to make room.
    expect(memory.getEmbeddings('m1', ['hello']).size).toBe(0);
    expect(memory.getEmbeddings('m1', ['newest']).size).toBe(1);
  });

  it('refuses a file written by a newer version', () => {
    open().close();
    const raw = new Database(path);
    raw.prepare("UPDATE meta SET value = '99' WHERE key = 'schema_version'").run();
    raw.close();
    expect(() => ExperienceMemory.open(path)).toThrow(/newer intentguard/);
  });
});
