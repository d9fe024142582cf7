import type { PredicateDeclaration, Schema } from '../language/index.js';
import { splitNameWords } from '../schema/index.js';

export interface RelevanceOptions {
  /** Schemas with at most this many predicates are shown whole (default 64). */
  readonly maxPredicates?: number;
  /** How many predicates a larger schema is cut to (default 32; a tool and its result count as two). */
  readonly selectedPredicates?: number;
  /**
   * Predicates that worked before for similar instructions (from memory), with a
   * weight; they are ranked first (VeriSafe's experience-driven encoding).
   */
  readonly boosts?: ReadonlyMap<string, number>;
}

export interface PredicateSelection {
  /** The predicates to show, most relevant first when filtered, schema order otherwise. */
  readonly names: readonly string[];
  /** Predicates in the schema. */
  readonly total: number;
  readonly filtered: boolean;
}

export const defaultRelevanceOptions = Object.freeze({ maxPredicates: 64, selectedPredicates: 32 });

/** A unit scoring below this share of the best score is a weak match. */
const relativeScore = 0.25;
/** Weak matches still fill the list up to this many predicates. */
const minimumShown = 8;

const stopWords = new Set(
  (
    'a an and are as at be but by do does for from has have i if in into is it its me my no not of on or ' +
    'our please so that the their them then there these this to up us was we were what when where which ' +
    'who will with you your all any can could should would than too very just also only each some'
  ).split(' '),
);

/** A crude stemmer, applied alike to instructions and schemas: enough for ranking. */
function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The ranking terms of a text: words of names and prose, lower-cased, stemmed, no stop words. */
export function terms(text: string): string[] {
  const words: string[] = [];
  for (const token of text.normalize('NFKC').match(/[\p{L}\p{N}_]+/gu) ?? []) {
    const parts =
      /[A-Z]/.test(token) || token.includes('_') ? splitNameWords(token) : [token.toLowerCase()];
    for (const part of parts.length > 0 ? parts : [token.toLowerCase()]) {
      const lower = part.toLowerCase();
      if (lower.length < 2 || stopWords.has(lower)) continue;
      words.push(stem(lower));
    }
  }
  return words;
}

interface Unit {
  readonly names: readonly string[];
  readonly nameTerms: ReadonlySet<string>;
  readonly textTerms: ReadonlySet<string>;
  readonly order: number;
}

/** A tool's action and its result predicate are ranked and kept together. */
function units(schema: Schema): Unit[] {
  const result: Unit[] = [];
  const placed = new Set<string>();
  let order = 0;
  for (const predicate of schema.predicates.values()) {
    if (placed.has(predicate.name)) continue;
    const members: PredicateDeclaration[] = [predicate];
    const partnerName = predicate.resultPredicate ?? predicate.resultOf;
    const partner = partnerName === undefined ? undefined : schema.predicates.get(partnerName);
    if (partner && !placed.has(partner.name)) members.push(partner);
    if (predicate.resultOf !== undefined && partner) members.reverse();
    for (const member of members) placed.add(member.name);
    const nameTerms = new Set(members.flatMap((member) => terms(member.name)));
    const textTerms = new Set(
      members.flatMap((member) => [
        ...terms(member.description),
        ...member.variables.flatMap((variable) => [
          ...terms(variable.name),
          ...terms(variable.description ?? ''),
        ]),
        ...member.variables.flatMap((variable) =>
          variable.type.kind === 'enum' ? terms(variable.type.values.join(' ')) : [],
        ),
      ]),
    );
    result.push({
      names: members.map((member) => member.name),
      nameTerms,
      textTerms,
      order: order++,
    });
  }
  return result;
}

/**
 * The units of the toolkit(s) an instruction names: units whose name starts with one
 * to three words of the instruction run together (`Todoist…` for "my Todoist",
 * `GoogleHome…` for "Google Home"), leaving at least one word of the name for the tool.
 * A prefix counts only when several units share it and it is not most of the schema
 * (a verb that starts every name names no toolkit).
 */
