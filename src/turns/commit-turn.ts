import { createHash } from "node:crypto";
import { captureTurnOutputs } from "../capture/capture-turn.js";
import { captureIndexOf, captureSessionOf } from "../capture/capture-index.js";
import { takeTeedOutput } from "../capture/full-exec/take-teed.js";
import { settleCaptures } from "../capture/capture-hook.js";
import { describeValue, isLedgerError, LedgerError } from "../errors.js";
import type { SessionIdentity } from "../host/normalize.js";
import { fingerprintMessage, isGenuineUserMessage, withoutOperatorMessages } from "../host/messages.js";
import type { LedgerServices } from "../runtime/services.js";
import { rememberKey, type SessionState } from "../state/session-state.js";
import { estimateRawTokens } from "../host/raw-tally.js";

/** What committing a turn uses: settings, session state, the store, logs, captures. */
export type CommitTurnDeps = Pick<
  LedgerServices,
  "root" | "state" | "settings" | "store" | "sessions" | "logger" | "events" | "processWide"
>;

/** Most turn records kept in the session state. */
const MAX_RECENT_TURNS = 200;

/** Inputs of {@link commitTurnMessages}. */
export interface CommitTurnInput {
  identity: SessionIdentity;
  /** The host's idempotency key for this turn. */
  advancementKey: unknown;
  messages: unknown;
  /**
   * afterTurn ingestion: `messages` is the whole transcript and only what lies
   * beyond both this index and what was already ingested is new.
   */
  transcriptFrom?: number;
}

/**
 * What commitTurn answers; `notStored` when the store refused this turn's outputs (they stay only as the host keeps
 * them).
 */
export interface CommitTurnResult {
  status: "committed" | "duplicate";
  notStored?: { code: "store_full"; reason: string };
}

/**
 * Commits one accepted turn atomically and idempotently: under the session
 * lock, a key already recorded answers `duplicate` and changes nothing;
 * otherwise oversized outputs are captured (content-addressed, so a retry
 * after a crash re-stashes harmlessly) and the state, with the key, is written
 * in one rename, which is the commit point.
 */
export async function commitTurnMessages(deps: CommitTurnDeps, input: CommitTurnInput): Promise<CommitTurnResult> {
  const { identity } = input;
  if (typeof input.advancementKey !== "string" || input.advancementKey.length === 0) {
    throw new LedgerError(
      "input_invalid",
      `Expected \`advancementKey\` to be a non-empty string, got ${describeValue(input.advancementKey)}`,
    );
  }
  const key = input.advancementKey;
  const messages = Array.isArray(input.messages) ? (input.messages as unknown[]) : [];
  const settings = deps.settings(identity.agentId);
  // Outputs the after_tool_call hook is still storing are linked, not captured again from the host's cut copy.
  await settleCaptures(deps, identity);
  return deps.sessions.update<CommitTurnResult>(identity.agentId, identity.sessionKey, async (state) => {
    if (state.committedKeys.includes(key)) return { value: { status: "duplicate" }, write: false };
    let turn = messages;
    if (input.transcriptFrom !== undefined) {
      // 2026.4.24 calls afterTurn after every tool-loop step with the growing transcript.
      const seen = state.ingested?.sessionId === identity.sessionId ? state.ingested.count : 0;
      const from = Math.max(input.transcriptFrom, seen <= messages.length ? seen : input.transcriptFrom);
      turn = messages.slice(from);
      state.ingested = { sessionId: identity.sessionId, count: messages.length };
      if (turn.length === 0) {
        rememberKey(state, key);
        return { value: { status: "duplicate" }, write: true };
      }
    }
    let handles: string[] = [];
    let notStored: string | undefined;
    try {
      handles = settings.enabled
        ? await captureTurnOutputs({
            messages: turn,
            settings,
            store: deps.store(identity.agentId),
            captures: captureIndexOf(deps, identity.agentId),
            origin: { agentId: identity.agentId, sessionKey: identity.sessionKey, sessionId: identity.sessionId },
            teedOutput: (toolCallId, toolName) =>
              takeTeedOutput(deps, {
                agentId: identity.agentId,
                session: captureSessionOf(identity),
                toolCallId,
                toolName,
              }),
          })
        : [];
    } catch (err) {
      if (!isLedgerError(err, "store_full")) throw err;
      // The turn is committed (the host has it), but not silently: the answer, the log and the state say what was not
      // stored.
      notStored = err.message;
      state.unstored = {
        count: (state.unstored?.count ?? 0) + 1,
        last: { at: new Date().toISOString(), reason: err.message },
      };
      deps.logger.warn(
        `commitTurn session=${identity.sessionKey}: store_full: tool outputs of this turn were not stored (${err.message})`,
      );
      void deps.events.write({
        op: "commitTurn:not-stored",
        agentId: identity.agentId,
        sessionKey: identity.sessionKey,
        reason: err.message,
      });
    }
    state.agentId = identity.agentId;
    state.sessionKey = identity.sessionKey;
    state.sessionId = identity.sessionId;
    state.turns += 1;
    countUserTurns(state, turn);
    state.recentTurns.push({
      seq: state.turns,
      key,
      at: new Date().toISOString(),
      messages: turn.length,
      tokens: turn.reduce<number>((sum, m) => sum + estimateRawTokens(m), 0),
      handles,
    });
    if (state.recentTurns.length > MAX_RECENT_TURNS)
      state.recentTurns.splice(0, state.recentTurns.length - MAX_RECENT_TURNS);
    rememberKey(state, key);
    return {
      value: notStored
        ? { status: "committed", notStored: { code: "store_full", reason: notStored } }
        : { status: "committed" },
      write: true,
    };
  });
}

/** Counts the genuine user messages of a committed slice (operator commands and host-internal messages left out). */
function countUserTurns(state: SessionState, turn: readonly unknown[]): void {
  const users = withoutOperatorMessages(turn).filter(isGenuineUserMessage);
  const last = users.at(-1);
  if (last === undefined) return;
  state.userTurns = (state.userTurns ?? state.turns - 1) + users.length;
  state.lastUserFingerprint = fingerprintMessage(last);
}

/**
 * The advancement key for hosts that ingest through `afterTurn` (2026.4.24):
 * the session, the pre-prompt count and the last message identify the turn,
 * so a repeated call for the same turn is a duplicate.
 */
export function afterTurnKey(sessionId: string, prePromptMessageCount: number, messages: readonly unknown[]): string {
  const last = messages.length > 0 ? fingerprintMessage(messages[messages.length - 1]) : "empty";
  return `afterTurn:${createHash("sha256").update(`${sessionId}\u0000${prePromptMessageCount}\u0000${messages.length}\u0000${last}`).digest("hex").slice(0, 32)}`;
}
