/**
 * The debt after a turn's paydown. An assembly reads the debt on the history it is handed, which on a line that
 * commits each tool-loop step (2026.4-2026.7) includes the step's raw tool output: the reading before maintain()
 * stubs it. What an operator needs to know is what the host loads next, once maintain() has rewritten the
 * transcript and recorded its compaction: that reading is kept beside the one before, over the same budget.
 */
import { errorMessage } from "../errors.js";
import { locateTranscript, type SessionIdentity } from "../host/normalize.js";
import { estimateRawTokens, type DebtReading } from "../host/raw-tally.js";
import type { LedgerServices } from "../runtime/services.js";
import { loadedMessages, loadedTokens } from "./host-load.js";
import { readJsonlTranscript } from "./transcript-jsonl.js";
import { readSqliteActiveBranch, type SqliteTranscriptLocator } from "./transcript-sqlite.js";

/** What reading the debt after a paydown uses: the session state and the log. */
export type DebtAfterDeps = Pick<LedgerServices, "sessions" | "logger">;

/** Where the session's transcript is: the host's `sessionFile` and, on 2026.8+, its SQLite store. */
export interface DebtAfterInput {
  identity: SessionIdentity;
  sessionFile: unknown;
  sqlite?: SqliteTranscriptLocator;
}

/**
 * Tokens of the transcript as the host loads it, in its precheck's units (chars / 4 per message; JSONL from the
 * newest compaction entry on), or undefined when it cannot be read.
 */
export async function loadedTranscriptTokens(input: Omit<DebtAfterInput, "identity">): Promise<number | undefined> {
  const file = locateTranscript(input.sessionFile);
  if (file.kind === "jsonl") {
    const transcript = await readJsonlTranscript(file.file);
    return loadedMessages(transcript).reduce<number>((sum, m) => sum + loadedTokens(m), 0);
  }
  if (!input.sqlite) return undefined;
  const entries = await readSqliteActiveBranch(input.sqlite);
  return entries?.reduce((sum, e) => sum + estimateRawTokens(e.message), 0);
}

/** The reading with its after-paydown figures, over the reading's own budget. */
export function withAfterPaydown(reading: DebtReading, rawAfter: number, at = new Date().toISOString()): DebtReading {
  return {
    ...reading,
    afterPaydown: { at, rawHistoryTokens: rawAfter, debtTokens: Math.max(0, rawAfter - reading.promptBudget) },
  };
}

/**
 * Reads the transcript after maintain() and records the debt it leaves on the session's newest reading. Never
 * throws: a transcript that cannot be read leaves the reading without the figure.
 */
export async function recordDebtAfterPaydown(deps: DebtAfterDeps, input: DebtAfterInput): Promise<void> {
  const { identity } = input;
  let rawAfter: number | undefined;
  try {
    rawAfter = await loadedTranscriptTokens(input);
  } catch (err) {
    deps.logger.warn(`debt after paydown not read for ${identity.sessionKey}: ${errorMessage(err)}`);
  }
  if (rawAfter === undefined) return;
  const after = rawAfter;
  const at = new Date().toISOString();
  deps.sessions.updateBehind(identity.agentId, identity.sessionKey, (s) => {
    const last = s.lastDebt;
    if (!last) return;
    const next = withAfterPaydown(last, after, at);
    const i = s.debtHistory.findLastIndex((d) => d.at === last.at && d.turn === last.turn);
    if (i >= 0) s.debtHistory[i] = next;
    s.lastDebt = next;
  });
}