function namedToolkitUnits(all: readonly Unit[], instruction: string): Set<Unit> {
  const words = (instruction.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? [])
    .map((word) => word.toLowerCase())
    .slice(0, 2000);
  const spoken = new Set<string>();
  for (let index = 0; index < words.length; index++) {
    let joined = '';
    for (let length = 0; length < 3 && index + length < words.length; length++) {
      joined += words[index + length];
      if (joined.length >= 3 && !stopWords.has(joined)) spoken.add(joined);
    }
  }
  const byPrefix = new Map<string, Unit[]>();
  for (const unit of all) {
    const parts = splitNameWords(unit.names[0] ?? '');
    // The longest prefix spoken: "Google Home" names GoogleHome…, not every Google… toolkit.
    let prefix = '';
    let longest: string | undefined;
    for (let length = 1; length < parts.length && length <= 3; length++) {
      prefix += parts[length - 1];
      if (spoken.has(prefix)) longest = prefix;
    }
    if (longest === undefined) continue;
    const list = byPrefix.get(longest) ?? [];
    list.push(unit);
    byPrefix.set(longest, list);
  }
  const prefixes = [...byPrefix.keys()];
  const named = new Set<Unit>();
  for (const [prefix, units] of byPrefix) {
    if (units.length < 2 || units.length * 2 > all.length) continue;
    // A shorter prefix of a named one ("google" beside "googlehome") was only a part of it.
    if (prefixes.some((other) => other !== prefix && other.startsWith(prefix))) continue;
    for (const unit of units) named.add(unit);
  }
  return named;
}

/**
 * Chooses the predicates a prompt shows. A small schema (every VeriSafe app) is shown
 * whole; a large one (all 330 ToolEmu tools) is cut to the predicates most similar
 * to the instruction — IDF-weighted shared words, name words counting double; matches
 * far weaker than the best only fill a short list up — with predicates that memory
 * says worked before ranked first. When the instruction names a toolkit ("my
 * Todoist"), its tools come next, and other toolkits' tools count only the words the
 * named toolkit does not cover: "delete" brings Todoist's delete, not Gmail's and
 * Dropbox's, while "email the list" still brings Gmail. Deterministic: ties keep
 * schema order.
 */
export function selectPredicates(
  schema: Schema,
  instruction: string,
  options: RelevanceOptions = {},
): PredicateSelection {
  const maxPredicates = options.maxPredicates ?? defaultRelevanceOptions.maxPredicates;
  const selected = options.selectedPredicates ?? defaultRelevanceOptions.selectedPredicates;
  const total = schema.predicates.size;
  if (total <= maxPredicates)
    return { names: [...schema.predicates.keys()], total, filtered: false };

  const all = units(schema);
  const documentFrequency = new Map<string, number>();
  for (const unit of all) {
    for (const term of new Set([...unit.nameTerms, ...unit.textTerms])) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    }
  }
  const query = new Set(terms(instruction));
  const named = namedToolkitUnits(all, instruction);
  const covered = new Set<string>();
  for (const unit of named) {
    for (const term of query)
      if (unit.nameTerms.has(term) || unit.textTerms.has(term)) covered.add(term);
  }
  const boosts = options.boosts ?? new Map<string, number>();
  const scored = all.map((unit) => {
    let score = 0;
    const isNamed = named.has(unit);
    for (const term of query) {
      if (!isNamed && covered.has(term)) continue;
      const frequency = documentFrequency.get(term);
      if (frequency === undefined) continue;
      const idf = Math.log(1 + all.length / frequency);
      if (unit.nameTerms.has(term)) score += 2 * idf;
      else if (unit.textTerms.has(term)) score += idf;
    }
    const boost = Math.max(0, ...unit.names.map((name) => boosts.get(name) ?? 0));
    // Remembered predicates come first, however the words fall; then the named toolkit.
    const tier = boost > 0 ? 2 : isNamed ? 1 : 0;
    return { unit, tier, score: tier === 2 ? boost * 1000 + score : score };
  });
  scored.sort(
    (left, right) =>
      right.tier - left.tier || right.score - left.score || left.unit.order - right.unit.order,
  );
  const best = Math.max(0, ...scored.filter((entry) => entry.tier < 2).map((entry) => entry.score));
  const minimum = named.size > 0 ? 0 : Math.min(selected, minimumShown);
  const names: string[] = [];
  for (const { unit, score, tier } of scored) {
    if (names.length + unit.names.length > selected) break;
    // Far weaker matches (a shared common verb, say) only fill up a short list.
    const weak = tier === 0 && (score <= 0 || score < relativeScore * best);
    if (weak && names.length >= minimum) break;
    names.push(...unit.names);
  }
  return { names, total, filtered: true };
}
