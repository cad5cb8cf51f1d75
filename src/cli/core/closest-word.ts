/** The word of `known` within two edits of `word` (the first of the nearest), if any. */
export function closestWord(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}

/** Levenshtein distance, two rows (command words are short). */
function editDistance(a: string, b: string): number {
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
