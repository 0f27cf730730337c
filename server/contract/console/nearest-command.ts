// "Did you mean GET?": the allowed command a mistyped name is closest to, by edit distance where a
// swap of two neighbouring letters counts as one edit (GTE is one edit from GET). Free of Node APIs.

/** Edits (insert, delete, replace, swap of neighbours) between two names. */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidates closest to `typed`, if near enough to be a typo: one edit for names of up to four
 * letters, two for longer ones. Several at the same distance are all returned (HET: GET or SET).
 */
export function nearestCommands(typed: string, candidates: readonly string[]): string[] {
  const reach = typed.length <= 4 ? 1 : 2;
  const scored = candidates.map((candidate) => ({ candidate, distance: editDistance(typed, candidate) }));
  const best = Math.min(...scored.map((s) => s.distance));
  if (best === 0 || best > reach) return [];
  return scored.filter((s) => s.distance === best).map((s) => s.candidate);
}
