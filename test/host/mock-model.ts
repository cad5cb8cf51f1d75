import http from "node:http";
import type { AddressInfo } from "node:net";
import { isInternalContextMessage, textOfMessage, writeReply, type MockReply } from "./mock-wire.js";
import { createOpenAIRules } from "./openai-rules.js";
import { loadTokenCounter } from "./token-count.js";

export type { MockReply, MockToolCall } from "./mock-wire.js";

/** One chat-completions request as the host sent it. */
export interface MockRequest {
  /** 0-based position among all requests. */
  index: number;
  /** 1-based turn, counted by distinct genuine user messages (0 when none yet). */
  turn: number;
  /** 0-based position of this request within its turn. */
  indexInTurn: number;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** `body.messages`. */
  messages: unknown[];
  /** The last message of `messages`. */
  lastMessage: unknown;
  /** Text of the newest genuine user message (the host's internal-context messages skipped). */
  userText: string;
  /** Names of the tools offered. */
  toolNames: string[];
  /** Size of the raw request body in bytes. */
  bytes: number;
  /** Size of `JSON.stringify(messages)` in bytes. */
  messageBytes: number;
  /** True when the reply was forced to plain text by a request cap. */
  capped: boolean;
  /**
   * The partition (scenario) the request was routed to; `turn`/`indexInTurn` count within it. "" when unpartitioned.
   */
  partition: string;
  /** With {@link MockModelOptions.strict}: the error answered instead of a reply (OpenAI's code, else its message). */
  rejected?: string;
  /** With `strict.enforce: false`: the rule the request broke, answered anyway (OpenAI's code, else its message). */
  violation?: string;
  /** With {@link MockModelOptions.strict}: prompt tokens counted with a real BPE, and the cached share of them. */
  usage?: { promptTokens: number; cachedTokens: number };
}

/** Chooses the reply for one request. */
export type MockScript = (request: MockRequest) => MockReply;

/** Options for {@link startMockModel}. */
export interface MockModelOptions {
  /** Reply chooser; may be replaced later with `setScript`. @default always a short text */
  script?: MockScript;
  /** Model id reported by `/v1/models`. @default "mock-model" */
  modelId?: string;
  /** After this many requests in one turn, answer plain text (breaks tool loops). @default 6 */
  maxRequestsPerTurn?: number;
  /** After this many requests in total, answer plain text. @default 400 */
  maxRequestsTotal?: number;
  /** Prompt tokens reported in `usage`. @default ceil(message bytes / 4) */
  promptTokens?: (request: MockRequest) => number;
  /**
   * Routes a request to a partition (one scenario on a shared gateway) from the newest
   * genuine user message's text (undefined when there is none); turns are counted per
   * partition. @default everything in one partition ""
   */
  partition?: (userText: string | undefined) => string;
  /**
   * Answer as a strict OpenAI endpoint with this context window does ({@link createOpenAIRules}): a request
   * over the window or with unpaired tool messages gets OpenAI's 400 error (and `rejected`), and usage reports
   * real BPE prompt tokens and prefix-cached tokens; with `enforce: false` it answers every request and only
   * names the rule one broke (`violation`). @default lenient: any request is answered, bytes/4 usage
   */
  strict?: { contextWindow: number; enforce?: boolean };
}

