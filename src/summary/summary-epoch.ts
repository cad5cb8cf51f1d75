import path from "node:path";
import { fingerprintMessage, isGenuineUserMessage } from "../host/messages.js";

/**
 * The conversation's identity: its first genuine user message. It changes on
 * `/new` and `/reset` even where the host keeps the session id, so nothing from
 * before a reset leaks into the new conversation's summary.
 */
export function conversationEpoch(messages: readonly unknown[]): string {
  for (let i = 0; i < messages.length && i < 64; i++) {
    if (isGenuineUserMessage(messages[i])) return fingerprintMessage(messages[i]).slice(0, 16);
  }
  return "empty";
}

/** Sidecar file of one conversation epoch, inside the session's state folder. */
export function summaryPath(sessionDir: string, epoch: string): string {
  return path.join(sessionDir, `summary-${epoch}.json`);
}
