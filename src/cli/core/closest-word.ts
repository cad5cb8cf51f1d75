import { editDistance } from "../../config/edit-distance.js";

/** The word of `known` within two edits of `word` (the first of the nearest), if any. */
export function closestWord(word: string, known: readonly string[]): string | undefined {
  let best: { word: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance <= 2 && (!best || distance < best.distance)) best = { word: candidate, distance };
  }
  return best?.word;
}
