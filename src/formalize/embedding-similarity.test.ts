import { describe, expect, it } from 'vitest';
import { createEmbeddingSimilarity } from './embedding-similarity.js';

describe('embedding similarity (offline)', () => {
  it('keeps a bounded cache, answers cosine from it, and falls back otherwise', async () => {
    const calls: string[][] = [];
    const similarity = createEmbeddingSimilarity({
      model: {
        id: 'fake:embed',
        embed: async (texts) => {
          calls.push([...texts]);
          return {
            embeddings: texts.map((text) => (text.startsWith('x') ? [1, 0] : [0, 1])),
            tokens: null,
          };
        },
      },
      fallback: () => 0.5,
      maxCached: 2,
      batchSize: 2,
    });
    expect(await similarity.prepare(['x1', 'y1', 'x2', '', 'x1'])).toEqual({ embedded: 3 });
    expect(calls).toEqual([['x1', 'y1'], ['x2']]);
    // x1 was dropped to keep two texts.
    expect(similarity.has('x1')).toBe(false);
    expect(similarity.similarity('y1', 'x2')).toBe(0);
    expect(similarity.similarity('x1', 'x2')).toBe(0.5);
  });
});
