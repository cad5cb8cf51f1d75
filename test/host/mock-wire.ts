import type http from "node:http";

/** One tool call the mock model makes. */
export interface MockToolCall {
  /** Tool name as offered by the host (`exec`, `ledger_fetch`, ...). */
  name: string;
  /** Arguments, serialized to JSON for the wire. */
  args: Record<string, unknown>;
}

/** What the mock model answers: plain text, or tool calls (with optional text before them). */
export type MockReply = { text: string } | { text?: string; toolCalls: MockToolCall[] };

/** Wire options for {@link writeReply}. */
export interface WriteReplyOptions {
  model: string;
  /** SSE (`stream: true`) or one JSON body. */
  stream: boolean;
  /** Reported as `usage.prompt_tokens`. */
  promptTokens: number;
  /** Reported as `usage.prompt_tokens_details.cached_tokens` when given. */
  cachedTokens?: number;
  /** Makes ids unique per request. */
  requestIndex: number;
}

/** Marker that starts the user message 2026.9.x appends after tool results. */
export const INTERNAL_CONTEXT_MARKER = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

const CHUNK_CHARS = 4_000;

/** Text of an OpenAI chat message (string content or text parts joined). */
export function textOfMessage(message: unknown): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (typeof (p as { text?: unknown })?.text === "string" ? (p as { text: string }).text : ""))
    .join("");
}

/** True for the host's internal-context user message (not a genuine user turn). */
export function isInternalContextMessage(message: unknown): boolean {
  return textOfMessage(message).trimStart().startsWith(INTERNAL_CONTEXT_MARKER);
}

const ID_CHARS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * A tool-call id shaped like a real provider's: OpenAI's `call_…` and Anthropic's
 * `toolu_01…` (alternating by request), with `_` and `-` inside. Hosts rewrite such
 * ids (2026.8.x+ strip characters), which is what the tests must survive.
 */
export function providerToolCallId(requestIndex: number, callIndex: number): string {
  let n = requestIndex * 7919 + callIndex * 104729 + 12345;
  let body = "";
  for (let k = 0; k < 10; k++) {
    body += ID_CHARS[n % ID_CHARS.length];
    n = Math.floor(n / ID_CHARS.length) + (k + 1) * 31;
  }
  return requestIndex % 2 === 0
    ? `call_${body.slice(0, 4)}_${requestIndex}-${callIndex}x${body.slice(4)}`
    : `toolu_01${body}_${requestIndex}-${callIndex}`;
}

/** Writes one chat-completions answer, streamed as SSE chunks or as a single JSON body. */
export function writeReply(res: http.ServerResponse, reply: MockReply, options: WriteReplyOptions): void {
  const id = `chatcmpl-mock-${options.requestIndex}`;
  const created = Math.floor(Date.now() / 1000);
  const text = reply.text ?? "";
  const calls = "toolCalls" in reply ? reply.toolCalls : [];
  const toolCalls = calls.map((call, i) => ({
    id: providerToolCallId(options.requestIndex, i),
    type: "function" as const,
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
  const finishReason = toolCalls.length > 0 ? "tool_calls" : "stop";
  const completionTokens = Math.ceil((text.length + JSON.stringify(toolCalls).length) / 4);
  const usage = {
    prompt_tokens: options.promptTokens,
    completion_tokens: completionTokens,
    total_tokens: options.promptTokens + completionTokens,
    ...(options.cachedTokens !== undefined ? { prompt_tokens_details: { cached_tokens: options.cachedTokens } } : {}),
  };
  if (!options.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created,
        model: options.model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: text || null,
              ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
            },
            finish_reason: finishReason,
          },
        ],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: options.model, choices, ...extra })}\n\n`,
    );
  };
  chunk([{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }]);
  for (let i = 0; i < text.length; i += CHUNK_CHARS) {
    chunk([{ index: 0, delta: { content: text.slice(i, i + CHUNK_CHARS) }, finish_reason: null }]);
  }
  toolCalls.forEach((call, index) => {
    chunk([{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }]);
  });
  chunk([{ index: 0, delta: {}, finish_reason: finishReason }]);
  chunk([], { usage });
  res.end("data: [DONE]\n\n");
}
