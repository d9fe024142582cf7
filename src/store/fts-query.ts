/**
 * Builds an FTS5 MATCH expression from untrusted text. FTS5 has its own query
 * language (`AND`, `NEAR(...)`, `col:`, `*`, `^`, quotes); passing an instruction
 * through would let it fail to parse or change the meaning of the search. So the text
 * is cut into letter/digit words, each becomes a quoted string (which FTS5 matches as
 * a literal token; the words contain no quotes), and the words are OR-ed: any shared
 * word is a candidate and BM25 ranks by how many and how rare.
 *
 * @example
 * ftsQuery('Delete tasks "Test" NEAR(x) OR col:*'); // '"delete" OR "tasks" OR "test" OR "near" OR "x" OR "or" OR "col"'
 */
export function ftsQuery(text: string, maxTerms = 32): string | undefined {
  const words =
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [];
  const unique = [...new Set(words.filter((word) => word.length <= 64))].slice(
    0,
    Math.max(0, maxTerms),
  );
  if (unique.length === 0) return undefined;
  return unique.map((word) => `"${word}"`).join(' OR ');
}
