import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";

/** Name of the plugin's folder inside the host's state dir. */
export const LEDGER_DIR_NAME = "context-ledger";

/** Options for {@link resolveLedgerRoot}. */
export interface ResolveLedgerRootOptions {
  /** Explicit root from config (`stateDir`); wins over the environment. */
  stateDir?: string;
  /** Environment to read `OPENCLAW_STATE_DIR` and `HOME` from. @default process.env */
  env?: NodeJS.ProcessEnv;
}

/**
 * The ledger's root folder: config `stateDir`, else `$OPENCLAW_STATE_DIR/context-ledger`,
 * else `~/.openclaw/context-ledger` (HOME from the given environment).
 */
export function resolveLedgerRoot(options: ResolveLedgerRootOptions = {}): string {
  if (options.stateDir) return path.resolve(options.stateDir);
  const env = options.env ?? process.env;
  const hostState = env.OPENCLAW_STATE_DIR?.trim();
  if (hostState) return path.resolve(hostState, LEDGER_DIR_NAME);
  const home = env.HOME?.trim() || os.homedir();
  return path.resolve(home, ".openclaw", LEDGER_DIR_NAME);
}

/**
 * Encodes an id (agent id, session key) as one safe path segment: letters,
 * digits, `_` and `-` stay; every other byte becomes `~XX`. Reversible, never
 * `.` or `..`; long ids keep a prefix and gain a hash so segments stay short.
 */
export function encodeSegment(id: string): string {
  const bytes = Buffer.from(id, "utf8");
  let out = "";
  for (const byte of bytes) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_-]/.test(c) ? c : `~${byte.toString(16).padStart(2, "0")}`;
  }
  if (out.length === 0) out = "~";
  if (out.length > 120) out = `${out.slice(0, 80)}~~${createHash("sha256").update(id).digest("hex").slice(0, 32)}`;
  return out;
}

/** Decodes {@link encodeSegment} output (hashed long ids decode to their prefix only). */
export function decodeSegment(segment: string): string {
  const cut = segment.indexOf("~~");
  const body = cut >= 0 ? segment.slice(0, cut) : segment;
  if (body === "~") return "";
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "~") {
      bytes.push(parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(body.charCodeAt(i));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Folder of one agent's state. */
export function agentRoot(root: string, agentId: string): string {
  return path.join(root, "agents", encodeSegment(agentId));
}

/** Folder of one agent's artifact store. */
export function artifactRoot(root: string, agentId: string): string {
  return path.join(agentRoot(root, agentId), "artifacts");
}

/** Folder of one session's state (session key scoped within the agent). */
export function sessionRoot(root: string, agentId: string, sessionKey: string): string {
  return path.join(agentRoot(root, agentId), "sessions", encodeSegment(sessionKey));
}

/** The plugin's own JSONL event log (lifecycle calls, debt lines). */
export function eventLogPath(root: string): string {
  return path.join(root, "logs", "events.jsonl");
}
