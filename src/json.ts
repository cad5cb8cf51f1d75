/**
 * Parses JSON text, or gives `undefined` when it is not JSON (JSON itself never
 * yields `undefined`, so the answer is unambiguous). For input whose failure is an
 * expected case, not an error: tool output that may or may not be JSON, a line torn
 * by a crash, a half-written lock file.
 */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
