/**
 * Levenshtein distance between `a` and `b` (insertions, deletions and substitutions each cost 1), two rows at a
 * time: the words compared (config keys, command words) are short. Case-sensitive; callers lower-case first.
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, substitution));
    }
    previous = row;
  }
  return previous[b.length] as number;
}
