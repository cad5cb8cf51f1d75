import { promises as fsp } from "node:fs";
import { describeValue, LedgerError } from "../errors.js";
import { parseJsonOrThrow } from "../json.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { summaryStateSchema, type SummaryState } from "./summary-state.js";

/**
 * Validates a parsed sidecar record. Throws `state_corrupt` saying what was
 * expected and what was found.
 */
export function parseSummaryState(value: unknown, origin = "summary record"): SummaryState {
  const result = summaryStateSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? ` at \`${issue.path.join(".")}\`` : "";
    throw new LedgerError(
      "state_corrupt",
      `Expected ${origin} to be a context-ledger.summary.v1 record, got ${describeValue(value)}${where}: ${issue?.message ?? "invalid"}`,
      { cause: result.error },
    );
  }
  return result.data;
}

/**
 * Reads the summary sidecar at `file` (the caller picks the path, one per
 * reset epoch). Throws `io_failed` when it cannot be read and `state_corrupt`
 * when it is not valid JSON of the summary schema.
 */
export async function loadSummary(file: string): Promise<SummaryState> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    throw new LedgerError(
      "io_failed",
      `Expected to read the summary sidecar \`${file}\`, got ${(err as Error).message}`,
      { cause: err },
    );
  }
  const json = parseJsonOrThrow(
    text,
    "state_corrupt",
    () => `Expected the summary sidecar \`${file}\` to hold JSON, got ${describeValue(text)}`,
  );
  return parseSummaryState(json, `the summary sidecar \`${file}\``);
}

/** {@link loadSummary}, but `undefined` when the file is missing, unreadable or corrupt (start afresh). */
export async function tryLoadSummary(file: string): Promise<SummaryState | undefined> {
  try {
    return await loadSummary(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the sidecar atomically (temp file, fsync, rename; 0600). Concurrent
 * writers of one file should hold `withFileLock` around load-extend-save.
 */
export async function saveSummary(file: string, state: SummaryState): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(state)}\n`);
}