/** A running mock model. */
export interface MockModel {
  /** `http://127.0.0.1:<port>/v1`, the provider's `baseUrl`. */
  baseUrl: string;
  port: number;
  modelId: string;
  /** Every chat-completions request so far, in arrival order. */
  requests: MockRequest[];
  /** Replaces the reply chooser. */
  setScript(script: MockScript): void;
  /** Requests of one turn. */
  requestsOfTurn(turn: number): MockRequest[];
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

const CAPPED_TEXT = "Done (mock request cap reached).";

/**
 * Starts an OpenAI-compatible chat-completions server on 127.0.0.1 (a free port):
 * `POST /v1/chat/completions` (SSE when `stream: true`, JSON otherwise) and
 * `GET /v1/models`. Records every request. Turns are told apart by the newest
 * genuine user message, so a script can act "once per turn" even though the host
 * appends internal-context user messages after tool results.
 */
export async function startMockModel(options: MockModelOptions = {}): Promise<MockModel> {
  const modelId = options.modelId ?? "mock-model";
  const perTurn = options.maxRequestsPerTurn ?? 6;
  const total = options.maxRequestsTotal ?? 400;
  let script: MockScript = options.script ?? (() => ({ text: "OK." }));
  const rules = options.strict
    ? createOpenAIRules({
        contextWindow: options.strict.contextWindow,
        enforce: options.strict.enforce,
        counter: await loadTokenCounter(),
      })
    : undefined;
  const requests: MockRequest[] = [];
  // Per partition: turn of each distinct user text, and requests so far in each turn.
  const turnOf = new Map<string, Map<string, number>>();
  const countInTurn = new Map<string, Map<number, number>>();

  const handleChat = (raw: Buffer, res: http.ServerResponse): void => {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
    } catch {
      res.writeHead(400, { "content-type": "application/json" }).end('{"error":{"message":"bad json"}}');
      return;
    }
    const messages = Array.isArray(body.messages) ? (body.messages as unknown[]) : [];
    const userText = newestGenuineUserText(messages);
    const partition = options.partition?.(userText) ?? "";
    const turns = turnOf.get(partition) ?? new Map<string, number>();
    turnOf.set(partition, turns);
    let turn = 0;
    if (userText !== undefined) {
      turn = turns.get(userText) ?? turns.size + 1;
      turns.set(userText, turn);
    }
    const counts = countInTurn.get(partition) ?? new Map<number, number>();
    countInTurn.set(partition, counts);
    const indexInTurn = counts.get(turn) ?? 0;
    counts.set(turn, indexInTurn + 1);
    const tools = Array.isArray(body.tools) ? (body.tools as { function?: { name?: string } }[]) : [];
    const request: MockRequest = {
      index: requests.length,
      turn,
      indexInTurn,
      body,
      messages,
      lastMessage: messages.at(-1),
      userText: userText ?? "",
      toolNames: tools.map((t) => t.function?.name ?? "").filter(Boolean),
      bytes: raw.length,
      messageBytes: Buffer.byteLength(JSON.stringify(messages)),
      capped: indexInTurn >= perTurn || requests.length >= total,
      partition,
    };
    requests.push(request);
    const verdict = rules?.check(body);
    if (verdict && !verdict.ok) {
      request.rejected = verdict.error.code ?? verdict.error.message;
      request.usage = { promptTokens: verdict.promptTokens, cachedTokens: 0 };
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: verdict.error }));
      return;
    }
    if (verdict) request.usage = { promptTokens: verdict.promptTokens, cachedTokens: verdict.cachedTokens };
    if (verdict?.violation) request.violation = verdict.violation.code ?? verdict.violation.message;
    let reply: MockReply;
    if (request.capped) reply = { text: CAPPED_TEXT };
    else {
      try {
        reply = script(request);
      } catch (error) {
        reply = { text: `mock script failed: ${String(error)}` };
      }
    }
    const promptTokens =
      request.usage?.promptTokens ?? options.promptTokens?.(request) ?? Math.ceil(request.messageBytes / 4);
    writeReply(res, reply, {
      model: modelId,
      stream: body.stream === true,
      promptTokens,
      ...(request.usage ? { cachedTokens: request.usage.cachedTokens } : {}),
      requestIndex: request.index,
    });
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "";
      if (req.method === "GET" && url.endsWith("/models")) {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: modelId, object: "model", owned_by: "mock" }] }));
      } else if (req.method === "POST" && url.endsWith("/chat/completions")) {
        handleChat(Buffer.concat(chunks), res);
      } else {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    modelId,
    requests,
    setScript: (next) => {
      script = next;
    },
    requestsOfTurn: (turn) => requests.filter((r) => r.turn === turn),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function newestGenuineUserText(messages: unknown[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown } | undefined;
    if (m?.role !== "user" || isInternalContextMessage(m)) continue;
    return textOfMessage(m);
  }
  return undefined;
}
