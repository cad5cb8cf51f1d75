import { promises as fsp } from "node:fs";
import path from "node:path";
import { describeValue, isNotFound, LedgerError } from "../errors.js";
import { writeFileAtomic } from "../fs/atomic-write.js";
import { sessionRoot } from "./paths.js";
import type { DebtReading } from "./session-state.js";

/** Schema tag of the per-session `views.json`. */
export const VIEW_RECORD_SCHEMA = "context-ledger.views.v1";
/** How many turns' views a session keeps (the newest assembly of each turn). */
export const MAX_VIEW_RECORDS = 8;

/** One message of the assembled prompt, as the operator sees it (never the whole content). */
export interface ViewMessage {
  /** Index in the host's message list. */
  index: number;
  role: string;
  /** Tokens the exact counter gave it (as shaped). */
  tokens: number;
  /** Characters of its text as shaped. */
  chars: number;
  /** Head of its text, redacted, at most ~160 chars. */
  preview: string;
  toolName?: string;
  toolCallId?: string;
  /** Handles of stored originals this message cites (its stub's, or any its text mentions). */
  handles?: string[];
  /**
   * True when the message is offloaded: a tool result the engine replaced by its stub (or cleared placeholder) in
   * this prompt, or found as a stub in the host's transcript. A message that merely mentions a handle is not.
   * Absent in records written before: there, a tool result citing a handle.
   */
  offloaded?: boolean;
}

/** Whether a recorded message is offloaded ({@link ViewMessage.offloaded}; before: a tool result with a handle). */
export function isOffloadedMessage(m: ViewMessage): boolean {
  return m.offloaded ?? (m.toolCallId !== undefined && (m.handles?.length ?? 0) > 0);
}

/** An output moved off the prompt, with its stored size. */
export interface ViewOffload {
  handle: string;
  bytes: number | null;
  lines: number | null;
  toolName: string | null;
}

/** A clause of the prompt contract (docs/design.md) as the checker on request bodies names it. */
export type ContractClause =
  | "user-messages"
  | "turn-numbers"
  | "stub-size"
  | "user-stub-floor"
  | "one-summary"
  | "real-dates"
  | "handles-resolve"
  | "tool-pairs";

/**
 * One clause judged on what the engine assembled: kept, broken, or `request-body` when only the request the host
 * builds afterwards can tell (the reading then says why).
 */
export interface ContractReading {
  clause: ContractClause;
  verdict: "kept" | "broken" | "request-body";
  detail: string;
}

/** What one `assemble()` gave the model: the record `context-ledger view` shows. */
export interface ViewRecord {
  schema: typeof VIEW_RECORD_SCHEMA;
  agentId: string;
  sessionKey: string;
  sessionId: string | null;
  /** The turn this assembly prepared (committed turns + 1). */
  turn: number;
  at: string;
  /** The host's prompt budget (normalized), and what was left for messages after margins and reserves. */
  budget: { tokens: number; messageBudget: number };
  /** What the returned prompt costs by the exact counter (messages + summary + priming). */
  estimatedTokens: number;
  plan: {
    /** First kept message. */
    start: number;
    /** Why the window starts there. */
    reason: string;
    /** False when the kept prefix was reused (provider prompt cache stays warm). */
    replanned: boolean;
    overBudget: boolean;
    /** Messages in the host's list. */
    total: number;
    /** Messages in the prompt. */
    kept: number;
    /** Messages inside the window dropped because their tool call/result pairing is broken. */
    excluded: number;
  };
  messages: ViewMessage[];
  offloaded: ViewOffload[];
  /** The summary block injected as system-prompt addition, if any. */
  summary: { text: string; tokens: number } | null;
  debt: DebtReading;
  /** The prompt contract as the engine judged this prompt (absent in records written before it was judged). */
  contract?: ContractReading[];
}

/** Path of a session's view records. */
export function viewRecordPath(root: string, agentId: string, sessionKey: string): string {
  return path.join(sessionRoot(root, agentId, sessionKey), "views.json");
}

/** Records waiting for one file's next write, and the callers waiting on that write. */
interface PendingWrite {
  records: Map<string, ViewRecord>;
  done: Promise<void>;
  settle: (err?: unknown) => void;
}

function newPendingWrite(): PendingWrite {
  let settle!: (err?: unknown) => void;
  const done = new Promise<void>((resolve, reject) => {
    settle = (err) => (err === undefined ? resolve() : reject(err));
  });
  // A caller that does not wait (the snapshot job does) must not leave an unhandled rejection behind.
  done.catch(() => undefined);
  return { records: new Map(), done, settle };
}

/**
 * The view of a turn from two of its assemblies (`a` recorded before `b`): the turn's main prompt, the one with the
 * largest budget (then the one that saw more of the history, then the later). 2026.9.x also assembles within a turn
 * with budgets cut by what the turn has appended (down to 1), and partial or empty histories (retries, maintenance
 * probes): neither is the prompt the turn was planned for. The debt is the later reading (more assembles counted),
 * which is already the turn's reading so far (`host/raw-tally.ts` `turnReading`): background writes may arrive out
 * of order.
 */
