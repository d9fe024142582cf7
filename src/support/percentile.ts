/**
 * The value below which `fraction` of the sorted values lie, by nearest rank (the
 * 0.5 of ten values is the fifth): what the eval's latency summary and every benchmark
 * table report. `empty` is the answer for no values.
 *
 * @example percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9) // 9
 */
export function percentile(
  sorted: ArrayLike<number>,
  fraction: number,
  empty: number = Number.NaN,
): number {
  if (sorted.length === 0) return empty;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? empty;
}
