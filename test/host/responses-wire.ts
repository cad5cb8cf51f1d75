/**
 * The OpenAI Responses wire of the mock model: a request's `input` read as chat-completions
 * messages (so scripts and figures work on every wire alike), and replies written as the
 * Responses API writes them: SSE events (`response.created`, `response.output_item.added`,
 * text and function-call-argument deltas, `response.output_item.done`, `response.completed`
 * with usage), or one JSON response.
 */
import type http from "node:http";
import type { MockReply } from "./mock-wire.js";
import { inputItems, itemText } from "./responses-rules.js";

/** Options of {@link writeResponsesReply}. */
export interface ResponsesReplyOptions {
  model: string;
  stream: boolean;
  requestIndex: number;
  /** Reported as `usage.input_tokens`. */
  promptTokens: number;
  /** Reported as `usage.input_tokens_details.cached_tokens`. */
  cachedTokens: number;
}

/** The request as chat-completions messages: `instructions` as a system message, calls and outputs as tool messages. */
export function responsesChatView(body: Record<string, unknown>): unknown[] {
  const out: { role: string; content: unknown; tool_calls?: unknown[]; tool_call_id?: string }[] = [];
  if (typeof body.instructions === "string" && body.instructions)
    out.push({ role: "system", content: body.instructions });
  for (const item of inputItems(body)) {
    if (item.type === "function_call") {
      const call = {
        id: String(item.call_id),
        type: "function",
        function: { name: String(item.name), arguments: String(item.arguments ?? "") },
      };
      const last = out.at(-1);
      if (last?.role === "assistant") (last.tool_calls ??= []).push(call);
      else out.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (item.type === "function_call_output") {
      out.push({ role: "tool", tool_call_id: String(item.call_id), content: itemText(item) });
    } else if (item.type === undefined || item.type === "message") {
      const role = String(item.role) === "developer" ? "system" : String(item.role);
      out.push({ role, content: itemText(item) });
    }
  }
  return out;
}

/** Names of the function tools offered. */
export function responsesToolNames(body: Record<string, unknown>): string[] {
  const tools = Array.isArray(body.tools) ? (body.tools as { name?: unknown }[]) : [];
  return tools.map((t) => String(t.name ?? "")).filter(Boolean);
}

/** The output items of one reply, completed. */
function outputItems(reply: MockReply, requestIndex: number): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (reply.text)
    items.push({
      id: `msg_mock${requestIndex}`,
      type: "message",
      status: "completed",
      role: "assistant",
      content: [{ type: "output_text", text: reply.text, annotations: [] }],
    });
  ("toolCalls" in reply ? reply.toolCalls : []).forEach((call, i) =>
    items.push({
      id: `fc_mock${requestIndex}_${i}`,
      type: "function_call",
      status: "completed",
      call_id: `call_mock${requestIndex}_${i}-r`,
      name: call.name,
      arguments: JSON.stringify(call.args),
    }),
  );
  return items;
}

/** The events that stream one output item at `output_index`. */
function itemEvents(item: Record<string, unknown>, output_index: number): Record<string, unknown>[] {
  const item_id = item.id;
  if (item.type === "function_call")
    return [
      { type: "response.output_item.added", output_index, item: { ...item, status: "in_progress", arguments: "" } },
      { type: "response.function_call_arguments.delta", item_id, output_index, delta: item.arguments },
      { type: "response.function_call_arguments.done", item_id, output_index, arguments: item.arguments },
      { type: "response.output_item.done", output_index, item },
    ];
  const part = (item.content as { text: string }[])[0] ?? { text: "" };
  const at = { item_id, output_index, content_index: 0 };
  return [
    { type: "response.output_item.added", output_index, item: { ...item, status: "in_progress", content: [] } },
    { type: "response.content_part.added", ...at, part: { ...part, text: "" } },
    { type: "response.output_text.delta", ...at, delta: part.text },
    { type: "response.output_text.done", ...at, text: part.text },
    { type: "response.content_part.done", ...at, part },
    { type: "response.output_item.done", output_index, item },
  ];
}

/** Writes one Responses answer, streamed as SSE events or as one JSON response. */
export function writeResponsesReply(res: http.ServerResponse, reply: MockReply, options: ResponsesReplyOptions): void {
  const output = outputItems(reply, options.requestIndex);
  const outputTokens = Math.max(1, Math.ceil(JSON.stringify(output).length / 4));
  const response = {
    id: `resp_mock${options.requestIndex}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model: options.model,
    error: null,
    incomplete_details: null,
  };
  const usage = {
    input_tokens: options.promptTokens,
    input_tokens_details: { cached_tokens: options.cachedTokens },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: options.promptTokens + outputTokens,
  };
  const completed = { ...response, status: "completed", output, usage };
  if (!options.stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify(completed));
    return;
  }
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  let sequence = 0;
  const send = (event: Record<string, unknown>): void => {
    res.write(`event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`);
  };
  const pending = { ...response, status: "in_progress", output: [], usage: null };
  send({ type: "response.created", response: pending });
  send({ type: "response.in_progress", response: pending });
  output.forEach((item, i) => itemEvents(item, i).forEach(send));
  send({ type: "response.completed", response: completed });
  res.end();
}
