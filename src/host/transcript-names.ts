/**
 * Which files in a host's `sessions/` folder are session transcripts. The folder also holds the host's own
 * companions that end in `.jsonl`: run traces (`<id>.trajectory.jsonl`, written from 2026.4.24 on) and compaction
 * checkpoints (`<id>.checkpoint.<uuid>.jsonl`); neither is a transcript the host loads, and rewriting one would
 * change what the host's trace or checkpoint restore sees. Mirrors the host's `isPrimarySessionTranscriptFileName`
 * (2026.5.28 on; 2026.4.24's version predates the trajectory exclusion but writes those files too).
 */

const CHECKPOINT_TRANSCRIPT =
  /^.+\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\.jsonl$/i;
const ARCHIVE_SUFFIX = /\.(?:deleted|reset|bak)\.\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$/;

/** True when `fileName` (a base name) names a session transcript the host loads, not one of its companions. */
export function isSessionTranscriptName(fileName: string): boolean {
  if (fileName.startsWith(".") || !fileName.endsWith(".jsonl")) return false;
  if (fileName.endsWith(".trajectory.jsonl")) return false;
  if (CHECKPOINT_TRANSCRIPT.test(fileName)) return false;
  return !ARCHIVE_SUFFIX.test(fileName);
}
