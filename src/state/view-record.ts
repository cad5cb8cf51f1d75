import { promises as fsp } from "node:fs";
import path from "node:path";
import { LedgerError } from "../errors.js";
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
  /** Handles of stored originals this message points at (offloaded output). */
  handles?: string[];
}

/** An output moved off the prompt, with its stored size. */
export interface ViewOffload {
  handle: string;
  bytes: number | null;
  lines: number | null;
  toolName: string | null;
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
}

/** Path of a session's view records. */
export function viewRecordPath(root: string, agentId: string, sessionKey: string): string {
  return path.join(sessionRoot(root, agentId, sessionKey), "views.json");
}

const chains = new Map<string, Promise<void>>();

/**
 * Adds `record` to the session's views (replacing an earlier assembly of the
 * same turn unless that one saw more messages; at most {@link MAX_VIEW_RECORDS}
 * turns kept). Writes of one file
 * are serialized within the process; each write is atomic.
 */
export function saveViewRecord(root: string, record: ViewRecord): Promise<void> {
  const file = viewRecordPath(root, record.agentId, record.sessionKey);
  const run = async () => {
    const previous = await readViewRecords(file).catch(() => []);
    // 2026.9.x also assembles partial or empty histories within a turn (retries, maintenance
    // probes): the fullest assembly of a turn is what the model was shown, keep that one.
    const same = previous.find((v) => v.turn === record.turn && v.sessionId === record.sessionId);
    if (same && same.plan.total > record.plan.total) return;
    const views = previous.filter((v) => v.turn !== record.turn && v.sessionId === record.sessionId);
    views.push(record);
    views.sort((a, b) => a.turn - b.turn);
    await writeFileAtomic(file, JSON.stringify({ schema: VIEW_RECORD_SCHEMA, views: views.slice(-MAX_VIEW_RECORDS) }));
  };
  const next = (chains.get(file) ?? Promise.resolve()).then(run, run);
  const tail = next.catch(() => undefined);
  chains.set(file, tail);
  void tail.then(() => {
    if (chains.get(file) === tail) chains.delete(file);
  });
  return next;
}

/** The views of a session file, oldest turn first; empty when there is none; throws `state_corrupt` when unreadable. */
export async function readViewRecords(file: string): Promise<ViewRecord[]> {
  let text: string;
  try {
    text = await fsp.readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new LedgerError("io_failed", `Expected to read \`${file}\`, got ${(err as Error).message}`, { cause: err });
  }
  try {
    const doc = JSON.parse(text) as { schema?: unknown; views?: unknown };
    if (doc.schema !== VIEW_RECORD_SCHEMA || !Array.isArray(doc.views)) throw new Error(`schema ${String(doc.schema)}`);
    return doc.views as ViewRecord[];
  } catch (err) {
    throw new LedgerError("state_corrupt", `Expected ${VIEW_RECORD_SCHEMA} in \`${file}\`, got ${(err as Error).message}`, { cause: err });
  }
}

const inflight = new Set<Promise<unknown>>();

/** Registers a background view write so {@link flushViewRecords} can wait for it. */
export function trackViewWrite(job: Promise<unknown>): void {
  inflight.add(job);
  void job.finally(() => inflight.delete(job)).catch(() => undefined);
}

/** Waits for every background view write of this process (engine `dispose()`). */
export async function flushViewRecords(): Promise<void> {
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
}
