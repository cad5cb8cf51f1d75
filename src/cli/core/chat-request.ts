import type { LedgerServices } from "../../runtime/services.js";

/** What a `/ledger` chat command reads: config, settings, stores, session state. */
export type ChatCommandDeps = Pick<
  LedgerServices,
  "config" | "root" | "settings" | "store" | "sessions" | "redactPatterns"
>;

/** One `/ledger <command>` typed in a chat, its agent already known. */
export interface ChatRequest {
  agentId: string;
  sessionKey?: string | undefined;
  /** The words after the command's name. */
  words: readonly string[];
  /** The host config the gateway runs with: does the slot select this engine. */
  hostConfig?: Record<string, unknown> | undefined;
}

/** A chat command's handler: the reply's text. It may throw; the dispatcher turns errors into text. */
export type ChatRunner = (deps: ChatCommandDeps, request: ChatRequest) => Promise<string>;