function mainViewOfTurn(a: ViewRecord | undefined, b: ViewRecord): ViewRecord {
  if (!a) return b;
  // An assembly of no history at all (a probe) is never the turn's prompt while another saw some.
  const main =
    a.plan.total > 0 !== b.plan.total > 0
      ? a.plan.total > 0
        ? a
        : b
      : a.budget.tokens > b.budget.tokens || (a.budget.tokens === b.budget.tokens && a.plan.total > b.plan.total)
        ? a
        : b;
  // The turn's newest debt reading, whichever record's background write came first.
  const debt = newerReading(a.debt, b.debt);
  return main.debt === debt ? main : { ...main, debt };
}

/** The later of two debt readings of one turn: more assembles counted, else the later time. */
function newerReading(a: ViewRecord["debt"], b: ViewRecord["debt"]): ViewRecord["debt"] {
  const count = (d: ViewRecord["debt"]): number => d.assembles ?? 0;
  if (count(a) !== count(b)) return count(a) > count(b) ? a : b;
  return a.at > b.at ? a : b;
}

async function writeViews(file: string, records: readonly ViewRecord[]): Promise<void> {
  let views = await readViewRecords(file).catch(() => []);
  for (const record of records) {
    const same = views.find((v) => v.turn === record.turn && v.sessionId === record.sessionId);
    const main = mainViewOfTurn(same, record);
    views = views.filter((v) => v.turn !== record.turn && v.sessionId === record.sessionId);
    views.push(main);
  }
  views.sort((a, b) => a.turn - b.turn);
  await writeFileAtomic(file, JSON.stringify({ schema: VIEW_RECORD_SCHEMA, views: views.slice(-MAX_VIEW_RECORDS) }));
}

/** The views of a session file, oldest turn first; empty when there is none; throws `state_corrupt` when unreadable. */
export async function readViewRecords(file: string): Promise<ViewRecord[]> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    if (isNotFound(err)) return [];
    throw new LedgerError("io_failed", `Expected to read \`${file}\`, got ${(err as Error).message}`, { cause: err });
  }
  let doc: { schema?: unknown; views?: unknown } | null;
  try {
    doc = JSON.parse(text) as { schema?: unknown; views?: unknown } | null;
  } catch (err) {
    throw new LedgerError("state_corrupt", `Expected JSON in \`${file}\`, got ${(err as Error).message}`, {
      cause: err,
    });
  }
  if (doc === null || typeof doc !== "object" || doc.schema !== VIEW_RECORD_SCHEMA || !Array.isArray(doc.views))
    throw new LedgerError(
      "state_corrupt",
      `Expected ${VIEW_RECORD_SCHEMA} in \`${file}\`, got schema ${describeValue(doc?.schema)}`,
    );
  return doc.views as ViewRecord[];
}

/** The views writer of one runtime: batched writes per file, and the background jobs to wait for. */
export interface ViewWriter {
  /**
   * Adds `record` to the session's views (one per turn: the turn's main assembly,
   * {@link mainViewOfTurn}; at most {@link MAX_VIEW_RECORDS} turns kept). Each
   * write is atomic; one file has one write in flight, and the records that
   * arrive meanwhile are written together after it, so a burst of assemblies
   * costs a few writes rather than one read and write each.
   */
  save(root: string, record: Omit<ViewRecord, "schema">): Promise<void>;
  /** Registers a background view write so {@link ViewWriter.flush} can wait for it. */
  track(job: Promise<unknown>): void;
  /** Waits for every background view write (engine `dispose()`). */
  flush(): Promise<void>;
}

/** Creates a {@link ViewWriter}; the runtime owns one. */
export function createViewWriter(): ViewWriter {
  // Per file: the write being collected (written after the one in flight).
  const pending = new Map<string, PendingWrite>();
  const draining = new Set<string>();
  const inflight = new Set<Promise<unknown>>();

  const drain = async (file: string): Promise<void> => {
    draining.add(file);
    try {
      for (let batch = pending.get(file); batch; batch = pending.get(file)) {
        pending.delete(file);
        try {
          await writeViews(file, [...batch.records.values()]);
          batch.settle();
        } catch (err) {
          batch.settle(err);
        }
      }
    } finally {
      draining.delete(file);
    }
  };

  return {
    save(root, unstamped) {
      const record: ViewRecord = { schema: VIEW_RECORD_SCHEMA, ...unstamped };
      const file = viewRecordPath(root, record.agentId, record.sessionKey);
      let next = pending.get(file);
      if (!next) pending.set(file, (next = newPendingWrite()));
      const key = `${record.sessionId ?? ""}\u0000${record.turn}`;
      next.records.set(key, mainViewOfTurn(next.records.get(key), record));
      if (!draining.has(file)) void drain(file);
      return next.done;
    },
    track(job) {
      inflight.add(job);
      void job.finally(() => inflight.delete(job)).catch(() => undefined);
    },
    async flush() {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },
  };
}
