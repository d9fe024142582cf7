/**
 * "Did you mean" suggestions: the closest candidates by edit distance, compared
 * case-insensitively, within a distance that grows with the length of the name.
 */
export function closestNames(name: string, candidates: Iterable<string>, limit = 1): string[] {
  const target = name.toLowerCase();
  const maxDistance = Math.max(1, Math.floor(target.length / 3));
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    if (Math.abs(lower.length - target.length) > maxDistance) continue;
    const distance = lower === target ? 0 : editDistance(target, lower, maxDistance);
    if (distance <= maxDistance) scored.push({ candidate, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : 1));
  return scored.slice(0, limit).map((entry) => entry.candidate);
}

/** A hint sentence for the closest candidate, or an empty string when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const [best] = closestNames(name, candidates);
  return best === undefined ? '' : `Did you mean '${best}'?`;
}

/** Levenshtein distance with an early exit once every cell exceeds `bound`. */
export function editDistance(a: string, b: string, bound = Number.POSITIVE_INFINITY): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMinimum = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      current.push(value);
      if (value < rowMinimum) rowMinimum = value;
    }
    if (rowMinimum > bound) return rowMinimum;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
