import { promises as fsp, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { HostEnv } from "./host-env.js";
import { RESET_REPLY } from "./logs.js";

/** One session index entry (`state/agents/<agent>/sessions/sessions.json`, JSONL-transcript lines). */
export interface SessionIndexEntry {
  sessionId: string;
  sessionFile?: string;
}

/**
 * The agent's session index (`sessions.json`: session key → entry); {} when absent (2026.9.x keeps sessions in SQLite).
 */
export async function readSessionIndex(env: HostEnv, agent = "main"): Promise<Record<string, SessionIndexEntry>> {
  try {
    return JSON.parse(
      await fsp.readFile(path.join(env.stateDir, "agents", agent, "sessions", "sessions.json"), "utf8"),
    ) as Record<string, SessionIndexEntry>;
  } catch {
    return {};
  }
}

/**
 * Tracks the JSONL transcript files one session key has used (a reset moves the key to a
 * new session id; the old file stays), so counts stay per scenario on a shared gateway.
 */
export class SessionFiles {
  readonly #files = new Set<string>();
  constructor(
    readonly env: HostEnv,
    readonly sessionKey: string,
    readonly agent = "main",
  ) {}

  /** Reads the index and remembers the key's current file. Call after each turn. */
  async refresh(): Promise<string[]> {
    const entry = (await readSessionIndex(this.env, this.agent))[this.sessionKey];
    if (entry?.sessionId) {
      this.#files.add(
        entry.sessionFile ?? path.join(this.env.stateDir, "agents", this.agent, "sessions", `${entry.sessionId}.jsonl`),
      );
    }
    return this.files();
  }

  /** Every transcript file seen for the key, oldest first. */
  files(): string[] {
    return [...this.#files];
  }

  /** Total bytes of those files now. */
  bytes(): number {
    return this.files().reduce((sum, f) => sum + (statSync(f, { throwIfNoEntry: false })?.size ?? 0), 0);
  }

  /** Message entries (`"type":"message"`) in those files now. */
  messageEntries(): number {
    return this.files().reduce((sum, f) => sum + (readText(f).match(/"type":"message"/g)?.length ?? 0), 0);
  }

  /** How many times the host's reset reply was stored in those files. */
  resetReplies(): number {
    return this.files().reduce((sum, f) => sum + readText(f).split(RESET_REPLY).length - 1, 0);
  }
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
