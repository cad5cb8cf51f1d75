import { isSummaryMessage } from "../../dist/src/host/messages.js";

// OpenClaw AgentMessage builders (the .mjs twin of test/support/engine-harness.ts),
// with a per-builder clock so a generated session is byte-identical across runs.

/** Creates message builders whose timestamps start at `start` and tick 1 s per message. */
export function createMessageBuilder(start = 1_780_000_000_000) {
  let ts = start;
  const tick = () => (ts += 1000);
  return {
    user: (text) => ({ role: "user", content: text, timestamp: tick() }),
    assistant: (text) => ({
      role: "assistant",
      content: [{ type: "text", text }],
      api: "openai-completions",
      provider: "mock",
      model: "m",
      usage: {},
      stopReason: "stop",
      timestamp: tick(),
    }),
    call: (id, name, args = {}, lead) => ({
      role: "assistant",
      content: [...(lead ? [{ type: "text", text: lead }] : []), { type: "toolCall", id, name, arguments: args }],
      api: "openai-completions",
      provider: "mock",
      model: "m",
      usage: {},
      stopReason: "toolUse",
      timestamp: tick(),
    }),
    result: (id, name, text, isError = false) => ({
      role: "toolResult",
      toolCallId: id,
      toolName: name,
      content: [{ type: "text", text }],
      isError,
      timestamp: tick(),
    }),
  };
}

/** Concatenated text of a message's text blocks (string content included). */
export function textOfMessage(message) {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c
    .map((b) =>
      typeof b?.text === "string" ? b.text : b?.type === "toolCall" ? JSON.stringify(b.arguments ?? {}) : "",
    )
    .join("\n");
}

/** The text of a view's summary message (the engine's own, marked), or "" when it carries none. */
export function summaryTextOf(view) {
  const message = view.messages.find(isSummaryMessage);
  return message ? textOfMessage(message) : "";
}
