import { canonicalSpecText, checkSpec } from '../../language/index.js';
import { cosine } from '../embedding-similarity.js';
import type { Experience } from '../experience.js';
import type { EmbeddingModel } from '../model/model.js';
import type { PromptExperience } from '../prompts/encode.js';
import { predicatesOf } from '../signatures.js';
import type { FormalizeOptions } from './types.js';

/**
 * Ranking remembered instructions by meaning. A store's full-text search finds entries
 * that share an exact word; "Setting alarms" and "set an alarm" share none. With an
 * embedding model the formalizer ranks by cosine similarity of embeddings; without
 * one, by a lexical similarity that forgives inflection: stemmed word sets compared
 * with the Dice coefficient.
 */

const stopWords = new Set(
  (
    'a an and are as at be but by do does for from has have i if in into is it its me my no not of on or ' +
    'our please so that the their them then there these this to up us was we were what when where which ' +
    'who will with you your all any can could should would than too very just also only each some'
  ).split(' '),
);

/** Undoubles a final consonant left by a suffix: `sett` → `set`, `stopp` → `stop`. */
function undouble(word: string): string {
  return /([b-df-hj-np-tv-z])\1$/.test(word) && !/(ll|ss|zz)$/.test(word)
    ? word.slice(0, -1)
    : word;
}

/**
 * A light English stemmer: plural and verb endings (`alarms`, `setting`, `deleted`,
 * `replies`), enough to match inflected forms of one word. Not Porter: it never maps
 * two different short words together.
 */
export function stemWord(word: string): string {
  const lower = word.toLowerCase();
  if (lower.length <= 3) return lower;
  if (lower.endsWith('ies') && lower.length > 4) return `${lower.slice(0, -3)}y`;
  if (lower.endsWith('ing') && lower.length > 5) return undouble(lower.slice(0, -3));
  if (lower.endsWith('ed') && lower.length > 4) {
    const stem = lower.slice(0, -2);
    return stem.endsWith('e') ? stem : undouble(stem);
  }
  if (lower.endsWith('es') && /(ch|sh|x|ss|zz)es$/.test(lower)) return lower.slice(0, -2);
  if (lower.endsWith('s') && !lower.endsWith('ss') && !lower.endsWith('us'))
    return lower.slice(0, -1);
  return lower;
}

/** An instruction's words as a set of stems, stop words left out. */
export function stemSet(text: string): Set<string> {
  const words = text.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [];
  const stems = new Set<string>();
  for (const word of words.slice(0, 500)) {
    const lower = word.toLowerCase();
    if (stopWords.has(lower)) continue;
    // `setting` and `set`, `deleted` and `delete`: compare without a trailing e too.
    stems.add(stemWord(lower).replace(/e$/, ''));
  }
  return stems;
}

/** Dice similarity of two instructions' stem sets, in [0, 1]. */
export function lexicalRecallSimilarity(left: string, right: string): number {
  const a = stemSet(left);
  const b = stemSet(right);
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const stem of a) if (b.has(stem)) shared++;
  return (2 * shared) / (a.size + b.size);
}

/** Below these, a remembered instruction is not similar enough to prime the prompt. */
export const recallThresholds = Object.freeze({ lexical: 0.34, embedding: 0.6 });

/**
 * Ranks candidate experiences by their instruction's similarity to `instruction`,
 * most similar first, dropping those below the threshold — except `keep` (entries the
 * store's own search found by a shared word), which stay in, after the similar ones.
 * With `embeddings`, similarity is the cosine of embeddings; if the model fails, the
 * lexical measure decides (memory only primes the prompt, so it never fails a run).
 */
export async function rankByMeaning(
  instruction: string,
  candidates: readonly Experience[],
  options: {
    readonly keep?: ReadonlySet<number>;
    readonly embeddings?: EmbeddingModel;
    readonly signal?: AbortSignal;
  } = {},
): Promise<Experience[]> {
  const unique = [...new Map(candidates.map((entry) => [entry.id, entry])).values()];
  if (unique.length === 0) return [];
  let scores: number[] | undefined;
  let threshold: number = recallThresholds.lexical;
  if (options.embeddings) {
    try {
      const texts = [instruction, ...unique.map((entry) => entry.instruction)];
      const { embeddings } = await options.embeddings.embed(texts, options.signal);
      const query = embeddings[0];
      if (query && embeddings.length === texts.length) {
        scores = unique.map((_, index) => {
          const score = cosine(query, embeddings[index + 1] ?? []);
          // Unequal or zero vectors say nothing: below any threshold.
          return Number.isNaN(score) ? 0 : score;
        });
        threshold = recallThresholds.embedding;
      }
    } catch {
      // Fall back to the lexical measure.
    }
  }
  const final =
    scores ?? unique.map((entry) => lexicalRecallSimilarity(instruction, entry.instruction));
  const keep = options.keep ?? new Set<number>();
  return unique
    .map((entry, index) => ({ entry, score: final[index] ?? 0, index }))
    .filter(({ entry, score }) => score >= threshold || keep.has(entry.id))
    .sort((left, right) => {
      const similar = Number(right.score >= threshold) - Number(left.score >= threshold);
      return similar || right.score - left.score || left.index - right.index;
    })
    .map(({ entry }) => entry);
}

/** Recent remembered entries ranked by meaning besides the store's word matches. */
const recentExperiences = 200;

/**
 * The remembered specs that prime the prompt (those that still check against today's
 * schema, at most `memoryExamples`), and how often each predicate occurs in them: the
 * relevance filter shows those predicates first.
 */
export async function recall(
  options: FormalizeOptions,
  instruction: string,
): Promise<{
  experiences: { id: number; prompt: PromptExperience }[];
  boosts: Map<string, number>;
}> {
  const boosts = new Map<string, number>();
  const experiences: { id: number; prompt: PromptExperience }[] = [];
  if (!options.memory) return { experiences, boosts };
  const shown = options.memoryExamples ?? 3;
  let found: readonly Experience[];
  try {
    const query = { schemaId: options.schema.id, outcome: 'success' as const };
    const matched = await options.memory.search(instruction, {
      ...query,
      limit: Math.max(shown, 8),
    });
    const recent = options.memory.list
      ? await options.memory.list({ ...query, limit: recentExperiences })
      : [];
    // Entries found by a shared word stay; the rest must be similar in meaning.
    found = await rankByMeaning(instruction, [...matched, ...recent], {
      keep: new Set(matched.map((entry) => entry.id)),
      ...(options.memoryEmbeddings ? { embeddings: options.memoryEmbeddings } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch {
    // Memory only primes the prompt; without it the formalizer works cold.
    return { experiences, boosts };
  }
  for (const experience of found) {
    // A remembered spec is shown only if it still checks against today's schema.
    const checked = checkSpec(experience.spec, options.schema);
    if (!checked.ok) continue;
    for (const name of predicatesOf(checked.value)) boosts.set(name, (boosts.get(name) ?? 0) + 1);
    if (experiences.length < shown) {
      experiences.push({
        id: experience.id,
        prompt: { instruction: experience.instruction, spec: canonicalSpecText(checked.value) },
      });
    }
  }
  return { experiences, boosts };
}
