/**
 * The Anthropic Messages wire of the mock model: a request read as chat-completions messages
 * (so scripts and figures work on every wire alike), and replies written as the Messages API
 * writes them: SSE events (`message_start`, `content_block_start` / `_delta` / `_stop`,
 * `message_delta` with usage, `message_stop`), each with its `event:` line, which the
 * Anthropic SDK's stream reader requires, or one JSON message.
 */
import type http from "node:http";
import type { MockReply } from "./mock-wire.js";

/** Usage as the mock reports it on this wire. */
export interface AnthropicReplyUsage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
}

/** Options of {@link writeAnthropicReply}. */
export interface AnthropicReplyOptions {
  model: string;
  stream: boolean;
  requestIndex: number;
  usage: AnthropicReplyUsage;
  /** A thinking block to send first (thinking on), with the signature the rules issued. */
  thinking?: { text: string; signature: string };
}

interface Block {
  type?: unknown;
  text?: unknown;
  id?: unknown;
  name?: unknown;
  input?: unknown;
  tool_use_id?: unknown;
  content?: unknown;
}

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? (content as Block[]).map((b) => (b.type === "text" ? String(b.text ?? "") : "")).join("")
      : "";

/**
 * The request as chat-completions messages: `system` first, a user message's `tool_result` blocks as `tool`
 * messages (then its other text as a user message), an assistant's `tool_use` blocks as `tool_calls`.
 */
export function anthropicChatView(body: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const system = textOf(body.system);
  if (system) out.push({ role: "system", content: system });
  for (const raw of Array.isArray(body.messages) ? (body.messages as unknown[]) : []) {
    const m = (raw ?? {}) as { role?: unknown; content?: unknown };
    const blocks: Block[] = typeof m.content === "string" ? [{ type: "text", text: m.content }] : [];
    if (Array.isArray(m.content)) blocks.push(...(m.content as Block[]));
    if (m.role === "assistant") {
      const calls = blocks.filter((b) => b.type === "tool_use");
      out.push({
        role: "assistant",
        content: textOf(blocks) || null,
        ...(calls.length
          ? {
              tool_calls: calls.map((c) => ({
                id: String(c.id),
                type: "function",
                function: { name: String(c.name), arguments: JSON.stringify(c.input ?? {}) },
              })),
            }
          : {}),
      });
      continue;
    }
    for (const b of blocks.filter((x) => x.type === "tool_result"))
      out.push({ role: "tool", tool_call_id: String(b.tool_use_id), content: textOf(b.content) });
    const text = textOf(blocks);
    if (text) out.push({ role: String(m.role), content: text });
  }
  return out;
}

/** Names of the tools offered. */
export function anthropicToolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: unknown }[]) : [];
  return tools.map((t) => String(t.name ?? "")).filter(Boolean);
}

/** A `toolu_01…` id as Anthropic issues them, unique per request and call. */
export function anthropicToolUseId(requestIndex: number, callIndex: number): string {
  return `toolu_01Mock${requestIndex.toString(36)}x${callIndex}_${((requestIndex + 1) * 7919 + callIndex).toString(36)}`;
}

function contentBlocks(reply: MockReply, options: AnthropicReplyOptions): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (options.thinking)
    blocks.push({ type: "thinking", thinking: options.thinking.text, signature: options.thinking.signature });
  if (reply.text) blocks.push({ type: "text", text: reply.text });
  ("toolCalls" in reply ? reply.toolCalls : []).forEach((call, i) =>
    blocks.push({
      type: "tool_use",
      id: anthropicToolUseId(options.requestIndex, i),
      name: call.name,
      input: call.args,
    }),
  );
  return blocks;
}

/** The events that stream one block: its start (empty), its deltas, its stop. */
function blockEvents(block: Record<string, unknown>, index: number): Record<string, unknown>[] {
  const start = (content_block: unknown) => ({ type: "content_block_start", index, content_block });
  const delta = (d: unknown) => ({ type: "content_block_delta", index, delta: d });
  const stop = { type: "content_block_stop", index };
  if (block.type === "thinking")
    return [
      start({ type: "thinking", thinking: "" }),
      delta({ type: "thinking_delta", thinking: block.thinking }),
      delta({ type: "signature_delta", signature: block.signature }),
      stop,
    ];
  if (block.type === "tool_use")
    return [
      start({ ...block, input: {} }),
      delta({ type: "input_json_delta", partial_json: JSON.stringify(block.input) }),
      stop,
    ];
  return [start({ type: "text", text: "" }), delta({ type: "text_delta", text: block.text }), stop];
}

/** Writes one Messages answer, streamed as SSE events or as one JSON message. */
export function writeAnthropicReply(res: http.ServerResponse, reply: MockReply, options: AnthropicReplyOptions): void {
  const content = contentBlocks(reply, options);
  const stopReason = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
  const outputTokens = Math.max(1, Math.ceil(JSON.stringify(content).length / 4));
  const { inputTokens, cacheReadTokens, cacheWrite5mTokens, cacheWrite1hTokens } = options.usage;
  const usage = {
    input_tokens: inputTokens,
    cache_creation_input_tokens: cacheWrite5mTokens + cacheWrite1hTokens,
    cache_read_input_tokens: cacheReadTokens,
    cache_creation: { ephemeral_5m_input_tokens: cacheWrite5mTokens, ephemeral_1h_input_tokens: cacheWrite1hTokens },
    output_tokens: outputTokens,
  };
  const message = {
    id: `msg_mock${options.requestIndex}`,
    type: "message",
    role: "assistant",
    model: options.model,
    stop_sequence: null,
  };
  const headers = { "request-id": `req_mock${options.requestIndex}` };
  if (!options.stream) {
    res.writeHead(200, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify({ ...message, content, stop_reason: stopReason, usage }));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
  const send = (event: Record<string, unknown>): void => {
    res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  };
  send({
    type: "message_start",
    message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
  });
  send({ type: "ping" });
  content.forEach((block, i) => blockEvents(block, i).forEach(send));
  send({ type: "message_delta", delta: { stop_reason: stopReason, stop_sequence: null }, usage });
  send({ type: "message_stop" });
  res.end();
}
